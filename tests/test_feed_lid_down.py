"""The feed (disc, ring, conveyors) never runs unless the lid is at its lower stop.

Found by the fuzzer on the 136-tile table: a top-up's lid blocked at 40 % while
closing (E11), the obstruction cleared, and the resumed build ran its conveyors into
the open hole. Every resume with the lid off its stop is tried here, on both tables:
after the lid's own fault, after another fault, and after a halt. The referee judges
by the physical lid; the firmware must start the feed only once the lid is down.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mjtable_core.config import load_config, reference_config
from simulator.harness.runner import Harness
from simulator.physics.table import LID_OBSTRUCTION_AT
from simulator.scenario import Scenario
from tests.conftest import quick

FEED = ("motor.disc", "motor.ring")


def _topping_up_with_the_lid_blocked(table: str) -> Harness:
    """A build running, the players top up, and the lid stops at 40 % as it closes."""
    config = quick(load_config(reference_config(table)) if table else load_config(), 20.0)
    harness = Harness(config, Scenario(seed=5, cycles=3))
    harness.boot()
    harness.players.start()
    ctl, clock = harness.ctl, harness.clock
    clock.run_until(3000, until=lambda: ctl.build.state == "building"
                    and ctl.cycle.state == "play" and harness.handoffs != [])
    harness.players.top_up()
    clock.run_until(clock.now() + 60, until=lambda: ctl.cycle.state == "top_up_open")
    harness.table.block_lid(True)
    clock.run_until(clock.now() + 60,
                    until=lambda: harness.table.lid.position <= LID_OBSTRUCTION_AT)
    return harness


def _feed_running(harness: Harness) -> list[str]:
    values = harness.table.values
    return [name for name in values if (name in FEED or name.endswith(".conveyor"))
            and values[name] not in (False, None, "off")]


def _lid_fault_cleared(harness: Harness) -> None:
    harness.clock.run_until(harness.clock.now() + 30, until=lambda: any(
        f.active and f.id == "lid.not_lowering" for f in harness.ctl.faults))
    harness.table.block_lid(False)
    harness._clear("lid.not_lowering")


def _other_fault_cleared(harness: Harness) -> None:
    # A plate fault while the lid closes: the lid's own motion is parked too.
    harness.ctl.fault("plate.stuck", "side.2.plate", 2, {})
    harness.table.block_lid(False)
    harness._clear("plate.stuck")


def _halt_resumed(harness: Harness) -> None:
    harness.ctl.halt("console")
    harness.table.block_lid(False)
    harness.ctl.resume_after_fault()


@pytest.mark.parametrize("table", ["", "table-136.toml"], ids=["144", "136"])
@pytest.mark.parametrize("resume", [_lid_fault_cleared, _other_fault_cleared, _halt_resumed],
                         ids=["lid_fault", "other_fault", "halt"])
def test_a_resume_feeds_only_once_the_lid_is_down(
        table: str, resume: Callable[[Harness], None]) -> None:
    harness = _topping_up_with_the_lid_blocked(table)
    ctl, clock = harness.ctl, harness.clock
    assert 0.0 < harness.table.lid.position < 1.0 and ctl.lid.state != "closed"
    resume(harness)
    # At the instant of the resume, the lid still part open: nothing of the feed runs.
    assert not harness.table.physical["lid.lower"]
    assert _feed_running(harness) == []
    clock.run_until(clock.now() + 300, until=lambda: len(harness.handoffs) >= 3)
    assert harness.referee.violations == []
    assert not any(f.active for f in ctl.faults if f.kind.severity == "E")
    assert len(harness.handoffs) >= 3       # the hands go on: the build fed once down
