"""Headless runs of the unchanged firmware against the simulated table.

`simulate()` wires clock, physical model, sim HAL, controller and players, runs on the
virtual clock as fast as the CPU allows and returns the report that `mjtable simulate`
prints.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from firmware.clock import VirtualClock
from firmware.config import Config
from firmware.consumers import attach_consumers
from firmware.controller import Controller
from firmware.handoff import Consumer
from hal.backends.sim import SimHal
from simulator.players import SimPlayers
from simulator.scenario import Scenario
from simulator.table import HEAD_TAKE_AT, SLOT_REFILL_S, SimTable

# Generous: a cycle is a hand of play plus the lid, raise and dice around it, and
# time for a technician to fix what a scenario breaks.
CYCLE_ALLOWANCE_S = 900.0


@dataclass
class Bench:
    """One simulated table: everything wired, nothing run yet."""

    config: Config
    clock: VirtualClock
    table: SimTable
    hal: SimHal
    controller: Controller
    players: SimPlayers
    events: list[dict[str, Any]] = field(default_factory=list)


def assemble(config: Config, seed: int | None = None) -> Bench:
    clock = VirtualClock()
    table = SimTable(config, clock, seed)
    hal = SimHal(table)
    controller = Controller(config, hal, clock)
    attach_consumers(controller)   # the config's rules engine and handoff file
    players = SimPlayers(table, clock, config)
    return Bench(config, clock, table, hal, controller, players)


def build_bound(table: SimTable, started_at: float, target: int) -> float:
    """The shortest build the mechanics allow for the arrivals that happened.

    For each side, replay its tiles' loading times through an ideal head that reacts
    instantly: a tile reaches the head `belt_transit_s` after loading, enters the slot
    no sooner than `SLOT_REFILL_S` after the previous tile was taken, and each cam turn
    starts no sooner than the previous one ends and takes the shortest time the
    simulated motor's noise allows. The set is built when the slowest
    side's last turn ends.
    """
    sim = table.sim
    turn = sim.head_turn_s * (1 - sim.timing_jitter)   # the fastest turn the noise allows
    finish = started_at
    for side in table.sides:
        taken = turn_start = float("-inf")
        for loaded in side.loaded_at[:target]:
            enters = max(loaded + sim.belt_transit_s, taken + SLOT_REFILL_S)
            turn_start = max(enters, turn_start + turn)
            taken = turn_start + HEAD_TAKE_AT * turn
        finish = max(finish, turn_start + turn)
    return finish - started_at


def simulate(config: Config, cycles: int, seed: int | None = None,
             progress: Callable[[int, int], None] | None = None,
             consumers: Sequence[Consumer] = (),
             scenario: Scenario | None = None) -> dict[str, Any]:
    """Run `cycles` hands (or a scenario's) and return the report.

    Without a scenario nothing is injected: any fault is unexpected, and a run that an
    error fault halts stops early. `consumers` get every handoff record too.
    """
    from simulator.harness import Harness

    if scenario is None:
        scenario = Scenario(seed=config.simulator.seed if seed is None else seed,
                            cycles=cycles, source="<none>")
    elif cycles:
        scenario = dataclasses.replace(scenario, cycles=cycles)
    return Harness(config, scenario, seed, consumers).run(progress)
