"""A chattering input writes one `fault.repeated` row per fault and window, not one
per repeat (a board toggling `case_open` wrote 825 rows in 2 s)."""

from __future__ import annotations

from typing import Any

from firmware.faults.repeat_rows import WINDOW_S
from tests.test_diagnosis import table_in_play


def test_a_chattering_case_switch_writes_a_row_a_window_and_the_count_survives() -> None:
    harness = table_in_play()
    ctl = harness.ctl
    rows: list[dict[str, Any]] = []
    ctl.subscribers.append(lambda event: rows.append(event))
    start = harness.clock.now()
    for n in range(1000):       # 500 opens in 2 s, then the same for another window
        ctl.inputs.on_signal("case_open", n % 2 == 0)
        harness.clock.run_until(start + (n + 1) * 0.004)
    harness.clock.run_until(start + 2 * WINDOW_S + 5)
    for n in range(40):
        ctl.inputs.on_signal("case_open", n % 2 == 0)
    repeated = [r for r in rows if r["kind"] == "fault.repeated"]
    assert 2 <= len(repeated) <= 4, len(repeated)
    fault = next(f for f in ctl.faults if f.id == "case.opened" and f.active)
    assert fault.repeats == 520
    # The window's closing row counts what it did not write: nothing is lost.
    assert repeated[1]["unwritten"] == 498 and repeated[1]["repeats"] == 500


def test_the_clear_closes_the_window_first() -> None:
    harness = table_in_play()
    ctl = harness.ctl
    rows: list[dict[str, Any]] = []
    ctl.subscribers.append(lambda event: rows.append(event))
    for _n in range(30):
        ctl.fault("lid.sensor_conflict", "lid", None, {"changed_last": "lid.upper"})
    fault = next(f for f in ctl.faults if f.id == "lid.sensor_conflict" and f.active)
    ctl.clear_fault(fault, by="test")
    kinds = [r["kind"] for r in rows if r["kind"].startswith("fault.")]
    assert kinds == ["fault.repeated", "fault.repeated", "fault.cleared"]
    assert rows[-2]["repeats"] == 30 and rows[-2]["unwritten"] == 28
