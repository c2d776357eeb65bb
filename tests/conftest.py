"""Shared fixtures: configs, a scripted HAL and a simulated table on the virtual clock."""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import pytest

from firmware.controller import Controller, compose_table
from hal.armed import Capabilities
from hal.interface import Listener, drive_safe
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config, load_config
from mjtable_core.signals import Signal, Value, catalogue, motors_off

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = {"144": ROOT / "config" / "table.toml", "136": ROOT / "config" / "table-136.toml"}


def quick(config: Config, play_time_s: float = 30.0) -> Config:
    """The same table with short hands, so many cycles run quickly."""
    return config.with_play_time(play_time_s)


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests read English unless they ask for another language; a command that sets the
    process's language (from the environment) does not leak into the next test."""
    from firmware import i18n

    monkeypatch.setenv(i18n.ENV, "en")
    i18n.set_language("en")
    yield
    i18n.set_language("en")


@pytest.fixture
def config() -> Config:
    return load_config(CONFIGS["144"])


class ScriptedHal:
    """A HAL whose inputs the test drives by hand; records every output write."""

    # Edges may carry a board's stamp (edge(at=...)); its "link" is what a test says.
    capabilities = Capabilities(board_time=True, link=True)
    link_lost = False
    link_quiet = False          # the board silent: a missed stop proves nothing yet
    on_link_fault: Callable[[str, dict], None] | None = None

    def __init__(self, clock: VirtualClock, tile_reader: bool = True) -> None:
        self.clock = clock
        self.signals: dict[str, Signal] = catalogue(tile_reader, face_up_sensor=True)
        self.values: dict[str, Value] = {
            s.name: s.rest_value for s in self.signals.values()}
        for n in range(4):
            self.values[f"side.{n}.head_home"] = True
            self.values[f"side.{n}.plate_home"] = True
        self.values["lid.lower"] = True
        self.writes: list[tuple[float, str, Value]] = []
        self.listener: Listener | None = None
        self.safe_calls = 0
        self.stamps: dict[str, float | None] = {}

    def write(self, name: str, value: Value) -> None:
        assert self.signals[name].is_output, name
        self.values[name] = value
        self.writes.append((self.clock.now(), name, value))

    def read(self, name: str) -> Value:
        return self.values[name]

    def listen(self, listener: Listener) -> None:
        self.listener = listener

    def safe_state(self, outputs: Collection[str] | None = None) -> None:
        self.safe_calls += outputs is None
        drive_safe(self.signals, self.write, outputs)

    def entropy(self) -> tuple[random.Random, str]:
        return random.Random(7), "simulated"

    def close(self) -> None:
        self.safe_state()

    # -- test helpers ---------------------------------------------------------------

    def changed_at(self, name: str) -> float | None:
        return self.stamps.get(name)

    def link_in_doubt(self) -> bool:
        return self.link_lost or self.link_quiet

    def edge(self, name: str, value: Value, at: float | None = None) -> None:
        """Input `name` changes now; `at`: a board's stamp of when it really did."""
        self.values[name] = value
        self.stamps[name] = at
        assert self.listener is not None
        self.listener(name, value)

    def motors_off(self) -> bool:
        return motors_off(self.signals, self.values)

    def written(self, name: str) -> list[Value]:
        return [v for _, n, v in self.writes if n == name]


@pytest.fixture
def rig(config: Config) -> Iterator[tuple[Controller, ScriptedHal, VirtualClock]]:
    clock = VirtualClock()
    hal = ScriptedHal(clock)
    yield compose_table(config, hal, clock, consumers=False), hal, clock


def events_of(ctl: Controller) -> list[dict]:
    events: list[dict] = []
    ctl.subscribers.append(events.append)
    return events


def run_for(clock: VirtualClock, seconds: float, until: Callable[[], bool] | None = None) -> None:
    clock.run_until(clock.now() + seconds, until=until)


def installed_package(folder: Path, name: str, entry_points: str, modules: dict[str, str],
                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `folder` hold an installed distribution `name` declaring `entry_points`
    (entry_points.txt text) with the module sources `modules`, and put it on the path:
    a third-party package as importlib.metadata finds one."""
    dist = folder / f"{name.replace('-', '_')}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for module, source in modules.items():
        (folder / f"{module}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(folder))


# `make test` runs two pytest workers (pytest-xdist, --dist loadgroup). Tests whose pass
# depends on the host's reaction time (real-time power cuts at speed, the board's link
# and its timeouts, timing windows under floods, the quick bench's figures) share one
# worker, one at a time, so each meets at most one neighbour, as on CI's two cores.
# Other tests on the real clock (daemons, brokers, browsers) wait on what they need with
# limits that hold beside a second `make test`, and spread over both workers with the
# virtual-clock tests: grouped, they were ~480 s on one worker, the suite's whole length.
REAL_TIME = ("tests/hal/", "tests/board/", "tests/test_powercut.py",
             "tests/security/test_floods.py", "tests/security/test_loop.py",
             "tests/test_bench_children.py", "tests/test_bench_quick.py",
             "tests/test_clock.py")
# Files whose fixture is the expensive part (the fuzz batch): one worker each, so the
# fixture is built once, not once per worker.
ONE_WORKER = ("tests/test_fuzz.py", "tests/test_audit_sim.py")


# tryfirst: xdist's own hook reads the groups to name each test's worker; after it, a
# group added here would be ignored (it was: every real-time test ran on either worker).
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(str(config.rootpath))
    for item in items:
        where = Path(str(item.path)).relative_to(root).as_posix()
        if where.startswith(REAL_TIME):
            item.add_marker(pytest.mark.xdist_group("real_time"))
        elif where.startswith(ONE_WORKER):
            item.add_marker(pytest.mark.xdist_group(where))
