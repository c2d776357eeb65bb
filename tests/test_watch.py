"""Motion watchdogs (firmware/machines/watch.py): judged in time, held while the link is
in doubt, forgotten once done."""

from __future__ import annotations

from typing import Any

import pytest

from firmware.machines.watch import Watch
from mjtable_core.clock import VirtualClock


def test_a_watchdog_due_while_the_link_is_in_doubt_looks_again_until_it_is_heard() -> None:
    clock = VirtualClock()
    misses: list[tuple[Any, ...]] = []
    link: list[bool | None] = [None]
    watch = Watch(clock, lambda *miss: misses.append(miss), lambda: link[0])
    watch.expect("stall", 1.0, "build.tiles_missing", "build", {"counted": 3})
    clock.run_until(1.22)
    assert misses == [] and watch.armed() == ["stall"]
    link[0] = False
    clock.run_until(1.3)
    assert misses == [("build.tiles_missing", "build", None,
                       {"counted": 3, "waited_s": 1.25})]
    assert watch.armed() == []


def test_a_watchdog_done_or_armed_again_is_not_judged() -> None:
    clock = VirtualClock()
    misses: list[tuple[Any, ...]] = []
    watch = Watch(clock, lambda *miss: misses.append(miss))
    watch.expect("stall", 1.0, "build.tiles_missing", "build", {})
    clock.run_until(0.5)
    watch.expect("stall", 1.0, "build.tiles_missing", "build", lambda: {"again": True})
    watch.expect("lid", 1.0, "lid.not_rising", "lid", {})
    clock.run_until(1.2)
    assert watch.done("lid") == pytest.approx(0.7)
    clock.run_until(2.0)
    assert misses == [("build.tiles_missing", "build", None,
                       {"again": True, "waited_s": 1.0})]
