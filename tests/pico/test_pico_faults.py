"""A stop-fault on the pico rig: the host's SAFE crosses UART0 and the chip turns every
motor of the fault's scope off, judged by the referee from where the motors physically
are. A head motor dies as the first build starts (the head does not come home: E22
`head.jam`), a technician replaces it, the hand is dealt. A few minutes of wall time."""

from __future__ import annotations

import pytest

from firmware.faults.kinds import CATALOGUE
from simulator.rigs.rig import SAFE_GRACE_S
from simulator.scenario import ActionSpec, Expect, FaultSpec, Scenario
from tests.pico.conftest import run_on_chip

pytestmark = [pytest.mark.xdist_group("pico"), pytest.mark.timeout(400)]


def test_a_stop_fault_on_the_chip_turns_its_motors_off_within_the_safe_grace() -> None:
    scenario = Scenario(
        seed=3, cycles=1, source="<pico fault>",
        faults=(FaultSpec("motor_dead", "motor.side.2.head", 1, phase="build"),),
        actions=(ActionSpec(after_fault="head.jam", do="replace_part", delay_s=5.0,
                            where="motor.side.2.head", for_fault=1),),
        expect=Expect(faults=("head.jam",), allow=tuple(CATALOGUE)))
    report = run_on_chip(scenario)
    assert report["referee_violations"] == [], report["referee_violations"]
    assert report["motors_safe_after_faults"] and report["completed"], report["problems"]
    assert [f["id"] for f in report["faults"]][:1] == ["head.jam"]
    safe = report["board"]["safe_latency_us"]
    assert safe["n"] >= 1 and safe["max"] < SAFE_GRACE_S * 1e6, safe
