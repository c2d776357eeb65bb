"""The usage ledger: records that survive restarts and crashes, acknowledged by the venue."""

from __future__ import annotations

from pathlib import Path

from firmware.state.ledger import Ledger
from mjtable_core.clock import VirtualClock


def _ledger(path: Path, clock: VirtualClock, wall: float = 1000.0) -> Ledger:
    return Ledger(path / "ledger.sqlite", "t1", clock, wall=lambda: wall + clock.now(),
                  variant="mcr", checkpoint_s=10.0)


def _hand(ledger: Ledger, clock: VirtualClock, cycle: int, seconds: float) -> None:
    ledger.on_event({"kind": "raising", "cycle": cycle})
    clock.run_until(clock.now() + seconds)
    ledger.on_event({"kind": "phase", "state": "opening", "cycle": cycle})


def test_hands_are_records_with_their_duration_booking_and_variant(tmp_path: Path) -> None:
    clock = VirtualClock()
    ledger = _ledger(tmp_path, clock)
    ledger.booking = lambda: "B-7"
    _hand(ledger, clock, 1, 120.0)
    _hand(ledger, clock, 2, 60.0)
    records = ledger.records()
    assert [(r["boot"], r["seq"], r["cycle"]) for r in records] == [(1, 1, 1), (1, 2, 2)]
    assert [r["duration_s"] for r in records] == [120.0, 60.0]
    assert records[0]["booking_id"] == "B-7" and records[0]["variant"] == "mcr"
    assert records[0]["ended"] == "played" and records[0]["end"] - records[0]["start"] == 120
    totals = ledger.totals()
    assert (totals["hands"], totals["play_s"], totals["last_seq"]) == (2, 180.0, 2)
    assert ledger.records(after=1) == records[1:]
    ledger.close()


def test_acknowledge_never_lowers_and_never_passes_the_last_record(tmp_path: Path) -> None:
    clock = VirtualClock()
    ledger = _ledger(tmp_path, clock)
    for cycle in (1, 2, 3):
        _hand(ledger, clock, cycle, 10.0)
    assert len(ledger.records()) == 3       # read (by the agent, to send them)
    assert ledger.acknowledge(2) == 2
    assert ledger.acknowledge(1) == 2
    assert ledger.acknowledge(99) == 3
    assert ledger.totals()["acked"] == 3
    # Acknowledged records stay readable: a venue that lost its copy reads them again.
    assert len(ledger.records()) == 3
    ledger.close()


def test_sequence_and_totals_go_on_across_restarts(tmp_path: Path) -> None:
    clock = VirtualClock()
    ledger = _ledger(tmp_path, clock)
    _hand(ledger, clock, 1, 30.0)
    clock.run_until(clock.now() + 20.0)
    ledger.close()
    clock2 = VirtualClock()
    again = _ledger(tmp_path, clock2)
    again.adopt(0, in_play=False)
    _hand(again, clock2, 1, 40.0)
    records = again.records()
    assert [(r["boot"], r["seq"]) for r in records] == [(1, 1), (2, 2)]
    totals = again.totals()
    assert (totals["boot"], totals["hands"], totals["play_s"]) == (2, 2, 70.0)
    assert totals["powered_s"] == 90.0
    again.close()


def test_a_hand_cut_by_a_crash_is_closed_as_interrupted_with_its_counted_time(
        tmp_path: Path) -> None:
    clock = VirtualClock()
    ledger = _ledger(tmp_path, clock)
    ledger._schedule()
    ledger.on_event({"kind": "raising", "cycle": 1})
    clock.run_until(25.0)           # two checkpoints (10 s, 20 s), then the crash
    ledger.flush()
    ledger.db.close()               # no close(): the process died
    clock2 = VirtualClock()
    again = _ledger(tmp_path, clock2)
    assert again.records() == []    # an open hand is not a record yet
    again.adopt(0, in_play=False)
    (record,) = again.records()
    assert (record["boot"], record["seq"], record["ended"]) == (1, 1, "interrupted")
    assert record["duration_s"] == 20.0 and record["end"] is None
    _hand(again, clock2, 1, 5.0)
    assert [r["seq"] for r in again.records()] == [1, 2]
    again.close()


def test_a_hand_still_in_play_after_a_restart_goes_on(tmp_path: Path) -> None:
    clock = VirtualClock()
    ledger = _ledger(tmp_path, clock)
    ledger._schedule()
    ledger.on_event({"kind": "raising", "cycle": 4})
    clock.run_until(15.0)
    ledger.flush()
    ledger.db.close()
    clock2 = VirtualClock()
    again = _ledger(tmp_path, clock2)
    again.adopt(4, in_play=True)
    clock2.run_until(30.0)
    again.on_event({"kind": "phase", "state": "opening", "cycle": 4})
    (record,) = again.records()
    assert (record["boot"], record["seq"], record["ended"]) == (1, 1, "played")
    assert record["duration_s"] == 40.0     # 10 counted before the crash, 30 after
    again.close()


def test_a_paid_session_survives_a_restart_on_the_tables_own_clock(tmp_path: Path) -> None:
    from firmware.service.gate import BookingGate

    clock = VirtualClock()
    ledger = _ledger(tmp_path, clock)
    gate = BookingGate(clock, enforced=True)
    ledger.kept["gate"] = gate.snapshot
    gate.enable(600.0, "B-9")
    ledger.keep("gate", gate.snapshot())
    ledger._schedule()
    clock.run_until(100.0)          # checkpoints at 10, 20, ... 100 s
    ledger.flush()
    ledger.db.close()               # a power cut
    clock2 = VirtualClock(start_s=5.0)
    again = _ledger(tmp_path, clock2)
    restored = BookingGate(clock2, enforced=True)
    restored.restore(again.kept_value("gate"))
    assert restored.booking() == "B-9" and restored.closed_why() is None
    assert restored.status()["left_s"] == 500.0
    clock2.run_until(5.0 + 500.0)
    assert restored.closed_why() is not None
    again.close()



def test_an_acknowledgement_never_covers_a_record_nobody_has_read(tmp_path: Path) -> None:
    """Before, an ack far ahead was cut at the last finished record: hands finished but
    not yet read by the agent were counted as held by the venue, and the agent, which
    starts each session from the acknowledged sequence, never sent them."""
    clock = VirtualClock()
    ledger = _ledger(tmp_path, clock)
    for cycle in (1, 2):
        _hand(ledger, clock, cycle, 10.0)
    assert [r["seq"] for r in ledger.records(after=0)] == [1, 2]     # the agent sends
    _hand(ledger, clock, 3, 10.0)                                     # not read yet
    assert ledger.acknowledge(10 ** 6) == 2
    assert [r["seq"] for r in ledger.records(after=ledger.totals()["acked"])] == [3]
    assert ledger.acknowledge(10 ** 6) == 3
    ledger.close()
    # After a restart nothing past the acknowledged sequence has been read.
    again = _ledger(tmp_path, clock)
    _hand(again, clock, 4, 10.0)
    assert again.acknowledge(10 ** 6) == 3
    again.close()
