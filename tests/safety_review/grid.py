"""Adversarial grids of the safety review (issue 11), run by hand, not by pytest.

    python -m tests.safety_review.grid power    # a fault, then a power cut at offsets after it
    python -m tests.safety_review.grid glitch   # glitching and stuck stop sensors, every phase
    python -m tests.safety_review.grid pairs    # two faults in two scopes; two power cuts

Each run prints one JSON line (`classes` empty is a pass, judged like the fuzzer); a
failing one is written as a scenario file to the folder given by `--out` (default
`fuzz-failures/grid/`, ignored by git), to run with `mjtable simulate --scenario FILE`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mjtable_core.config import load_config
from simulator.fuzz.batch import classify, to_toml
from simulator.harness.runner import Harness
from simulator.scenario import parse_scenario

ALLOW = ["build.extra_tiles", "build.interrupted", "build.slow", "build.tiles_missing",
         "case.opened", "count.blind", "count.double", "dice.stuck", "head.jam",
         "lid.not_lowering", "lid.not_rising", "lid.sensor_conflict", "plate.stuck",
         "power.recovered", "sensor.degraded", "tile.face_up", "timing.drift"]
Spec = dict[str, Any]
# A fault, and the technician's right action for it.
BASES: dict[str, tuple[Spec, Spec]] = {
    "head_jam": ({"kind": "tile_jam", "where": "side.1.head", "cycle": 2, "phase": "build"},
                 {"after_fault": "head.jam", "do": "clear_jam", "where": "side.1.head"}),
    "conv_jam": ({"kind": "tile_jam", "where": "side.2.conveyor", "cycle": 2, "phase": "build"},
                 {"after_fault": "count.blind", "do": "clear_jam", "where": "side.2.conveyor"}),
    "plate_blocked": ({"kind": "plate_blocked", "where": "side.0.plate", "cycle": 1,
                       "phase": "raise"},
                      {"after_fault": "plate.stuck", "do": "clear_obstruction"}),
    "lid_blocked_down": ({"kind": "lid_blocked", "where": "lid", "cycle": 1, "phase": "lid_down"},
                         {"after_fault": "lid.not_lowering", "do": "clear_obstruction"}),
    "dice_jam": ({"kind": "dice_jam", "where": "dice", "cycle": 1, "phase": "dice"},
                 {"after_fault": "dice.stuck", "do": "clear_jam"}),
    "extra": ({"kind": "extra_tiles", "where": "hole", "cycle": 2, "phase": "build", "count": 2},
              {"after_fault": "build.extra_tiles", "do": "remove_extra"}),
    "missing": ({"kind": "missing_tiles", "where": "table", "cycle": 2, "phase": "build",
                 "count": 3},
                {"after_fault": "build.tiles_missing", "do": "top_up"}),
    "lid_upper_stuck": ({"kind": "sensor_stuck", "where": "lid.upper", "cycle": 1,
                         "phase": "lid_up", "value": False},
                        {"after_fault": "lid.not_rising", "do": "replace_part",
                         "where": "lid.upper"}),
    "plate_home_stuck": ({"kind": "sensor_stuck", "where": "side.3.plate_home", "cycle": 1,
                          "phase": "raise", "value": False},
                         {"after_fault": "plate.stuck", "do": "replace_part",
                          "where": "side.3.plate_home"}),
    "head_home_stuck": ({"kind": "sensor_stuck", "where": "side.0.head_home", "cycle": 2,
                         "phase": "build", "value": False},
                        {"after_fault": "head.jam", "do": "replace_part",
                         "where": "side.0.head_home"}),
    "count_stuck": ({"kind": "sensor_stuck", "where": "side.2.count", "cycle": 2,
                     "phase": "build", "value": True},
                    {"after_fault": "count.blind", "do": "replace_part", "where": "side.2.count"}),
}
# Seconds after the fault: at once, while the technician works (the action comes at
# 20 s), in the instant after the clear, and later.
OFFSETS = (0.0, 0.5, 5.0, 19.9, 20.05, 21.0, 30.0)
REFEED: Spec = {"after_fault": "power.recovered", "do": "refeed", "delay_s": 15.0}
STOP_SENSORS = ("lid.upper", "lid.lower", "side.0.head_home", "side.2.head_home",
                "side.1.plate_home", "side.3.plate_home")
PHASES = ("build", "lid_down", "lid_up", "raise", "dice", "play")


def scenario(faults: list[Spec], actions: list[Spec], seed: int = 5,
             cycles: int = 3) -> dict[str, Any]:
    return {"seed": seed, "cycles": cycles, "play_time_s": 20.0, "fault": faults,
            "action": actions, "expect": {"faults": [], "allow": ALLOW,
                                          "cycles_completed": 0}}


def run(name: str, raw: dict[str, Any], out: Path) -> dict[str, Any]:
    parsed = parse_scenario(raw, f"{name}.toml")
    report = Harness(load_config(), parsed).run(wall_limit_s=60.0)
    classes = classify(parsed, report)
    if classes:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{name}.toml").write_text(to_toml(parsed, classes))
    print(json.dumps({"name": name, "classes": classes,
                      "faults": [(f["id"], round(f["sim_time_s"], 1))
                                 for f in report["faults"]][:8],
                      "violations": report["referee_violations"][:2],
                      "stalls": report["stalls"][:1], "crashed": report["crashed"],
                      "cycles": report["cycles_completed"]}), flush=True)
    return report


def power(out: Path) -> None:
    for base, (fault, action) in BASES.items():
        report = run(base, scenario([fault], [action]), out)
        first = [f for f in report["faults"] if f["id"] == action["after_fault"]]
        if not first:
            continue
        at = first[0]["sim_time_s"]
        for offset in OFFSETS:
            cut = {"kind": "power_cut", "where": "power", "cycle": 1,
                   "at_s": round(at + offset, 2), "duration_s": 10.0}
            run(f"{base}_cut{offset}", scenario([fault, cut], [action, REFEED]), out)
        wrong = {"after_fault": action["after_fault"], "do": "clean_sensor",
                 "where": "side.0.count", "delay_s": 10.0}
        run(f"{base}_wrong_then_right",
            scenario([fault], [wrong, {**action, "delay_s": 30.0}]), out)


def glitch(out: Path) -> None:
    for sensor in STOP_SENSORS:
        actions = [{"after_fault": fault_id, "do": "replace_part", "where": sensor}
                   for fault_id in ("lid.not_rising", "lid.not_lowering", "head.jam",
                                    "plate.stuck", "lid.sensor_conflict")]
        for phase in PHASES:
            for probability in (0.2, 2.0):
                flaky = {"kind": "sensor_flaky", "where": sensor, "cycle": 2, "phase": phase,
                         "probability": probability, "duration_s": 30.0}
                run(f"flaky_{sensor}_{phase}_{probability}",
                    scenario([flaky], actions, seed=11), out)
            for value in (True, False):
                stuck = {"kind": "sensor_stuck", "where": sensor, "cycle": 2, "phase": phase,
                         "value": value}
                run(f"stuck_{sensor}_{phase}_{value}", scenario([stuck], actions, seed=12), out)


def pairs(out: Path) -> None:
    for a, b in (("head_jam", "plate_blocked"), ("conv_jam", "lid_blocked_down"),
                 ("extra", "dice_jam"), ("missing", "lid_blocked_down"),
                 ("head_home_stuck", "lid_upper_stuck"), ("count_stuck", "plate_home_stuck")):
        (fault_a, action_a), (fault_b, action_b) = BASES[a], BASES[b]
        run(f"pair_{a}_{b}", scenario([fault_a, fault_b], [action_a, action_b]), out)
        at_once = {**fault_b, "cycle": fault_a["cycle"], "phase": fault_a["phase"]}
        run(f"pair_at_once_{a}_{b}", scenario([fault_a, at_once], [action_a, action_b]), out)
    # A second cut during the homing after the first (or just after it).
    for at in (5.0, 20.0, 45.0, 48.5, 60.0):
        for gap in (0.05, 0.3, 1.0, 3.0):
            cuts = [{"kind": "power_cut", "where": "power", "cycle": 1, "at_s": at,
                     "duration_s": 5.0},
                    {"kind": "power_cut", "where": "power", "cycle": 1,
                     "at_s": round(at + 5.0 + gap, 2), "duration_s": 5.0}]
            run(f"double_cut_{at}_{gap}",
                scenario(cuts, [REFEED, {**REFEED, "delay_s": 25.0}]), out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("grid", choices=("power", "glitch", "pairs"))
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures") / "grid")
    args = parser.parse_args()
    {"power": power, "glitch": glitch, "pairs": pairs}[args.grid](args.out)


if __name__ == "__main__":
    main()
