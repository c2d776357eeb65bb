"""The journal: written whole or not at all, and what a restart does with it."""

from __future__ import annotations

import json
from pathlib import Path

from firmware.controller import Controller, compose_table
from firmware.state.journal import FILE_NAME, FileJournal, MemoryJournal
from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config
from simulator.harness.runner import ScopedClock, WiredTable, assemble
from tests.conftest import ScriptedHal, quick


def test_file_journal_round_trip_and_replace(tmp_path: Path) -> None:
    journal = FileJournal(tmp_path)
    assert journal.load() == {}
    journal.save({"cycle": 3, "clean": False})
    journal.save({"cycle": 4, "clean": True})
    assert journal.load()["cycle"] == 4
    assert not (tmp_path / "journal.tmp").exists()


def test_unreadable_journal_counts_as_an_unclean_stop(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_bytes(b'{"cycle": 3, "clean": tr')     # torn by hand
    assert FileJournal(tmp_path).load() == {"clean": False, "unreadable": True}
    (tmp_path / FILE_NAME).write_text(json.dumps({"format": "other/9", "clean": True}))
    assert FileJournal(tmp_path).load() == {"clean": False}
    # Damage that still parses as JSON, just not as a journal (it raised AttributeError
    # at boot: a traceback instead of a restart).
    for damaged in ("[]", "null", "42", '"clean"'):
        (tmp_path / FILE_NAME).write_text(damaged)
        assert FileJournal(tmp_path).load() == {"clean": False, "unreadable": True}


def restart(bench, journal: MemoryJournal) -> Controller:
    """A new controller on the same table and journal, the old one's timers dead."""
    clock = ScopedClock(bench.clock)
    ctl = compose_table(bench.config, bench.hal, clock, journal, consumers=False)
    ctl.start()
    return ctl


def booted(seed: int) -> tuple[WiredTable, MemoryJournal, ScopedClock, Controller]:
    """A simulated table with a journal and its controller started; `ScopedClock.kill`
    is the power cut (the controller's timers die with it)."""
    bench = assemble(quick(load_config()), seed=seed)
    journal = MemoryJournal()
    first = ScopedClock(bench.clock)
    ctl = compose_table(bench.config, bench.hal, first, journal, consumers=False)
    ctl.start()
    return bench, journal, first, ctl


def power_cut_mid_build(seed: int = 3) -> tuple[WiredTable, Controller]:
    """A table cut off 8 s into its first build, and the controller booted after it."""
    bench, journal, first, _ctl = booted(seed)
    bench.clock.run_until(8.0)
    first.kill()
    return bench, restart(bench, journal)


def test_stop_during_a_build_never_resumes_the_half_built_set() -> None:
    bench, journal, first, ctl = booted(3)
    bench.clock.run_until(8.0)
    assert ctl.build.state == "building" and sum(s.counted for s in ctl.sides) > 0
    ctl.stop()                                   # a clean stop, mid-build
    first.kill()
    again = restart(bench, journal)
    bench.clock.run_until(bench.clock.now() + 5.0)
    hold = again.refeed_hold
    assert hold is not None and hold.id == "build.interrupted" and hold.active
    assert again.build.state == "idle"           # nothing resumed
    assert bench.hal.read("display") == "rF"
    bench.table.refeed()                         # the operator empties tracks and heads
    again.clear_fault(hold, by="operator", refed=True)
    bench.clock.run_until(bench.clock.now() + 60.0,
                          until=lambda: again.build.state == "staged")
    assert again.build.state == "staged"
    assert [s.stacked for s in again.sides] == [36] * 4
    assert bench.table.tiles_accounted()


def test_learned_timings_and_fault_history_survive_a_restart() -> None:
    bench, journal, first, ctl = booted(4)
    bench.players.start()
    bench.clock.run_until(400.0, until=lambda: ctl.cycle.number >= 2)
    learned = {m: ctl.supervisor.learned(m) for m in ("lid.up", "head.0", "plate.2")}
    assert learned["head.0"] != ctl.timing.head_turn_s      # learned, not the nominal
    first.kill()                                 # power cut: no clean stop
    bench.table.power(False)
    bench.table.power(True)
    again = restart(bench, journal)
    assert {m: again.supervisor.learned(m) for m in learned} == learned
    assert again.cycle.number == ctl.cycle.number
    assert again.faults[0].id == "power.recovered"
    assert journal.load()["faults"][-1]["id"] == "power.recovered"


def test_handoff_keeps_recent_records_only(monkeypatch) -> None:
    import firmware.hands.handoff
    from simulator.harness.runner import Harness
    from simulator.scenario import Scenario

    monkeypatch.setattr(firmware.hands.handoff, "KEEP_RECORDS", 2)
    harness = Harness(quick(load_config(), 5.0), Scenario(seed=6, cycles=6))
    report = harness.run()
    assert report["cycles_completed"] == 6
    handoff = harness.ctl.handoff
    assert handoff.count == 6
    assert len(handoff.records) == 2
    assert handoff.records[-1]["table"]["cycle"] == 6


def test_a_fault_before_start_does_not_write_over_the_journal(config) -> None:
    # The board's handshake runs after the controller is built and may raise
    # link.version: the journal must still hold the machine start() will recover.
    journal = MemoryJournal()
    saved = {"clean": False, "cycle": 41, "set_building": "B"}
    journal.save(saved)
    clock = VirtualClock()
    ctl = compose_table(config, ScriptedHal(clock), clock, journal, consumers=False)
    ctl.fault("link.version", "link", None, {"board_version": 1})
    assert journal.load() == saved
    # The daemon stops there; the next start recovers the machine as it was.
    again = compose_table(config, ScriptedHal(clock), clock, journal, consumers=False)
    again.start()
    assert again.cycle.number == 41 and journal.load()["cycle"] == 41


def test_a_refeed_still_pending_survives_a_clean_restart(config) -> None:
    # Switched off cleanly while the display asked for a refeed, then on again: the
    # half-built set's tiles are still in belts and heads, so the table holds again.
    journal = MemoryJournal()
    journal.save({"clean": False, "cycle": 3, "build": "building", "set_building": "A"})
    clock = VirtualClock()
    ctl = compose_table(config, ScriptedHal(clock), clock, journal, consumers=False)
    ctl.start()
    assert ctl.refeed_hold is not None
    ctl.stop()
    again = compose_table(config, ScriptedHal(clock), clock, journal, consumers=False)
    again.start()
    assert again.refeed_hold is not None and again.refeed_hold.id == "build.interrupted"
    assert again.build.state == "idle"


# -- a power cut while a fault holds the table, or at the handoff ----------------------

def _restart(config, journal: MemoryJournal, plate_home: dict[int, bool] | None = None
             ) -> tuple[Controller, ScriptedHal, VirtualClock]:
    clock = VirtualClock()
    hal = ScriptedHal(clock)
    for side, home in (plate_home or {}).items():
        hal.values[f"side.{side}.plate_home"] = home
    ctl = compose_table(config, hal, clock, journal, consumers=False)
    ctl.start()
    clock.run_until(clock.now() + 0.2)
    return ctl, hal, clock


def test_a_plate_found_off_home_outside_a_raise_is_not_turned_over_the_stacks(config) -> None:
    # A cut mid-build, and plate 3's home sensor reads off home at power-on (stuck, or the
    # plate moved by hand). No raise was in progress: turning it would lift the stacks on
    # its track onto the hand in play. Held as plate.stuck, the plate motor never on.
    journal = MemoryJournal()
    journal.save({"clean": False, "cycle": 3, "build": "building", "set_building": "A",
                  "set_in_play": "B"})
    ctl, hal, clock = _restart(config, journal, {3: False})
    stuck = [f for f in ctl.faults if f.active and f.id == "plate.stuck"]
    assert stuck and stuck[0].evidence["found_off_home"] is True
    assert not any(value is True for t, name, value in hal.writes
                   if name == "motor.side.3.plate")
    # Cleared without a fix: the resume does not turn it either, homing holds again.
    ctl.clear_fault(stuck[0], by="tech")
    ctl.resume_after_fault()
    clock.run_until(clock.now() + 0.2)
    assert hal.values["motor.side.3.plate"] is False
    assert ctl.cycle.state == "fault"
    assert [f.id for f in ctl.faults if f.active] == ["power.recovered", "plate.stuck"]


def test_a_plate_found_off_home_during_a_raise_still_finishes_it(config) -> None:
    # The contrast: a cut while the walls rose. The plate off home is lifting the staged
    # wall, and comes round to finish the raise.
    journal = MemoryJournal()
    walls = [[["1m", "2m"]] * 18 for _ in range(4)]
    journal.save({"clean": False, "cycle": 3, "build": "staged", "set_building": "A",
                  "set_in_play": "B", "staged_set": "A", "staged_walls": walls,
                  "raising": True})
    ctl, hal, _clock = _restart(config, journal, {3: False})
    assert not any(f.id == "plate.stuck" for f in ctl.faults)
    assert hal.values["motor.side.3.plate"] is True


def test_the_last_throw_is_shown_again_after_a_cut_at_the_handoff(config) -> None:
    # The display write of the last throw may be lost in the cut: players who never saw
    # it would throw again in play for ever. The restarted table shows it again.
    journal = MemoryJournal()
    journal.save({"clean": True, "cycle": 3, "build": "idle", "set_building": "A",
                  "set_in_play": "B", "shown_faces": [2, 6]})
    ctl, hal, _clock = _restart(config, journal)
    assert ctl.cycle.state == "play"
    assert hal.values["display"] == "2-6"
    assert ctl.journal.load()["shown_faces"] == [2, 6]
