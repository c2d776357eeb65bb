"""Tiles players leave on the table (up to a hand) are named first: a belt or the disc
stopping late in a build looks the same from the counts, and the table costs no trip
to check (a few tiles left had the technician bring a conveyor motor)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import FaultSpec, Scenario

ROOT = Path(__file__).resolve().parent


@pytest.mark.parametrize(("count", "seed"), [(6, 1), (12, 2)])
def test_tiles_left_on_the_table_are_named_first(count: int, seed: int) -> None:
    left = FaultSpec(kind="missing_tiles", where="table", count=count, cycle=2,
                     phase="lid_up")
    scenario = Scenario(seed=seed, cycles=3, faults=(left,), play_time_s=20.0)
    report = Harness(load_config(ROOT.parent / "config" / "table.toml"), scenario).run()
    fault = next(f for f in report["faults"] if f["id"] == "build.tiles_missing")
    assert fault["diagnosis"]["suspects"][0]["part"] == "table"
    assert fault["diagnosis"]["test"].startswith("look for tiles left on the table")
