"""One cause, one fault: raised again while active it counts, and the display never
shows a fault once it is cleared."""

from __future__ import annotations

from bench.bench_diagnosis import run_one
from simulator.scenario import FaultSpec
from tests.test_diagnosis import table_in_play


def test_a_fault_raised_again_while_active_is_one_fault_with_a_count_and_a_rate() -> None:
    harness = table_in_play()
    ctl = harness.ctl
    for _n in range(26):      # a flaky upper lid sensor, every 0.3 s
        ctl.fault("lid.sensor_conflict", "lid", None, {"changed_last": "lid.upper"})
        harness.clock.run_until(harness.clock.now() + 0.3)
    active = [f for f in ctl.faults if f.active and f.id == "lid.sensor_conflict"]
    assert len(active) == 1
    assert active[0].evidence["repeats"] == 26
    assert active[0].evidence["per_minute"] == 200.0
    assert ctl.hal.read("display") == "E12"


def test_the_display_never_shows_a_cleared_fault() -> None:
    harness = table_in_play()
    ctl = harness.ctl
    older = ctl.fault("build.tiles_missing", "build", None, {})
    newer = ctl.fault("plate.stuck", "side.2.plate", 2, {})
    assert ctl.hal.read("display") == "E32"
    ctl.clear_fault(newer, by="test")
    assert ctl.hal.read("display") == "E50"     # the one still active
    ctl.clear_fault(older, by="test")
    assert ctl.hal.read("display") not in ("E50", "E32")


def test_a_flaky_lid_sensor_raises_no_flood() -> None:
    judged = run_one("table.toml", FaultSpec("sensor_flaky", "lid.upper", 1, "build",
                                             probability=6.0))
    assert judged["max_active_copies"] <= 1, judged
    assert not judged["flood"], judged
