"""Host stalls at the worst instants, on the ioboard rig: the board owns the stops.

    python -m bench.faults.bench_stalls [--runs 200] [--stalls 0.05,0.2,1.0]
                                 [--where head,plate,lid] [--rig ioboard]

Each run is one hand on the 144-tile reference table with one `host_stall` 2 ms before
a stop: a head's home (in the build), a plate's home (in the raise), the lid's upper
or lower stop (opening, closing; runs alternate). Sides go round the runs. Per
mechanism and stall it prints:

- `off_home`: stalls after which the cam (or the lid) was not at its stop when the
  host woke — a motor the loop would have had to stop, run past it;
- `violations`: runs in which the referee saw any rule broken;
- `failsafe`: of the stalls longer than the board's link limit, those that ended in the
  board's failsafe (it tripped during the stall, every motor off when the host woke),
  and `motion` those that did not;
- `missed`: stalls whose stop never came (the run ended first).

It also prints the board's armed-stop latency: edge to motor-off in board time, over
every head stop of one clean hand. Figures only; nothing is asserted.

    python -m bench.faults.bench_stalls --sweep [--stalls 0.6,1,2,3.5,5] [--cycles 3]
                                 [--table table-136.toml]

sweeps whole-host stalls (duration x phase x rig: every phase of a cycle, the sim and
ioboard rigs), each run `--cycles` hands with the stall in the second cycle, and prints
per rig and phase: hands dealt of those requested, errors raised (a technician's
business), refeeds asked for, the referee's violations, and the silences the host
carried on from the board's record (protocol 5).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from firmware.faults.kinds import CATALOGUE, ERROR
from mjtable_core.config import Config, load_config, reference_config
from mjtable_core.geometry import REFERENCE
from simulator.harness.runner import Harness
from simulator.scenario import Expect, FaultSpec, Scenario

# Only a hang is cut short: a run is on the lockstep clock, and on a machine busy with
# other work one hand can take minutes of wall time without being wrong.
WALL_LIMIT_S = 900.0
PHASE = {"head": "build", "plate": "raise"}


def _config(name: str = "table.toml") -> Config:
    config = load_config(reference_config(name))
    return config.with_play_time(2.0)


def one(config: Config, rig: str, where: str, duration_s: float, run: int) -> dict[str, Any]:
    sides = list(REFERENCE.sides)
    if where == "lid":
        place, phase = "lid", ("lid_up", "lid_down")[run % 2]
    else:
        place, phase = f"side.{sides[run % len(sides)]}.{where}", PHASE[where]
    scenario = Scenario(seed=1000 + run, cycles=1, source=f"stall-{where}-{run}",
                        faults=(FaultSpec("host_stall", place, 1, phase=phase,
                                          duration_s=duration_s),),
                        expect=Expect(allow=tuple(CATALOGUE)))
    harness = Harness(config, scenario, None, rig=rig, rig_options={})
    report = harness.run(wall_limit_s=WALL_LIMIT_S)
    stalls = report.get("host_stalls", [])
    board = report.get("link", {}).get("board", {})
    limit = config.ioboard.link_timeout_s
    out = {"off_home": sum(1 for s in stalls if s["at_stop_on_waking"] is False),
           "violations": len(report["referee_violations"]),
           "missed": len(report.get("host_stall_missed", [])) + (0 if stalls else 1),
           "crashed": report["crashed"] is not None, "timed_out": report["timed_out"],
           "long": 0, "failsafe": 0, "motion": 0}
    for stall in stalls:
        if stall["duration_s"] <= limit:
            continue
        out["long"] += 1
        tripped = board.get("failsafe_at_s")
        if (tripped is not None and stall["start"] <= tripped <= stall["end"]
                and not stall["motor_on_waking"]):
            out["failsafe"] += 1
        else:
            out["motion"] += 1
    return out


SWEEP_PHASES = ("build", "lid_up", "lid_down", "raise", "dice", "play")


def stalled_hands(config: Config, rig: str, phase: str, duration_s: float, cycles: int,
                  seed: int) -> dict[str, Any]:
    """One run of `cycles` hands with a whole-host stall in cycle 2's `phase`."""
    scenario = Scenario(seed=seed, cycles=cycles, source=f"sweep-{phase}",
                        faults=(FaultSpec("host_stall", "host", 2, phase=phase,
                                          duration_s=duration_s),),
                        expect=Expect(allow=tuple(CATALOGUE)))
    harness = Harness(config, scenario, None, rig=rig, rig_options={})
    report = harness.run(wall_limit_s=WALL_LIMIT_S)
    errors = [f["id"] for f in report["faults"] if CATALOGUE[f["id"]].severity == ERROR]
    return {"dealt": report["cycles_completed"], "requested": cycles,
            "errors": len(errors), "refeeds": sum(
                1 for f in report["faults"] if f["id"] == "build.interrupted"),
            "violations": len(report["referee_violations"]) + len(report["stalls"]),
            "crashed": int(report["crashed"] is not None),
            "resumed": report.get("link", {}).get("host", {}).get("resumes", 0),
            "error_ids": errors}


