"""Sensor edge to output command, on the real clock.

    python -m bench.table.bench_latency [--events 10000] [--in-flight 1] [--speed 100] [--json]

What is measured, exactly: the wall time (`time.perf_counter_ns`) from the moment a
count edge is handed to the firmware, in a thread other than the loop's, exactly as
the rpigpio backend's GPIO callback thread does it (`clock.post(...)`), to the
moment the HAL's `write("motor.side.N.head", True)` that this edge causes is called.
Between the two: the cross-thread wake-up of the asyncio loop, the RealClock's event
heap, `Controller.on_signal`, the side builder's count checks, the build's
supervision and the state machine (`transitions`) up to the write. Not included: the
kernel's GPIO interrupt path before the callback, and the driver's work after `write`.

The table is the reference config (`config/table.toml`, head turn set to its shortest,
0.1 s) behind a scripted HAL: each commanded head leaves home and comes back after
its turn on the firmware's own clock, and the count sensor drops after its dwell, so
the side keeps building. The sides are fed round-robin, one tile at a time per side,
so every counted tile starts a turn. With `in_flight` 1 (the default) an edge is
posted only once the previous edge's head is home and stopped: each edge meets a loop
with nothing else to do, as on a table, where arrivals are tens of milliseconds apart.
With `in_flight` 4 all four heads turn at once and edges queue behind each other's
work: the figure for a loop under load. After each full set (144 edges) the
controller is replaced by a fresh one and the build starts over, until `events`
edges are measured.

The scripted machine runs `speed` times faster than real time so 10,000 head turns
fit in seconds; that only shortens its timers (turns, dwells), not the path measured.
Faults raised during the run are reported: any is a bench problem.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import random
import sys
import threading
import time
from collections.abc import Collection
from functools import partial
from typing import Any

from firmware.controller import compose_table
from firmware.machines.build import BuildState
from firmware.machines.side import SideState
from hal.armed import Capabilities
from hal.interface import Listener, drive_safe
from mjtable_core.clock import RealClock
from mjtable_core.config import Config, load_config
from mjtable_core.geometry import REFERENCE
from mjtable_core.signals import Value
from rules.tiles import set_composition
from simulator.harness.table import Driven

SIDE_COUNT = REFERENCE.side_count   # the scripted machine is the reference table
HEAD_TURN_S = 0.1      # the shortest head turn the config allows: most edges per second
COUNT_DWELL_S = 0.02   # how long the count sensor sees the tile
SPEED = 100.0         # scripted machine time per real second
WAIT_S = 5.0           # a head not home again after this many wall seconds: give up


class TimedHal:
    """A scripted table that stamps every head command caused by an injected edge."""

    capabilities = Capabilities()

    def __init__(self, clock: RealClock, config: Config) -> None:
        self.clock = clock
        self.signals = config.signals()
        self.values: dict[str, Value] = {
            s.name: s.rest_value for s in self.signals.values()}
        # The heads' readers see a whole set, each tile once: a set read as 144 copies of
        # one tile is extra tiles to the count before staging (build.extra_tiles).
        self.faces = [code for code, n in set_composition(config.table.tiles).items()
                      for _ in range(n)]
        self.dealt = 0
        for n in range(SIDE_COUNT):
            self.values[f"side.{n}.head_home"] = True
            self.values[f"side.{n}.plate_home"] = True
        self.values["lid.lower"] = True
        self._heads = {f"motor.side.{n}.head": n for n in range(SIDE_COUNT)}
        self.turning = [False] * SIDE_COUNT
        # Set while a side's head is home and stopped: the feeder may send its next tile.
        self.idle = [threading.Event() for _ in range(SIDE_COUNT)]
        for event in self.idle:
            event.set()
        self.injected: list[int | None] = [None] * SIDE_COUNT   # perf_counter_ns of the edge
        self.latencies_ns: list[int] = []
        self.listener: Listener | None = None
        # Set when the controller raised a fault: the feeder abandons this set.
        self.abandon = threading.Event()

    # -- Hal --------------------------------------------------------------------------

    def write(self, name: str, value: Value) -> None:
        side = self._heads.get(name)
        if side is not None and value is True:
            stamp = time.perf_counter_ns()    # first: nothing below is part of the figure
            injected, self.injected[side] = self.injected[side], None
            if injected is not None:
                self.latencies_ns.append(stamp - injected)
            if not self.turning[side]:
                self._turn(side)
        self.values[name] = value
        if side is not None and value is False and not self.turning[side]:
            self.idle[side].set()

    def read(self, name: str) -> Value:
        return self.values[name]

    def listen(self, listener: Listener) -> None:
        self.listener = listener

    def safe_state(self, outputs: Collection[str] | None = None) -> None:
        drive_safe(self.signals, self.write, outputs)

    def entropy(self) -> tuple[random.Random, str]:
        return random.Random(7), "bench"

    def close(self) -> None:
        self.safe_state()

    # -- the scripted machine -----------------------------------------------------------

    def edge(self, name: str, value: Value) -> None:
        """Deliver an input change (inside the loop)."""
        self.values[name] = value
        if self.listener is not None:
            self.listener(name, value)

    def count(self, side: int) -> None:
        """A tile reaches the head: the count sensor sees it for a moment."""
        if f"side.{side}.tile_id" in self.values:
            self.edge(f"side.{side}.tile_id", self.faces[self.dealt % len(self.faces)])
            self.dealt += 1
        self.edge(f"side.{side}.count", True)
        self.clock.call_later(COUNT_DWELL_S, partial(self.edge, f"side.{side}.count", False))

    def _turn(self, side: int) -> None:
        self.turning[side] = True
        self.clock.call_later(HEAD_TURN_S * 0.1,
                              partial(self.edge, f"side.{side}.head_home", False))
        self.clock.call_later(HEAD_TURN_S, partial(self._home, side))

    def _home(self, side: int) -> None:
        self.turning[side] = False
        self.edge(f"side.{side}.head_home", True)
        if self.values[f"motor.side.{side}.head"] is False:
            self.idle[side].set()


def _feed(hal: TimedHal, clock: RealClock, edges: int, in_flight: int) -> None:
    """The GPIO thread: each edge stamped as it is posted, at most `in_flight` heads busy."""
    for i in range(edges):
        side = i % SIDE_COUNT
        # This side's head must be home (one tile at a time per side), and so must the
        # head the edge `in_flight` before this one started.
        for waited in (side, (i - in_flight) % SIDE_COUNT):
            if not hal.idle[waited].wait(WAIT_S) and not hal.abandon.is_set():
                raise RuntimeError(f"head {waited} did not come home: the bench is broken")
            if hal.abandon.is_set():
                return
        hal.idle[side].clear()
        hal.injected[side] = time.perf_counter_ns()
        clock.post(partial(hal.count, side))
    for side in range(SIDE_COUNT):      # the last turns finish before the set is dropped
        hal.idle[side].wait(WAIT_S)


async def _building(ctl: Driven) -> None:
    for _ in range(int(WAIT_S * 1000)):
        if ctl.build.state == BuildState.BUILDING and all(
                s.state == SideState.FEEDING for s in ctl.sides):
            return
        await asyncio.sleep(0.001)
    raise RuntimeError(f"the build did not start (cycle {ctl.cycle.state}, "
                       f"build {ctl.build.state})")


def _on_fault(hal: TimedHal, faults: list[str], event: dict[str, Any]) -> None:
    if event["kind"] == "fault":
        faults.append(event["id"])
        hal.abandon.set()
        for idle in hal.idle:     # wake the feeder now rather than after WAIT_S
            idle.set()


async def _measure(config: Config, events: int, speed: float,
                   in_flight: int) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    clock = RealClock(loop, speed)
    latencies: list[int] = []
    faults: list[str] = []
    builds = 0
    started = time.perf_counter()
    while len(latencies) < events:
        hal = TimedHal(clock, config)
        ctl = compose_table(config, hal, clock, consumers=False)
        ctl.subscribers.append(partial(_on_fault, hal, faults))
        ctl.start()
        await _building(ctl)
        edges = min(config.table.tiles, events - len(latencies))
        await loop.run_in_executor(None, _feed, hal, clock, edges, in_flight)
        ctl.stop()
        builds += 1
        latencies.extend(hal.latencies_ns)
        # The discarded controller's cycles are the bench's garbage, not the table's:
        # collect them here, between sets, where nothing is being measured.
        gc.collect()
    return _figures(latencies, builds=builds, faults=faults, speed=speed,
                    in_flight=in_flight, wall_s=time.perf_counter() - started)


def _figures(latencies_ns: list[int], **extra: Any) -> dict[str, Any]:
    ordered = sorted(latencies_ns)

    def ms(q: float) -> float:   # nearest rank
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6, 4)

    return {"events": len(ordered), "latency_p50_ms": ms(0.50), "latency_p99_ms": ms(0.99),
            "latency_max_ms": round(ordered[-1] / 1e6, 4),
            "builds": extra["builds"], "faults": extra["faults"], "speed": extra["speed"],
            "in_flight": extra["in_flight"], "wall_s": round(extra["wall_s"], 2)}


def measure(events: int = 10000, speed: float = SPEED, in_flight: int = 1,
            config: Config | None = None) -> dict[str, Any]:
    """Count edge → head command latency over `events` edges (see the module docstring).

    Returns `latency_p50_ms`, `latency_p99_ms`, `latency_max_ms`, the number of
    `events` measured, the `builds` (sets) they took, any `faults` raised (should be
    none), the clock `speed`, the heads `in_flight` and the run's `wall_s`.
    """
    if not 1 <= in_flight <= SIDE_COUNT:
        raise ValueError(f"in_flight must be 1 to {SIDE_COUNT}, got {in_flight}")
    config = config or load_config()
    # At `speed` times real time a 0.1 s hiccup of a shared machine is a 10 s stall
    # of the table: widen the build's watch windows (not on the path measured) so the
    # bench measures latency rather than tripping build.tiles_missing.
    config = dataclasses.replace(config, timing=dataclasses.replace(
        config.timing, head_turn_s=HEAD_TURN_S, stall_s=120.0, blind_s=60.0,
        build_fault_s=600.0))
    return asyncio.run(_measure(config, events, speed, in_flight))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table.bench_latency",
                                     description="Count edge to head command on the real "
                                                 "clock.")
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--speed", type=float, default=SPEED,
                        help=f"clock speed-up of the scripted machine ({SPEED:g})")
    parser.add_argument("--in-flight", type=int, default=1,
                        help="heads turning at once, 1 to 4 (1: each edge meets an idle "
                             "loop, as on a table; 4: every side at once, a loaded loop)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = measure(args.events, args.speed, args.in_flight)
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
