"""The firmware's own CPU per hand, and what the simulator costs around it.

    python -m bench.table.bench_firmware [--hands 12] [--fuzz 6]

- `firmware_cpu_ms_per_hand`: the CPU the controller and the HAL spend on one hand
  (a 300 s hand of the reference table, dealt by the simulated players), without the
  simulator's physics, players and referee. Measured by attribution: one simulate
  run of `--hands` hands under cProfile; every function's own time (tottime) goes to
  the part of the code it belongs to — `firmware` (firmware/, hal/, board/, rules/,
  mjtable_core/ but its clock, the `transitions` state machines), `loop` (the virtual
  clock, the host's view of it, the harness's scoped clock: what asyncio and
  RealClock do on a table) or `simulator` (the rest of simulator/); a built-in or
  standard-library function's time goes to its callers' parts, in the shares cProfile
  saw each caller spend in it. The profile is read at each handoff, so each hand gets
  its own figure; the median hand is the figure. Profiled times are inflated (cProfile
  adds a cost to every call), so each part's share of the profiled hand is applied
  to the same hand's CPU in an unprofiled run of the same seed, hand by hand.
  `firmware_loop_cpu_ms_per_hand` adds the loop's share: a table pays for its timers
  too, through asyncio.
- `pi_zero2_ms_per_hand`: that CPU times PI_ZERO2_FACTOR (below, and its source).
- `hands_per_cpu_s`: 300 s hands of `simulate` per CPU second of this process.
- `fuzz_per_cpu_min`: `mjtable fuzz` scenarios (sim rig, a fixed seed) per CPU minute.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from mjtable_core.config import load_config
from simulator.fuzz.batch import fuzz, sim_runner
from simulator.harness import runner as harness_module
from simulator.harness.run import simulate

# How many times longer a Raspberry Pi Zero 2 W takes for the same single-threaded
# work than the machine the benches were calibrated on (the project's 2-core AMD EPYC
# build host). Source: sysbench 1.0.20 `cpu --threads=1` (primes to 10,000). The
# Pi 3B+ runs it at 687 events/s (leoncode.co.uk/articles/raspberry-pi-benchmarks);
# the Zero 2 W has the same Cortex-A53 cores at 1.0 GHz instead of 1.4 GHz: 491
# events/s. The build host ran it at 3,597 events/s (best of three on a shared host):
# 3,597 / 491 = 7.3. Integer C code: an interpreter, bound by memory and caches,
# may lose more on the A53, so take the figure as a lower bound.
PI_ZERO2_FACTOR = 7.3

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
FIRMWARE_DIRS = ("firmware", "hal", "board", "rules", "mjtable_core")
LOOP_FILES = ("mjtable_core/clock.py", "simulator/rigs/host_clock.py")
LOOP_FUNCTIONS = ("ScopedClock",)   # harness/runner.py: the controller's timers, tracked for a kill


def part(filename: str, function: str, first_line: int, scoped: set[int]) -> str | None:
    """The part of the code a profiled function belongs to (None: a built-in or the
    standard library, charged to its callers)."""
    if filename.startswith(ROOT):
        relative = filename[len(ROOT):]
        if relative in LOOP_FILES or (relative == "simulator/harness/runner.py"
                                      and first_line in scoped):
            return "loop"
        if relative.split("/")[0] in FIRMWARE_DIRS:
            return "firmware"
        return "simulator"
    if "site-packages/transitions/" in filename:
        return "firmware"
    return None


def _scoped_lines() -> set[int]:
    """The first lines of ScopedClock's methods (they live in harness/runner.py)."""
    lines: set[int] = set()
    for name in LOOP_FUNCTIONS:
        cls = getattr(harness_module, name)
        for value in vars(cls).values():
            code = getattr(value, "__code__", None)
            if code is not None:
                lines.add(code.co_firstlineno)
    return lines


def attribute(stats: dict[Any, Any]) -> dict[str, float]:
    """Seconds of profiled own time per part, built-ins charged to their callers."""
    scoped = _scoped_lines()
    parts_of: dict[Any, str | None] = {key: part(key[0], key[2], key[1], scoped)
                                       for key in stats}
    totals: dict[str, float] = defaultdict(float)
    # A built-in's time to its callers, repeatedly (a stdlib function called by a
    # stdlib function): at most a few levels deep in practice.
    pending: dict[Any, float] = {}
    for key, (_cc, _nc, tottime, _ct, _callers) in stats.items():
        owner = parts_of[key]
        if owner is not None:
            totals[owner] += tottime
        else:
            pending[key] = tottime
    for _ in range(6):
        if not pending:
            break
        passed: dict[Any, float] = defaultdict(float)
        for key, seconds in pending.items():
            callers = stats[key][4]
            weights = {c: v[2] for c, v in callers.items()}
            whole = sum(weights.values())
            if not callers or whole <= 0:
                totals["simulator"] += seconds      # startup, or no caller seen
                continue
            for caller, weight in weights.items():
                share = seconds * weight / whole
                owner = parts_of.get(caller)
                if owner is not None:
                    totals[owner] += share
                else:
                    passed[caller] += share
        pending = passed
    for seconds in pending.values():
        totals["simulator"] += seconds
    return dict(totals)


