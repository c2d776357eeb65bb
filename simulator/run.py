"""Headless runs of the unchanged firmware against the simulated table.

`simulate()` wires clock, physical model, sim HAL, controller and players, runs on the
virtual clock as fast as the CPU allows and returns the report of DESIGN.md
("`mjtable simulate`").
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from firmware.clock import VirtualClock
from firmware.config import Config
from firmware.consumers import attach_consumers
from firmware.controller import Controller
from firmware.faults import CATALOGUE, ERROR
from firmware.handoff import Consumer
from hal.backends.sim import SimHal
from simulator.players import SimPlayers
from simulator.table import HEAD_TAKE_AT, SLOT_REFILL_S, SimTable

# Generous: a cycle is a hand of play plus the lid, raise and dice around it.
CYCLE_ALLOWANCE_S = 600.0


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
             consumers: Sequence[Consumer] = ()) -> dict[str, Any]:
    """Run `cycles` hands; stop early on an error fault that halts the table.

    `consumers` get every handoff record too (after the config's own).
    """
    bench = assemble(config, seed)
    bench.controller.handoff.consumers.extend(consumers)
    clock, table, ctl = bench.clock, bench.table, bench.controller
    faults: list[dict[str, Any]] = []
    handoffs: list[dict[str, Any]] = []
    build_times: list[float] = []
    bounds: list[float] = []
    motors_safe = True
    halted = False
    started_at = 0.0

    def on_event(event: dict[str, Any]) -> None:
        nonlocal motors_safe, halted, started_at
        kind = event["kind"]
        if kind == "build.started":
            started_at = ctl.build.started_at
            for side in table.sides:
                side.loaded_at = []
        elif kind == "build.staged":
            build_times.append(event["build_s"])
            bounds.append(round(build_bound(table, started_at, config.tiles_per_side), 3))
        elif kind == "fault":
            fault = {k: event[k] for k in ("id", "code", "where", "cycle", "sim_time_s",
                                           "evidence", "diagnosis")}
            faults.append(fault)
            if CATALOGUE[event["id"]].severity == ERROR:
                motors_safe = motors_safe and table.motors_off()
                halted = True
        elif kind == "handoff":
            handoffs.append({"cycle": event["cycle"], "set": event["set"],
                             "commitment": event["commitment"]})
            if progress is not None:
                progress(len(handoffs), cycles)
        bench.events.append(event)

    ctl.subscribers.append(on_event)

    def finished() -> bool:
        # Done once the last hand is dealt and the next set has been built behind it.
        return halted or (len(handoffs) >= cycles and ctl.build.state == "staged")

    wall_start = time.perf_counter()
    ctl.start()
    bench.players.start()
    clock.run_until((cycles + 1) * (config.simulator.play_time_s + CYCLE_ALLOWANCE_S),
                    until=finished)
    wall = time.perf_counter() - wall_start
    ctl.stop()

    records = ctl.handoff.records
    return {
        "cycles_requested": cycles,
        "cycles_completed": len(handoffs),
        "seed": table.seed,
        "config": config.source,
        "sim_time_s": round(clock.now(), 3),
        "wall_time_s": round(wall, 3),
        "speed_factor": round(clock.now() / wall, 1) if wall > 0 else None,
        "events_run": clock.events_run,
        "faults": faults,
        "handoffs": [{**h, "tiles": sum(1 for w in r["walls"] for s in w for _ in s)}
                     for h, r in zip(handoffs, records, strict=False)],
        "tiles_accounted": table.tiles_accounted(),
        "build_times_s": build_times,
        "build_bound_s": bounds,
        "motors_safe_after_faults": motors_safe,
        "motors_off_at_end": table.motors_off(),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "completed": len(handoffs) >= cycles and not halted,
    }
