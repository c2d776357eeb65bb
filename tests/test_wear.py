"""Wear seen before it fails: an ageing motor is warned about, by part and side, before
it stalls; the warning and the schedule read as a technician says them."""

from __future__ import annotations

import datetime

from firmware.console import render
from mjtable_core.config import load_config
from simulator.fuzz.aging import soak
from tests.conftest import CONFIGS


def test_an_ageing_head_is_warned_about_before_it_stalls() -> None:
    """One fast soak: 5 % slower a week, a week being 3 hands; it stalls at 1.25×."""
    config = load_config(CONFIGS["144"]).with_play_time(30.0)
    result = soak(config, "motor.side.2.head", 2, seed=4, week_hands=3, stall_at=1.25)
    warned, stopped = result["warned"], result["stopped"]
    assert stopped is not None and stopped["id"] == "head.jam"
    assert stopped["where"] == "side.2.head"
    assert warned is not None and result["warned_first"], result
    assert warned["hand"] < stopped["hand"]
    assert warned["percent"] >= 15


def test_health_lines_name_the_part_the_side_and_a_date() -> None:
    report = {
        "hands": 120, "table_hours": 3.5, "run_hours": {"motor.side.2.head": 0.42},
        "trends": {"head.2": {"as_new_s": 0.42, "ratio": 1.2}},
        "warnings": [
            {"part": "count sensor of side {side}", "side": 2, "due_days": 7,
             "job": "clean the count sensor of side {side}",
             "why": "{n} count retries and faults in the last {builds} builds",
             "measure": {"n": 4, "builds": 12}},
            {"part": "stacking head of side {side}", "side": 1, "due_days": 1,
             "job": "service the stacking head of side {side}: clean and oil its slider, "
                    "check its motor and gear",
             "why": "{percent} % slower than new ({now} s, new {new} s)",
             "measure": {"percent": 31, "now": 0.55, "new": 0.42}}],
        "schedule": [{"job": "sensors", "every": "weekly", "every_hands": 280,
                      "text": "clean the count sensors of every side and the dice sensor",
                      "since_hands": 300, "due": True}]}
    lines = render.health_lines(report, datetime.date(2026, 12, 1))
    text = "\n".join(lines)
    assert ("clean the count sensor of side 2 within a week (by 2026-12-08): count sensor "
            "of side 2, 4 count retries and faults in the last 12 builds") in text
    assert "service the stacking head of side 1" in text and "(by 2026-12-02)" in text
    assert "head.2: +20 % (new 0.42 s)" in text
    assert "[DUE] weekly (280 hands) sensors: clean the count sensors" in text
