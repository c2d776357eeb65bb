"""The referee's own table of what a fault must stop (simulator/harness/stops.py): it
judges physics apart from the firmware's fault kinds, and judges whatever any injected
problem of the scenario format may raise."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.faults.kinds import BUILD, CATALOGUE, ERROR
from simulator.harness.stops import EVERY, MUST_STOP, must_stop
from simulator.scenario import DETECTED_BY, KINDS, FaultSpec
from tests.test_referee import bench, fault, rules

ROOT = Path(__file__).resolve().parent.parent
REFEREE = ("simulator/harness/referee.py", "simulator/harness/stops.py")


def test_the_referee_imports_none_of_the_firmware() -> None:
    for path in REFEREE:
        tree = ast.parse((ROOT / path).read_text())
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                     for a in n.names]
        assert [m for m in imported if m.split(".")[0] == "firmware"] == [], path


def test_nothing_the_referee_loads_brings_the_fault_kinds() -> None:
    # Not even through the table's physics or the HAL's interlocks it imports.
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, simulator.harness.referee; "
         "print(' '.join(m for m in sys.modules if m.startswith('firmware.faults')))"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []


def test_the_scenario_format_accepts_the_injections_judged_here() -> None:
    kind = next(f for f in dataclasses.fields(FaultSpec) if f.name == "kind")
    accepted = kind.metadata["choices"]
    assert set(accepted) == set(KINDS) == set(DETECTED_BY)


@pytest.mark.parametrize("injection", sorted(KINDS))
def test_its_table_names_every_fault_an_injection_may_raise(injection: str) -> None:
    # Named, not judged by the default: the referee has said what each one must stop.
    assert sorted(DETECTED_BY[injection] - set(MUST_STOP)) == []


@pytest.mark.parametrize("fault_id", sorted(CATALOGUE))
def test_the_firmware_stops_at_least_what_the_referee_demands(fault_id: str) -> None:
    # Two statements of one physics: a kind whose safe state stops less than the
    # referee demands would show as breaches in every run that raises it.
    kind = CATALOGUE[fault_id]
    demand = must_stop({"id": kind.id, "code": kind.code})
    if demand is None:
        return
    assert kind.severity == ERROR
    assert demand.motors == BUILD or kind.scope != BUILD


def test_a_stop_fault_it_does_not_name_stops_every_motor() -> None:
    clock, table, referee = bench()
    referee.on_event({**fault("belt.slipping", "side.2.count"), "code": "E77"})
    clock.run_until(1.0)
    table.command("motor.lid", "up")
    assert rules(referee) == ["motor.after_stop"]
    assert must_stop({"id": "belt.slipping", "code": "E77"}).motors == EVERY  # type: ignore[union-attr]


def test_a_warning_it_does_not_name_stops_nothing() -> None:
    clock, table, referee = bench()
    referee.on_event({**fault("belt.slipping", "side.2.count"), "code": "W77"})
    clock.run_until(1.0)
    table.command("motor.lid", "up")
    table.command("motor.ring", True)
    assert referee.violations == [] and referee.stops == []