class _PerHand:
    """Reads a running measure at each handoff: the hand's own share of it."""

    def __init__(self, read: Callable[[], Any]) -> None:
        self.read = read
        self.marks: list[Any] = []

    def consumer(self, _record: dict[str, Any]) -> None:
        self.marks.append(self.read())


def _profiled_hands(hands: int, seed: int) -> list[dict[str, float]]:
    profile = cProfile.Profile()

    def read() -> dict[str, float]:
        profile.disable()
        try:
            profile.create_stats()
            return attribute(pstats.Stats(profile).stats)  # type: ignore[attr-defined]
        finally:
            profile.enable()

    per = _PerHand(read)
    profile.enable()
    try:
        simulate(load_config(), hands, seed=seed, consumers=[per.consumer])
    finally:
        profile.disable()
    deltas = []
    for before, after in zip(per.marks, per.marks[1:], strict=False):
        deltas.append({k: after.get(k, 0.0) - before.get(k, 0.0) for k in after})
    return deltas


def _cpu_hands(hands: int, seed: int) -> list[float]:
    per = _PerHand(time.process_time)
    simulate(load_config(), hands, seed=seed, consumers=[per.consumer])
    return [b - a for a, b in zip(per.marks, per.marks[1:], strict=False)]


def firmware_per_hand(hands: int = 12, seed: int = 7) -> dict[str, Any]:
    """The firmware's CPU per hand (ms), hand by hand; the first hand (boot, homing)
    is not counted: each figure runs from one handoff to the next."""
    hands = max(hands, 2)       # a figure runs from one handoff to the next
    profiled = _profiled_hands(hands, seed)
    cpu = _cpu_hands(hands, seed)
    firmware, with_loop, shares = [], [], []
    for parts, seconds in zip(profiled, cpu, strict=False):
        whole = sum(parts.values())
        if whole <= 0:
            continue
        share = parts.get("firmware", 0.0) / whole
        loop = parts.get("loop", 0.0) / whole
        shares.append(share)
        firmware.append(1000 * seconds * share)
        with_loop.append(1000 * seconds * (share + loop))
    median = statistics.median(firmware)
    return {
        "firmware_cpu_ms_per_hand": round(median, 2),
        "firmware_loop_cpu_ms_per_hand": round(statistics.median(with_loop), 2),
        "firmware_share": round(statistics.median(shares), 3),
        "firmware_cpu_ms_hands": [round(f, 2) for f in firmware],
        "pi_zero2_factor": PI_ZERO2_FACTOR,
        "pi_zero2_ms_per_hand": round(median * PI_ZERO2_FACTOR, 1),
        # Of a 300 s hand of play and its build: the part of one core the firmware takes.
        "pi_zero2_core_share": round(median * PI_ZERO2_FACTOR / 1000
                                     / _hand_seconds(), 5),
    }


def _hand_seconds() -> float:
    """Table seconds from one handoff to the next for the reference config (a build
    overlaps the hand of play: the play time and the lid and dice around it)."""
    report = simulate(load_config(), 3, seed=7)
    return report["sim_time_s"] / report["cycles_completed"]


def hands_per_cpu_s(hands: int = 100, seed: int = 3) -> float:
    start = time.process_time()
    report = simulate(load_config(), hands, seed=seed)
    return round(report["cycles_completed"] / (time.process_time() - start), 1)


def fuzz_per_cpu_min(count: int = 6, seed: int = 1) -> float:
    start = time.process_time()
    result = fuzz(sim_runner(load_config()), count, seed, shrink=False)
    return round(60 * result["runs"] / (time.process_time() - start), 1)


def measure(hands: int = 12, fuzz_count: int = 6, speed_hands: int = 100) -> dict[str, Any]:
    return {**firmware_per_hand(hands),
            "hands_per_cpu_s": hands_per_cpu_s(speed_hands),
            "fuzz_per_cpu_min": fuzz_per_cpu_min(fuzz_count)}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.table.bench_firmware")
    parser.add_argument("--hands", type=int, default=12)
    parser.add_argument("--fuzz", type=int, default=6)
    parser.add_argument("--speed-hands", type=int, default=100)
    args = parser.parse_args()
    print(json.dumps(measure(args.hands, args.fuzz, args.speed_hands), indent=1))


if __name__ == "__main__":
    main()
