"""Soak: many simulated cycles with random faults and the technician fixing them.

One controller lives through the whole run (simulator.harness.runner.Harness on the virtual
clock); a random fault of simulator/scenario.py KINDS (not link_*) is injected every
~N cycles at a valid place and phase, with the technician action of the
tests/scenarios examples (simulator/fuzz/soak.py). Reported: faults raised and diagnosed,
wrong handoffs (must be 0), tiles accounted, cycles completed, wall time, and memory:

- `firmware_kb`: memory the firmware holds: every object reachable from the
  controller (machines, supervisor, learned timings, fault history, recurrence,
  journal state), summed with `sys.getsizeof`, once the controller is up (hand 0),
  half-way and at the end. The walk stops at the HAL and the clock (the simulated
  machine's side) and at functions and modules; what the harness keeps (its reports,
  its lists of faults and handoffs) is not reachable from the controller and is not
  counted. Flat means the firmware keeps nothing per hand.
- `rss_mb_start` (the harness built), `rss_mb_end`: the whole process, for scale.

    python -m bench.faults.bench_soak --cycles 10000 [--every 15] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import types
from collections import Counter
from typing import Any

from bench.helpers.report import print_report
from mjtable_core.config import Config, load_config
from simulator.fuzz.soak import random_scenario
from simulator.harness.runner import Harness

PLAY_TIME_S = 60.0     # short hands: the faults, not the players' hands, are the point


RAISED_KEPT = 50          # faults reported with their evidence, the latest ones


def rss_mb() -> float:
    """Current resident set size (Linux /proc), else the peak."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        import os

        return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError):
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


# Not walked into: code and namespaces are not state, and callbacks lead out of the
# firmware (to the harness that subscribed them).
_NOT_STATE = (types.ModuleType, type, types.FunctionType, types.MethodType,
              types.BuiltinFunctionType, types.CodeType, types.FrameType)


def held_kb(root: Any, boundaries: tuple[Any, ...] = ()) -> float:
    """KiB of every object reachable from `root`, not walking past `boundaries`."""
    stop = {id(b) for b in boundaries}
    seen: set[int] = set()
    todo, total = [root], 0
    while todo:
        obj = todo.pop()
        if id(obj) in seen or id(obj) in stop or isinstance(obj, _NOT_STATE):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        todo.extend(gc.get_referents(obj))
    return round(total / 1024, 1)


def firmware_kb(harness: Harness) -> float:
    """What the harness's controller holds, the simulated machine's side excluded."""
    ctl = harness.ctl
    return held_kb(ctl, (ctl.hal, ctl.clock))


def soak(cycles: int, every: int = 15, seed: int = 1, config: Config | None = None,
         progress: Any = None) -> dict[str, Any]:
    """Run the soak; the report's `ok` is True when every check holds."""
    config = config or load_config(None)
    config = config.with_play_time(PLAY_TIME_S)
    scenario = random_scenario(cycles, every, seed)
    harness = Harness(config, scenario, seed)
    rss_start = rss_mb()
    held: dict[int, float] = {}

    def step(done: int, total: int) -> None:
        # Hand 0: the controller is up (the harness boots it in run), nothing dealt yet.
        if done in (0, max(1, total // 2)) and done not in held:
            held[done] = firmware_kb(harness)
        if progress is not None:
            progress(done, total)

    started = time.perf_counter()
    report = harness.run(step)
    wall = time.perf_counter() - started
    held[report["cycles_completed"]] = firmware_kb(harness)
    faults = report["faults"]
    undiagnosed = [f["id"] for f in faults
                   if not (f.get("diagnosis") or {}).get("remedy")
                   or not f["diagnosis"].get("summary")]
    detected = Counter(d["kind"] for d in harness.detections)
    injected = Counter(spec.kind for spec in scenario.faults)
    return {
        "cycles_requested": cycles,
        "cycles_completed": report["cycles_completed"],
        "faults_injected": len(scenario.faults),
        "injected_by_kind": dict(sorted(injected.items())),
        "detected_by_kind": dict(sorted(detected.items())),
        "faults_raised": len(faults),
        "raised_by_id": dict(sorted(Counter(f["id"] for f in faults).items())),
        # Each fault's place and evidence: a rare one found after hours needs no re-run.
        "raised": [{k: f.get(k) for k in ("id", "where", "cycle", "sim_time_s", "evidence")}
                   for f in faults[-RAISED_KEPT:]],
        "faults_diagnosed": len(faults) - len(undiagnosed),
        "undiagnosed": undiagnosed,
        "wrong_handoffs": report["wrong_handoffs"],
        "tiles_accounted": report["tiles_accounted"],
        "motors_safe_after_faults": report["motors_safe_after_faults"],
        "firmware_kb": {str(hand): kb for hand, kb in sorted(held.items())},
        "rss_mb_start": rss_start,
        "rss_mb_end": rss_mb(),
        "peak_rss_mb": report["peak_rss_mb"],
        "sim_time_s": report["sim_time_s"],
        "wall_time_s": round(wall, 1),
        "seed": seed,
        "problems": report["problems"],
        "ok": not report["problems"] and not undiagnosed
              and report["wrong_handoffs"] == 0 and report["tiles_accounted"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.faults.bench_soak",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=15, help="a fault every ~N cycles")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    def progress(done: int, total: int) -> None:
        if done % 500 == 0 and done:
            print(f"  {done}/{total} cycles, RSS {rss_mb()} MB", file=sys.stderr, flush=True)

    return print_report(soak(args.cycles, args.every, args.seed, progress=progress), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
