"""A technician action answers the fault occurrence it was planned for.

Matched by fault id alone, an action planned for one injection was taken by the first
fault of that id — raised by another injection — and the run was judged against the
wrong repair (the side-2 technician clearing side 0's jam, which nobody mended).
"""

from __future__ import annotations

import random
import tomllib
from typing import Any

import pytest

from mjtable_core.config import load_config
from simulator.fuzz.batch import _smaller, classify, generate, right_actions, to_toml, wrong_action
from simulator.harness.runner import Harness
from simulator.scenario import FaultSpec, Scenario, ScenarioError, parse_scenario

# Side 0's head jams in the first build, and nobody comes for it; side 2's head jams
# in the second build, and a technician clears it.
TWO_JAMS = """
seed = 3
cycles = 2
play_time_s = 20.0
[[fault]]
kind = "tile_jam"
where = "side.0.head"
cycle = 1
phase = "build"
[[fault]]
kind = "tile_jam"
where = "side.2.head"
cycle = 2
phase = "build"
[[action]]
after_fault = "head.jam"
do = "clear_jam"
where = "side.2.head"
delay_s = 5.0
{planned}
[expect]
faults = ["head.jam"]
cycles_completed = 0
"""


def _run(planned: str) -> tuple[Scenario, dict[str, Any], list[dict[str, Any]]]:
    scenario = parse_scenario(tomllib.loads(TWO_JAMS.format(planned=planned)), "two.toml")
    harness = Harness(load_config(), scenario)
    cleared: list[dict[str, Any]] = []
    harness.boot_hooks.append(lambda ctl: ctl.subscribers.append(
        lambda e: cleared.append(e) if e["kind"] == "fault.cleared" else None))
    return scenario, harness.run(), cleared


def test_an_action_planned_for_one_injection_never_answers_another() -> None:
    scenario, report, cleared = _run("for_fault = 2")
    # Side 0's jam is nobody's job: the table holds, safe, with it active.
    assert [(f["id"], f["where"]) for f in report["faults"]] == [("head.jam", "side.0.head")]
    assert cleared == []
    assert report["cycles_completed"] == 0 and report["motors_off_at_end"]
    assert classify(scenario, report) == []


def test_by_fault_id_alone_the_other_sides_technician_cleared_side_0() -> None:
    # The old matching, still what an action without `for_fault` gets: the side-2
    # technician "clears" the jam on side 0 that was never mended, and the table jams
    # again there. The run was judged against a repair nobody made.
    _scenario, report, cleared = _run("")
    assert [(e["id"], e["where"]) for e in cleared] == [("head.jam", "side.0.head")]
    assert [f["where"] for f in report["faults"]] == ["side.0.head", "side.0.head"]


def test_the_fuzzer_plans_each_action_for_its_own_injection() -> None:
    for index in range(40):
        scenario = generate(1, index)
        for action in scenario.actions:
            assert action.for_fault is not None
            spec = scenario.faults[action.for_fault - 1]
            assert action.after_fault in _fault_ids_of(spec), (index, action, spec)
        again = parse_scenario(tomllib.loads(to_toml(scenario, ["x"])), "again.toml")
        assert again.actions == scenario.actions


def test_shrinking_drops_a_fault_with_its_own_actions() -> None:
    scenario = parse_scenario(tomllib.loads(TWO_JAMS.format(planned="for_fault = 2")),
                              "two.toml")
    first_dropped, second_dropped = list(_smaller(scenario))[:2]
    assert first_dropped.faults == scenario.faults[1:]
    assert [a.for_fault for a in first_dropped.actions] == [1]      # renumbered
    assert second_dropped.faults == scenario.faults[:1]
    assert second_dropped.actions == ()


def _fault_ids_of(spec: FaultSpec) -> set[str]:
    """The faults an action planned for `spec` may wait for (right or wrong)."""
    return {*(a.after_fault for a in right_actions(spec)),
            wrong_action(random.Random(0), spec).after_fault}


def test_for_fault_must_name_a_fault() -> None:
    with pytest.raises(ScenarioError, match="for_fault"):
        parse_scenario(tomllib.loads(TWO_JAMS.format(planned="for_fault = 3")), "bad.toml")
