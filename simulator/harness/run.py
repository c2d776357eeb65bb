"""Headless runs of the unchanged firmware against the simulated table.

`simulate()` runs the harness (simulator/harness/runner.py) on the virtual clock as fast as
the CPU allows and returns the report that `mjtable simulate` prints;
`simulate_ioboard()` runs the same harness through the real serial path
(`mjtable simulate --hal ioboard`). `assemble()` wires a table without running it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from firmware.controller import Controller
from firmware.faults.kinds import CATALOGUE, ERROR
from firmware.hands.consumers import attach_consumers
from firmware.hands.handoff import Consumer
from hal.protocol import VERSION
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config
from simulator.harness.runner import Harness
from simulator.harness.table import Driven
from simulator.physics.players import SimPlayers
from simulator.physics.table import SimTable
from simulator.rigs.backend import SimHal
from simulator.scenario import Expect, Scenario


@dataclass
class WiredTable:
    """One simulated table: everything wired, nothing run yet."""

    config: Config
    clock: VirtualClock
    table: SimTable
    hal: SimHal
    controller: Driven
    players: SimPlayers
    events: list[dict[str, Any]] = field(default_factory=list)


def assemble(config: Config, seed: int | None = None) -> WiredTable:
    clock = VirtualClock()
    table = SimTable(config, clock, seed)
    hal = SimHal(table)
    controller = Controller(config, hal, clock)
    attach_consumers(controller)   # the config's rules engine and handoff file
    players = SimPlayers(table, clock, config)
    return WiredTable(config, clock, table, hal, controller, players)


def simulate(config: Config, cycles: int, seed: int | None = None,
             progress: Callable[[int, int], None] | None = None,
             consumers: Sequence[Consumer] = (),
             scenario: Scenario | None = None) -> dict[str, Any]:
    """Run `cycles` hands (or a scenario's) and return the report.

    Without a scenario nothing is injected: any fault is unexpected, and a run that an
    error fault halts stops early. `consumers` get every handoff record too.
    """
    if scenario is None:
        scenario = Scenario(seed=config.simulator.seed if seed is None else seed,
                            cycles=cycles, source="<none>")
    elif cycles:
        scenario = dataclasses.replace(scenario, cycles=cycles)
    return Harness(config, scenario, seed, consumers).run(progress)


def simulate_ioboard(config: Config, cycles: int, seed: int | None = None,
                     progress: Callable[[int, int], None] | None = None, *,
                     transport: str = "pty", link_noise: float = 0.0,
                     link_drop: tuple[float, float] | None = None,
                     board_version: int = VERSION,
                     heartbeat_limit_s: float = 0.5,
                     scenario: Scenario | None = None) -> dict[str, Any]:
    """Run `cycles` hands (or a scenario's) through the emulated board: the harness's
    report (simulator/harness/runner.py), on the ioboard rig, with the link's figures.

    `link_drop` = (at_s, duration_s) cuts the cable at that time for a while;
    `link_noise` flips each bit with that probability from the start. Warnings are
    allowed (a late edge seen as timing.drift); a run that an error halts stops early.
    """
    scenario = _board_scenario(config, cycles, seed, scenario)
    harness = Harness(config, scenario, seed, rig="ioboard", rig_options={
        "transport": transport, "link_noise": link_noise, "board_version": board_version,
        "heartbeat_limit_s": heartbeat_limit_s})
    if link_drop is not None:
        at_s, duration_s = link_drop
        board = harness.rig.board      # type: ignore[union-attr]
        harness.clock.call_at(at_s, lambda: board.drop_link(duration_s))
    return harness.run(progress)


def simulate_pico(config: Config, cycles: int, seed: int | None = None,
                  progress: Callable[[int, int], None] | None = None, *,
                  scenario: Scenario | None = None) -> dict[str, Any]:
    """Run `cycles` hands (or a scenario's) with the board played by MicroPython on an
    emulated RP2040 (simulator/rigs/pico_run.py): the harness's report with a `board` object."""
    scenario = _board_scenario(config, cycles, seed, scenario)
    return Harness(config, scenario, seed, rig="pico").run(progress)


def _board_scenario(config: Config, cycles: int, seed: int | None,
                    scenario: Scenario | None) -> Scenario:
    """The scenario of a run behind a board: the one given (for `cycles` hands if
    given), else plain hands where warnings are allowed (a late edge seen as
    timing.drift) and an error halts the run early."""
    if scenario is None:
        warnings = tuple(i for i, k in CATALOGUE.items() if k.severity != ERROR)
        return Scenario(seed=config.simulator.seed if seed is None else seed,
                        cycles=cycles, source="<none>", expect=Expect(allow=warnings))
    return dataclasses.replace(scenario, cycles=cycles) if cycles else scenario
