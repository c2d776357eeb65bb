"""The layers hold by plug-ins, not imports: HAL backends and config checks are entry
points a higher layer (or another package) declares; the one schema mechanism reads
scenario files and variant overrides as it reads the config."""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from hal.backends import open_hal
from mjtable_core import plugins
from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config, parse_config, reference_config
from mjtable_core.schema import ConfigError, Invalid, checked, load_section, option, read_toml
from simulator.rigs.backend import SimHal
from tests.conftest import ROOT, installed_package


def declared(group: str) -> dict[str, str]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["project"]["entry-points"][group]


def test_every_backend_is_an_entry_point_and_the_simulator_declares_its_own() -> None:
    backends = declared(plugins.HAL_BACKENDS)
    assert backends == {"rpigpio": "hal.backends.rpigpio:open_backend",
                        "ioboard": "hal.backends.ioboard:open_backend",
                        "sim": "simulator.rigs.backend:open_backend"}
    found = plugins.installed(plugins.HAL_BACKENDS)
    assert {name: ep.value for name, ep in found.items() if name in backends} == backends


def test_the_hal_opens_the_simulator_through_its_entry_point() -> None:
    config = load_config()
    opened = open_hal(config, VirtualClock(), seed=3)
    assert isinstance(opened.hal, SimHal) and opened.backend == "sim"
    assert not opened.persistent
    opened.hal.close()


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed package that adds a HAL backend and a config check."""
    installed_package(tmp_path, "mj-extra", """\
        [mjtable.hal_backends]
        bench_rig = mj_extra:open_backend

        [mjtable.config_checks]
        venue = mj_extra:check
        """, {"mj_extra": """\
        from mjtable_core.schema import ConfigError
        from hal.interface import OpenedHal
        from simulator.rigs.backend import SimHal
        from simulator.physics.table import SimTable

        def open_backend(config, clock, seed):
            return OpenedHal(SimHal(SimTable(config, clock, seed)), "bench_rig", "a rig")

        def check(config):
            if config.table.id == "forbidden":
                raise ConfigError(config.source, "table", "id", "not at this venue")
        """}, monkeypatch)
    yield tmp_path
    sys.modules.pop("mj_extra", None)


def test_another_package_adds_a_backend_and_a_config_check(third_party: Path) -> None:
    raw = read_toml(reference_config())
    raw["hal"] = {"backend": "bench_rig"}
    config = parse_config(raw, "venue.toml")
    opened = open_hal(config, VirtualClock(), seed=1)
    assert opened.backend == "bench_rig" and opened.description == "a rig"
    raw["table"]["id"] = "forbidden"
    with pytest.raises(ConfigError, match=r"venue\.toml: \[table\] id: not at this venue"):
        parse_config(raw, "venue.toml")


def test_without_the_plug_in_the_backend_is_refused_with_what_is_installed() -> None:
    raw = read_toml(reference_config())
    raw["hal"] = {"backend": "bench_rig"}
    with pytest.raises(ConfigError) as err:
        parse_config(raw, "venue.toml")
    assert str(err.value) == ("venue.toml: [hal] backend: got 'bench_rig', allowed: one of "
                              "'auto', 'ioboard', 'rpigpio', 'sim'")


def test_rules_checks_the_rules_section_with_the_schemas_words() -> None:
    raw = read_toml(reference_config())
    raw["rules"] = {"variant": "mcr", "overrides": {"dice": 9}}
    with pytest.raises(ConfigError) as err:
        parse_config(raw, "t.toml")
    assert str(err.value) == "t.toml: [rules.overrides] dice: got 9, allowed: from 1 to 3"
    raw["rules"] = {"variant": "riichi"}
    with pytest.raises(ConfigError, match=r"\[rules\] variant: got 'riichi', allowed: one of "
                                          r"'mcr', 'jingji', 'guangdong', 'tianjin', 'fuzhou'"):
        parse_config(raw, "t.toml")


# -- the schema mechanism itself ------------------------------------------------------------

@dataclass(frozen=True)
class Hinge:
    turns: int = option(minval=1, maxval=3)


@dataclass(frozen=True)
class Door:
    """A made-up section: an array of tables, a renamed key, and a rule across keys."""

    opens_s: float = option(1.0, minval=0.1)
    closes_s: float = option(1.0, minval=0.1)
    hinges: tuple[Hinge, ...] = option((), key="hinge")
    source: str = "<none>"

    def check(self) -> None:
        if self.closes_s < self.opens_s:
            raise Invalid("closes_s", "closes faster than it opens")


@pytest.mark.parametrize(("raw", "message"), [
    ({"opens": 1.0}, "d.toml: [door] opens: unknown option (valid options here: closes_s, "
                     "hinge, opens_s)"),
    ({"opens_s": "1"}, "d.toml: [door] opens_s: got '1', expected number"),
    ({"opens_s": float("nan")}, "d.toml: [door] opens_s: got nan, allowed: at least 0.1"),
    ({"opens_s": 2.0}, "d.toml: [door] closes_s: closes faster than it opens"),
    ({"hinge": [{"turns": 1}, {"turns": 4}]},
     "d.toml: [[door.hinge]] #2 turns: got 4, allowed: from 1 to 3"),
    ({"hinge": {"turns": 1}}, "d.toml: [door] hinge: must be an array of tables ([[hinge]])"),
])
def test_one_mechanism_names_file_section_key_and_what_is_allowed(raw: dict,
                                                                  message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_section(Door, raw, "d.toml", "door")
    assert str(err.value) == message


def test_defaults_fill_in_and_a_base_supplies_what_an_override_leaves_out() -> None:
    door = load_section(Door, {"hinge": [{"turns": 2}]}, "d.toml", "door",
                        source="d.toml")
    assert door.hinges == (Hinge(2),) and door.source == "d.toml"
    slower = load_section(Door, {"closes_s": 5.0}, "o", "door", base=door)
    assert (slower.opens_s, slower.closes_s, slower.hinges) == (1.0, 5.0, door.hinges)
    with pytest.raises(ConfigError, match="closes faster"):
        checked(Door(opens_s=3.0), "d.toml", "door")


def test_each_hardware_backend_takes_only_its_own_section() -> None:
    import inspect

    from hal.backends.ioboard import IoBoardHal
    from hal.backends.rpigpio import RpiGpioHal

    # The whole Config reaches only the from_config adapters, never the backends.
    for backend, section in ((RpiGpioHal, "PinMap"), (IoBoardHal, "IoboardSection")):
        annotations = [p.annotation for p in inspect.signature(backend).parameters.values()]
        assert annotations[0] == section and "Config" not in annotations
