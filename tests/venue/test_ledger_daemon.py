"""The ledger in a real daemon: a kill -9 during a hand loses and duplicates nothing."""

from __future__ import annotations

from pathlib import Path

from bench.helpers.venue_tables import Daemon, wait_for


def test_a_daemon_killed_during_a_hand_keeps_every_record_once(tmp_path: Path) -> None:
    daemon = Daemon(tmp_path).start()
    try:
        wait_for(lambda: len(daemon.usage()["records"]) >= 2, 60.0, "two hands")
        wait_for(lambda: daemon.usage()["totals"]["in_hand"], 30.0, "a hand in play")
        before = daemon.usage()["records"]
        daemon.kill()
        daemon.start()
        wait_for(lambda: len(daemon.usage()["records"]) >= len(before) + 2, 60.0,
                 "hands after the restart")
        after = daemon.usage()
    finally:
        daemon.stop()
    records = after["records"]
    keys = [(r["boot"], r["seq"]) for r in records]
    assert len(set(keys)) == len(keys)
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    assert records[:len(before)] == before      # what was read before is unchanged
    cut = records[len(before)]
    assert (cut["boot"], cut["ended"]) == (1, "interrupted")
    assert all(r["boot"] == 2 and r["ended"] == "played" for r in records[len(before) + 1:])
    assert after["totals"]["boot"] == 2 and after["totals"]["hands"] == len(records)