def sweep(config: Config, stalls: list[float], cycles: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for rig in ("sim", "ioboard"):
        for phase in SWEEP_PHASES:
            total: dict[str, Any] = {"runs": 0, "dealt": 0, "requested": 0, "errors": 0,
                                     "refeeds": 0, "violations": 0, "crashed": 0,
                                     "resumed": 0, "error_ids": []}
            for n, duration in enumerate(stalls):
                one_run = stalled_hands(config, rig, phase, duration, cycles, 40 + n)
                total["runs"] += 1
                for key, value in one_run.items():
                    total[key] = total[key] + value
            figures[f"{rig}/{phase}"] = total
            print(json.dumps({f"{rig}/{phase}": total}), flush=True)
    return figures


def latency(config: Config) -> dict[str, Any]:
    """Edge to motor-off, in the table's (the board's) time, over every head and plate
    stop of one clean hand: the board's own reaction, whatever the host does. A plate
    stop includes its 60 ms dwell at home, counted on the board."""
    scenario = Scenario(seed=1, cycles=1, source="latency", expect=Expect(allow=()))
    harness = Harness(config, scenario, None, rig="ioboard", rig_options={})
    table, clock = harness.table, harness.clock
    edges: dict[str, float] = {}
    gaps: dict[str, list[float]] = {"head": [], "plate": []}

    def witness(name: str, value: Any) -> None:
        parts = name.split(".")
        if len(parts) == 3 and parts[2] in ("head_home", "plate_home") and value:
            edges[f"motor.side.{parts[1]}.{parts[2][:-5]}"] = clock.now()
        elif name in edges and not value:
            gaps[name.rsplit(".", 1)[1]].append((clock.now() - edges.pop(name)) * 1000)
        elif name in edges and value:
            edges.pop(name)         # started again from home: a new turn

    table.heed(witness)
    harness.run(wall_limit_s=WALL_LIMIT_S)
    return {kind: {"stops": len(ms), "median_ms": round(statistics.median(ms), 3) if ms
                   else None, "max_ms": round(max(ms), 3) if ms else None}
            for kind, ms in gaps.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--stalls", default="0.05,0.2,1.0")
    parser.add_argument("--where", default="head,plate,lid")
    parser.add_argument("--rig", default="ioboard", choices=("ioboard", "sim"))
    parser.add_argument("--sweep", action="store_true",
                        help="whole-host stalls, duration x phase x rig (hands dealt)")
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--table", default="table.toml",
                        help="reference config: table.toml (144 tiles) or table-136.toml")
    args = parser.parse_args(argv)
    config = _config(args.table)
    if args.sweep:
        stalls = [float(s) for s in args.stalls.split(",")]
        started = time.perf_counter()
        figures = sweep(config, stalls, args.cycles)
        rows = figures.values()
        print(json.dumps({"stalls_s": stalls, "runs": sum(r["runs"] for r in rows),
                          "dealt": sum(r["dealt"] for r in rows),
                          "requested": sum(r["requested"] for r in rows),
                          "errors": sum(r["errors"] for r in rows),
                          "violations": sum(r["violations"] for r in rows),
                          "wall_s": round(time.perf_counter() - started, 1)}))
        return
    figures: dict[str, Any] = {"rig": args.rig, "runs_each": args.runs,
                               "link_timeout_s": config.ioboard.link_timeout_s}
    started = time.perf_counter()
    for where in args.where.split(","):
        for stall in (float(s) for s in args.stalls.split(",")):
            total: dict[str, int] = {}
            for run in range(args.runs):
                for key, value in one(config, args.rig, where, stall, run).items():
                    total[key] = total.get(key, 0) + int(value)
            figures[f"{where}@{int(stall * 1000)}ms"] = total
            print(json.dumps({f"{where}@{int(stall * 1000)}ms": total}), flush=True)
    if args.rig == "ioboard":
        figures["armed_stop_latency"] = latency(config)
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
