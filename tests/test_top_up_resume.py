"""A top-up (after E50) interrupted by another stop-fault goes on once that is cleared."""

from __future__ import annotations

from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import FaultSpec, Scenario
from tests.conftest import quick


def test_a_top_up_interrupted_by_e32_goes_on_once_e32_is_cleared() -> None:
    harness = Harness(quick(load_config(), 20.0), Scenario(seed=4, cycles=3, faults=(
        FaultSpec("missing_tiles", "table", 1, "play", count=2),)))
    harness.boot()
    harness.players.start()
    ctl, clock = harness.ctl, harness.clock
    clock.run_until(3000, until=lambda: any(
        f.id == "build.tiles_missing" and f.active for f in ctl.faults))
    harness.players.top_up()
    clock.run_until(clock.now() + 60, until=lambda: ctl.cycle.state == "top_up_open")
    ctl.fault("plate.stuck", "side.2.plate", 2, {})
    clock.run_until(clock.now() + 20)
    harness._clear("plate.stuck")
    assert ctl.hal.read("display") == "E50"          # never the cleared E32
    assert ctl.cycle.state == "top_up_open"          # the top-up goes on, lid open
    assert ctl.build.state == "fault"                # the build still held by E50
    harness.table.press("key.lift.0")                # topped up: one lift key
    clock.run_until(clock.now() + 200)
    assert not any(f.active for f in ctl.faults)
    assert ctl.cycle.state == "play" and len(harness.handoffs) > 2
