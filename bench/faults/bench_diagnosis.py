"""Diagnosis accuracy per fault kind: does the table name the part that broke?

    python -m bench.faults.bench_diagnosis [--tables table.toml table-136.toml] [--json]

Every motor dead and slow (factors 2 and 5), every sensor stuck at both values and
flaky (1 and 6 pulses a second), each alone, at every place of the reference table,
on both table sizes: broken as the first build starts, replaced by a technician who
reads the fault right 30 s after it. Judged by simulator/harness/diagnosis_judge.py: the part
first-ranked (`first`), among the ranked with the test that tells them apart
(`among`), not named (`wrong`), or never raised a fault (`undetected`); with the most
faults one cause raised and the most active copies of one fault.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from mjtable_core.config import load_config, reference_config
from mjtable_core.geometry import REFERENCE
from simulator.fuzz.batch import PLACES, right_actions
from simulator.harness.diagnosis_judge import judge
from simulator.harness.runner import Harness
from simulator.scenario import KINDS, Expect, FaultSpec, Scenario

PLAY_TIME_S = 20.0
_FACE_UP = [f"side.{n}.face_up" for n in REFERENCE.sides]


def lone_faults() -> Iterator[FaultSpec]:
    """Every lone motor and sensor fault the judge covers."""
    for where in PLACES["motor_dead"]:
        yield FaultSpec("motor_dead", where, 1, "build")
    for where in PLACES["motor_slow"]:
        for factor in (2.0, 5.0):
            yield FaultSpec("motor_slow", where, 1, "build", factor=factor)
    for where in PLACES["sensor_stuck"] + _FACE_UP:
        for value in (True, False):
            yield FaultSpec("sensor_stuck", where, 1, "build", value=value)
    for where in PLACES["sensor_flaky"]:
        for rate in (1.0, 6.0):
            yield FaultSpec("sensor_flaky", where, 1, "build", probability=rate)


def run_one(table: str, spec: FaultSpec, cycles: int = 3) -> dict[str, Any]:
    import dataclasses

    actions = tuple(dataclasses.replace(a, delay_s=30.0, for_fault=1)
                    for a in right_actions(spec))
    scenario = Scenario(seed=7, cycles=cycles, faults=(spec,), actions=actions,
                        expect=Expect(allow=tuple(sorted(KINDS))), play_time_s=PLAY_TIME_S,
                        source=f"{spec.kind}@{spec.where}")
    config = load_config(reference_config(table))
    if spec.where not in config.signals() and not spec.where.startswith("motor."):
        return {"kind": spec.kind, "where": spec.where, "verdict": "not_fitted",
                "table": table, "faults_raised": 0, "max_active_copies": 0,
                "stale_display": [], "first_fault": None, "named": []}
    report = Harness(config, scenario).run(wall_limit_s=30.0)
    judged = judge(report)
    assert judged is not None
    judged["table"] = table
    return judged


def accuracy(tables: list[str]) -> dict[str, Any]:
    rows = [run_one(table, spec) for table in tables for spec in lone_faults()]
    per_kind: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        kind = f"{row['kind']} {_part(row['where'])}"
        per_kind[kind][row["verdict"]] += 1
        per_kind[kind]["most_faults"] = max(per_kind[kind]["most_faults"],
                                            row["faults_raised"])
        per_kind[kind]["most_copies"] = max(per_kind[kind]["most_copies"],
                                            row["max_active_copies"])
        per_kind[kind]["stale_display"] += bool(row["stale_display"])
    rows = [r for r in rows if r["verdict"] != "not_fitted"]
    detected = [r for r in rows if r["verdict"] != "undetected"]
    right = [r for r in detected if r["verdict"] in ("first", "among")]
    return {"runs": len(rows), "detected": len(detected), "right": len(right),
            "accuracy": round(len(right) / len(detected), 3) if detected else None,
            "per_kind": {k: dict(v) for k, v in sorted(per_kind.items())},
            "wrong": [f"{r['table']} {r['kind']} {r['where']}: {r['first_fault']} "
                      f"names {r['named']}" for r in rows if r["verdict"] == "wrong"]}


def _part(where: str) -> str:
    """The part without its side: motor.side.2.head -> motor.side.head."""
    return ".".join(p for p in where.split(".") if not p.isdigit())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["table.toml", "table-136.toml"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = accuracy(args.tables)
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    print(f"{figures['right']}/{figures['detected']} detected lone faults named right "
          f"({figures['accuracy']}); {figures['runs']} runs")
    print(f"{'kind and part':36} first among wrong undet. faults copies stale")
    for kind, v in figures["per_kind"].items():
        print(f"{kind:36} {v.get('first', 0):5} {v.get('among', 0):5} {v.get('wrong', 0):5} "
              f"{v.get('undetected', 0):6} {v['most_faults']:6} {v['most_copies']:6} "
              f"{v['stale_display']:5}")
    for line in figures["wrong"]:
        print("  wrong:", line)


if __name__ == "__main__":
    main()
