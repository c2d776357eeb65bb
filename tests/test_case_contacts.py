"""A two-contact case switch (normally open and normally closed, on two inputs), on
every backend: a disagreement that outlasts the switch's travel is `case.contacts`
(E98) and the table stops; both contacts opening together is the case opened (E93)."""

from __future__ import annotations

import dataclasses

import pytest

from firmware.faults.kinds import CATALOGUE
from hal.interlocks import interlock_rules
from mjtable_core.config import Config, load_config
from simulator.harness.runner import Harness
from simulator.scenario import Expect, FaultSpec, Scenario

from .conftest import CONFIGS, quick

pytestmark = pytest.mark.timeout(300)


def two_contacts(table: str = "144") -> Config:
    config = quick(load_config(CONFIGS[table]), 20.0)
    return dataclasses.replace(config, table=dataclasses.replace(config.table,
                                                                 case_contacts=2))


def _run(config: Config, rig: str, *stuck: str) -> tuple[dict, Harness]:
    faults = tuple(FaultSpec("sensor_stuck", name, 2, at_s=8.0, value=True) for name in stuck)
    scenario = Scenario(seed=4, cycles=2, source="contacts", faults=faults,
                        expect=Expect(allow=tuple(CATALOGUE)))
    harness = Harness(config, scenario, None, rig=rig, rig_options={})
    return harness.run(), harness


def test_the_second_contact_is_a_signal_and_an_interlock_only_when_configured() -> None:
    one = quick(load_config(CONFIGS["144"]), 20.0)
    assert "case_open_nc" not in one.signals()
    signals = two_contacts().signals()
    assert "case_open_nc" in signals
    rules = interlock_rules(signals)
    motors = [n for n, s in signals.items() if s.is_motor]
    assert all((m, "case_open_nc", False, None) in rules for m in motors)


@pytest.mark.parametrize("rig", ["sim", "ioboard"])
@pytest.mark.parametrize("table", ["144", "136"])
def test_a_contact_that_disagrees_stops_the_table_and_is_named(rig, table) -> None:
    report, _harness = _run(two_contacts(table), rig, "case_open_nc")
    (fault,) = [f for f in report["faults"] if f["id"] == "case.contacts"]
    assert fault["code"] == "E98"
    assert fault["diagnosis"]["suspects"][0]["part"] == "case_open_nc"
    assert not [f for f in report["faults"] if f["id"] == "case.opened"]
    assert report["motors_safe_after_faults"] and report["referee_violations"] == []
    assert report["cycles_completed"] < 2          # stopped: a technician's job


@pytest.mark.parametrize("rig", ["sim", "ioboard"])
def test_both_contacts_opening_is_the_case_opened(rig) -> None:
    report, harness = _run(two_contacts(), rig, "case_open", "case_open_nc")
    assert "case.opened" in [f["id"] for f in report["faults"]]
    # The first contact's disagreement (the table stopped at once) is withdrawn when
    # the second follows within the switch's travel.
    assert not [f for f in harness.ctl.faults if f.active and f.id == "case.contacts"]
    assert report["motors_safe_after_faults"] and report["referee_violations"] == []


@pytest.mark.parametrize("rig", ["sim", "ioboard"])
def test_the_case_shut_contact_by_contact_is_no_fault_one_left_open_is(rig) -> None:
    # A real switch's two contacts never change in the same instant. Opening, the
    # first raised E98 and the second withdrew it; shutting, the first to close raised
    # E98 and nothing withdrew it: every case shut left "case contacts disagree"
    # latched, the technician sent to a good switch.
    harness = Harness(two_contacts(), Scenario(seed=4, cycles=2, source="contacts",
                                               expect=Expect(allow=tuple(CATALOGUE))),
                      None, rig=rig, rig_options={})
    table, clock = harness.table, harness.clock
    clock.call_at(8.0, lambda: table.stick("case_open", True))
    clock.call_at(8.006, lambda: table.stick("case_open_nc", True))
    clock.call_at(12.0, lambda: table.unstick("case_open_nc"))
    clock.call_at(12.006, lambda: table.unstick("case_open"))
    clock.call_at(14.0, lambda: table.stick("case_open", True))       # opened again ...
    clock.call_at(14.006, lambda: table.stick("case_open_nc", True))
    clock.call_at(16.0, lambda: table.unstick("case_open_nc"))        # ... shut, NO stuck
    # The run would end at E93 (the table held for a technician): keep it going.
    harness._checks += 1
    clock.call_at(17.0, lambda: setattr(harness, "_checks", harness._checks - 1))
    harness.run()
    raised = [(round(f.sim_time_s, 2), f.id) for f in harness.ctl.faults
              if f.id == "case.contacts" and f.active]
    assert raised == [(16.05, "case.contacts")], raised
