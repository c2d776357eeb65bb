"""A scenario that cannot run on its table is one clear error, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from mjtable.cli import main

FLOWER_ON_136 = """seed = 1
cycles = 1
config = "table-136.toml"
[[fault]]
kind = "weak_magnet_tile"
where = "set.A"
cycle = 1
phase = "build"
tile = "H1"
"""
CLEAN_A_MOTOR = """seed = 1
cycles = 1
[[fault]]
kind = "motor_dead"
where = "motor.side.1.head"
cycle = 1
phase = "build"
[[action]]
after_fault = "head.jam"
do = "clean_sensor"
where = "motor.side.1.head"
"""


FACE_UP_ON_136 = """seed = 1
cycles = 1
config = "table-136.toml"
[[fault]]
kind = "sensor_stuck"
where = "side.0.face_up"
cycle = 1
phase = "build"
value = true
"""


@pytest.mark.parametrize(("text", "said"), [
    # Was three E99 software.error on the simulated table.
    (FACE_UP_ON_136, "[[fault]] #1 where: 'side.0.face_up': this table has no such sensor"),
    (FLOWER_ON_136, "[[fault]] #1 tile: 'H1': not a tile of this 136-tile table"),
    (CLEAN_A_MOTOR, "[[action]] #1 where: 'motor.side.1.head': clean_sensor needs a sensor"),
])
def test_a_scenario_that_does_not_fit_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert main(["simulate", "--scenario", str(path)]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
