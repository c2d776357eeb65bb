"""Power cuts: the daemon killed with SIGKILL in every phase, the table living on.

The first test is bench/faults/bench_powercut at CI size: one instant per phase against the
I/O-board emulator process. The others run in process on the scenario harness.
"""

from __future__ import annotations

from pathlib import Path

from bench.faults.bench_powercut import PHASES, PowerCutBench
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import parse_scenario
from tests.conftest import quick

# CI cuts in the three phases with the most to recover (a half-built set, walls half
# risen, a hand half dealt); `python -m bench.faults.bench_powercut` cuts in every phase.
CI_PHASES = ("build", "raise", "dice")
assert set(CI_PHASES) <= set(PHASES)


def test_sigkill_in_the_hardest_phases(tmp_path: Path) -> None:
    bench = PowerCutBench(tmp_path, speed=5.0, seed=4, play_time_s=5.0)
    report = bench.run(len(CI_PHASES), CI_PHASES)
    assert report["failure_list"] == []
    assert all(report["per_phase"][p]["tried"] == 1 for p in CI_PHASES)
    assert report["wrong_handoffs"] == 0
    assert report["handoffs_checked"] >= len(CI_PHASES)


def _cut(phase: str, before: list[dict] | None = None, seed: int = 7) -> tuple[dict, Harness]:
    raw = {"seed": seed, "cycles": 3,
           "fault": [*(before or []), {"kind": "power_cut", "where": "power", "cycle": 2,
                                       "phase": phase, "duration_s": 5.0}],
           "action": [{"after_fault": "power.recovered", "do": "refeed"},
                      {"after_fault": "head.jam", "do": "clear_jam", "where": "side.2.head"}],
           "expect": {"faults": ["power.recovered"], "allow": ["head.jam"],
                      "cycles_completed": 3}}
    harness = Harness(quick(load_config(None), 60.0), parse_scenario(raw, "<test>"))
    return harness.run(), harness


def test_fault_history_survives_a_power_cut() -> None:
    jam = {"kind": "tile_jam", "where": "side.2.head", "cycle": 1, "phase": "build"}
    report, harness = _cut("play", [jam])
    assert report["problems"] == []
    history = [(f.id, f.active) for f in harness.ctl.faults]   # the controller booted last
    assert ("head.jam", False) in history
    assert history.index(("head.jam", False)) < [i for i, _ in history].index(
        "power.recovered")


def test_power_cut_while_the_walls_rise() -> None:
    report, _ = _cut("raise")
    assert report["problems"] == []
