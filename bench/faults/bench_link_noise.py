"""Link noise with stop-faults on the ioboard rig: does the referee see anything?

    python -m bench.faults.bench_link_noise [--runs 200] [--noise 0.001,0.01]

Each run is one hand on the 144-tile reference table with bits flipped on the serial
link from the build on (`link_noise`) and one stop-fault of every kind in turn (a head
jam, a blocked plate, a blocked lid, jammed dice, dead head, plate and lid motors, a
stuck head-home sensor, the case opened), sides going round the runs. The referee
judges through the link's grace (simulator/harness/referee.py) and holds the board to its
interlock table. Per noise level it prints the runs with referee violations (and the
rules), crashes and timeouts. Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from typing import Any

from bench.faults.bench_stalls import WALL_LIMIT_S
from firmware.faults.kinds import CATALOGUE
from mjtable_core.config import load_config, reference_config
from mjtable_core.geometry import REFERENCE
from simulator.harness.runner import Harness
from simulator.scenario import Expect, FaultSpec, Scenario

# (kind, where with {n} for the side, phase, value)
STOP_FAULTS = (("tile_jam", "side.{n}.head", "build", False),
               ("plate_blocked", "side.{n}.plate", "raise", False),
               ("lid_blocked", "lid", "lid_down", False),
               ("dice_jam", "dice", "raise", False),
               ("motor_dead", "motor.side.{n}.head", "build", False),
               ("motor_dead", "motor.side.{n}.plate", "raise", False),
               ("motor_dead", "motor.lid", "lid_up", False),
               ("sensor_stuck", "side.{n}.head_home", "build", False),
               ("sensor_stuck", "case_open", "build", True))


def one(noise: float, run: int) -> dict[str, Any]:
    config = load_config(reference_config("table.toml")).with_play_time(2.0)
    kind, where, phase, value = STOP_FAULTS[run % len(STOP_FAULTS)]
    n = list(REFERENCE.sides)[(run // len(STOP_FAULTS)) % len(REFERENCE.sides)]
    faults = (FaultSpec("link_noise", "link", 1, phase="build", probability=noise),
              FaultSpec(kind, where.format(n=n), 1, phase=phase, value=value))
    scenario = Scenario(seed=2000 + run, cycles=1, source=f"noise-{noise}-{run}",
                        faults=faults, expect=Expect(allow=tuple(CATALOGUE)))
    report = Harness(config, scenario, None, rig="ioboard", rig_options={}).run(
        wall_limit_s=WALL_LIMIT_S)
    return {"kind": f"{kind}@{where}", "rules": [v["rule"] for v in report["referee_violations"]],
            "details": [v["detail"] for v in report["referee_violations"]][:3],
            "crashed": report["crashed"] is not None, "timed_out": report["timed_out"]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--noise", default="0.001,0.01")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {"runs_each": args.runs}
    started = time.perf_counter()
    for noise in (float(p) for p in args.noise.split(",")):
        rules: Counter[str] = Counter()
        bad, crashed, timed_out, examples = 0, 0, 0, []
        for run in range(args.runs):
            out = one(noise, run)
            rules.update(out["rules"])
            bad += bool(out["rules"])
            crashed += out["crashed"]
            timed_out += out["timed_out"]
            if out["rules"] and len(examples) < 5:
                examples.append({"run": run, "fault": out["kind"], "details": out["details"]})
        figures[f"noise={noise}"] = {"runs_with_violations": bad, "rules": dict(rules),
                                     "crashed": crashed, "timed_out": timed_out,
                                     "examples": examples}
        print(json.dumps({f"noise={noise}": figures[f"noise={noise}"]}), flush=True)
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
