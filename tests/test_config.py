"""Config: the reference tables load; every kind of mistake stops start-up clearly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mjtable_core.config import load_config
from mjtable_core.schema import ConfigError
from tests.conftest import CONFIGS, ROOT

GOOD_TABLE = '[table]\ntiles = 144\nstacks_per_wall = 18\n'


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_reference_configs_load(name: str) -> None:
    config = load_config(CONFIGS[name])
    assert config.table.tiles == int(name)
    assert config.tiles_per_side * 4 == config.table.tiles


@pytest.mark.parametrize(("text", "expected"), [
    (GOOD_TABLE + "[tabel]\n", "[tabel]: unknown section (valid sections: table, hal,"),
    (GOOD_TABLE + "tile_readr = true\n", "[table] tile_readr: unknown option (valid"),
    ('[table]\ntiles = "144"\nstacks_per_wall = 18\n',
     "[table] tiles: got '144', expected integer"),
    ('[table]\ntiles = 140\nstacks_per_wall = 18\n',
     "[table] tiles: got 140, allowed: one of 136, 144"),
    (GOOD_TABLE + "[timing]\nlid_travel_s = 0.0\n",
     "[timing] lid_travel_s: got 0.0, allowed: from 0.2 to 10.0"),
    (GOOD_TABLE + "[timing]\ntimeout_factor = true\n",
     "[timing] timeout_factor: got True, expected number"),
    ('[table]\ntiles = 136\nstacks_per_wall = 18\n',
     "[table] stacks_per_wall: 18 stacks per wall do not hold a 136-tile set; use 17"),
    ("[hal]\nbackend = \"sim\"\n", "[table]: missing section"),
    ("[table]\ntiles = 144\n", "[table] stacks_per_wall: missing; expected integer"),
    (GOOD_TABLE + "[timing]\ndice_min_spin_s = 4.0\ndice_max_spin_s = 3.5\n",
     "[timing] dice_max_spin_s: 3.5 is below dice_min_spin_s 4.0"),
    (GOOD_TABLE + "[rules]\nvariant = \"guangdong\"\n",
     "[rules] variant: variant 'guangdong' plays 136 tiles but [table] tiles = 144"),
    (GOOD_TABLE + "[hal\n", "not valid TOML"),
    (GOOD_TABLE + "timing = 3\n", "[table] timing: unknown option"),
    (GOOD_TABLE + "[simulator]\nseed = -1\n", "[simulator] seed: got -1, allowed: at least 0"),
])
def test_bad_config_names_file_section_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value).startswith(f"{path}: ")
    assert expected in str(err.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "none.toml")


@pytest.mark.parametrize("command", ["run", "simulate"])
def test_cli_stops_with_exit_2_before_driving_outputs(tmp_path: Path, command: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(GOOD_TABLE + "[timing]\nhead_turn_s = 9.0\n")
    # If anything reached the HAL the run would print its start line; it must not.
    result = subprocess.run([sys.executable, "-m", "mjtable.cli", command, "--config",
                             str(path), *(["--plain"] if command == "run" else [])],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "[timing] head_turn_s: got 9.0, allowed: from 0.1 to 3.0" in result.stderr
