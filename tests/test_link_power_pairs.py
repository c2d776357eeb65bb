"""Every pair of link and power faults, in either order, on the ioboard rig: the
lockstep never crashes (a power cut during a link drop used to end in LinkStalled),
the referee sees nothing, and every motor is off after each stop."""

from __future__ import annotations

import pytest

from firmware.faults.kinds import CATALOGUE
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import ActionSpec, Expect, FaultSpec, Scenario

from .conftest import CONFIGS, quick

pytestmark = pytest.mark.timeout(300)

FAULTS = {
    "power": lambda at: FaultSpec("power_cut", "power", 2, at_s=at, duration_s=1.0),
    "drop_short": lambda at: FaultSpec("link_drop", "link", 2, at_s=at, duration_s=0.3),
    "drop_long": lambda at: FaultSpec("link_drop", "link", 2, at_s=at, duration_s=4.0),
}
PAIRS = [(a, b, gap) for a, b in (("power", "drop_short"), ("drop_short", "power"),
                                  ("power", "drop_long"), ("drop_long", "power"))
         for gap in (0.0, 0.2)]


@pytest.mark.parametrize(("first", "then", "gap"), PAIRS)
def test_link_and_power_faults_in_any_order_never_crash(first, then, gap) -> None:
    config = quick(load_config(CONFIGS["144"]), 20.0)
    scenario = Scenario(
        seed=7, cycles=2, source=f"{first}+{then}",
        faults=(FAULTS[first](5.0), FAULTS[then](5.0 + gap)),
        actions=(ActionSpec(after_fault="build.interrupted", do="refeed"),
                 ActionSpec(after_fault="power.recovered", do="refeed")),
        expect=Expect(allow=tuple(CATALOGUE)))
    report = Harness(config, scenario, None, rig="ioboard", rig_options={}).run()
    assert report["crashed"] is None, report["crashed"]
    assert report["referee_violations"] == []
    assert report["motors_safe_after_faults"] and report["motors_off_at_end"]
