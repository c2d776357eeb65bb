"""Judging what a technician sees: does the diagnosis name the part that broke?

For one injected root cause (a dead or slow motor, a stuck or flaky sensor) the judge
reads the faults the run raised after it and says:

- `first`: the first fault raised names the injected part (and its side) as its
  first-ranked cause;
- `among`: the part is among the ranked causes, and the diagnosis names the test
  that tells the candidates apart (the evidence cannot single one out);
- `wrong`: the part is not named, or named below another without a test to tell;
- `undetected`: no fault was raised (a slow motor within its margin, a sensor stuck at
  the value it would read anyway): nothing to judge.

A diagnosis ranks its causes as `suspects` (each with the `part` a technician
replaces); an older one without them is read from its catalogue causes, mapped to
parts below (what a technician would take from the words).
It also counts the faults the cause raised, the most active copies of one fault at
once, and flags a display that shows a cleared fault (the harness records them).
"""

from __future__ import annotations

import re
from typing import Any

# Catalogue cause texts (English, as the harness runs) and the part each names; `{n}`
# is the fault's side. Causes that name no replaceable part (a tile, debris) are absent.
CAUSE_PARTS: dict[str, str] = {
    "lift motor or gear": "motor.lid",
    "lift motor": "motor.lid",
    "upper lid sensor": "lid.upper",
    "lower lid sensor": "lid.lower",
    "plate home switch": "side.{n}.plate_home",
    "dirty or misaligned count sensor": "side.{n}.count",
    "sensor threshold drift": "side.{n}.count",
    "count sensor dead or covered": "side.{n}.count",
    "dice motor": "motor.dice",
    "fuse": "motor.dice",
}
JUDGED_KINDS = ("motor_dead", "motor_slow", "sensor_stuck", "sensor_flaky")
FLOOD_PER_HOUR = 3


def ranked_parts(fault: dict[str, Any]) -> tuple[list[str], bool]:
    """The parts a fault's diagnosis names, first-ranked first, and whether it names
    the test that tells them apart."""
    diagnosis = fault.get("diagnosis") or {}
    suspects = diagnosis.get("suspects")
    if suspects is not None:
        return [s["part"] for s in suspects], bool(diagnosis.get("test"))
    side = fault.get("side")
    if side is None:
        match = re.search(r"side\.(\d+)", str(fault.get("where")))
        side = match.group(1) if match else "?"
    parts = []
    for cause in diagnosis.get("causes", []):
        part = CAUSE_PARTS.get(cause)
        if part is not None and part.format(n=side) not in parts:
            parts.append(part.format(n=side))
    return parts, False


def verdict(part: str, fault: dict[str, Any] | None) -> str:
    """first, among, wrong or undetected, for the first fault raised after `part` broke."""
    if fault is None:
        return "undetected"
    parts, test = ranked_parts(fault)
    if parts and parts[0] == part:
        return "first"
    if part in parts and test:
        return "among"
    return "wrong"


def judge(report: dict[str, Any]) -> dict[str, Any] | None:
    """The judgement of a run with one lone injected motor or sensor fault (None for
    any other run): the verdict, the faults raised for it, the flood and the display."""
    injected = report.get("injections") or []
    if len(injected) != 1 or injected[0]["kind"] not in JUDGED_KINDS:
        return None
    spec = injected[0]
    after = [f for f in report["faults"] if f["sim_time_s"] >= spec["at_s"]
             and f["id"] != "power.recovered"]
    hours = max(report["sim_time_s"] - spec["at_s"], 1.0) / 3600.0
    counts: dict[str, int] = {}
    for f in after:
        counts[f["id"]] = counts.get(f["id"], 0) + 1
    raised = len(after)
    return {"kind": spec["kind"], "where": spec["where"],
            "verdict": verdict(spec["where"], after[0] if after else None),
            "first_fault": after[0]["code"] if after else None,
            "named": ranked_parts(after[0])[0] if after else [],
            "faults_raised": raised, "by_id": counts,
            "flood": raised > max(FLOOD_PER_HOUR, FLOOD_PER_HOUR * hours),
            "max_active_copies": report.get("max_active_copies", 0),
            "stale_display": list(report.get("stale_displays", []))}


def failed(judgement: dict[str, Any] | None) -> list[str]:
    """The judge's failure classes for a run: `wrong_diagnosis`, `fault_flood`."""
    if judgement is None:
        return []
    classes = []
    if judgement["verdict"] == "wrong":
        classes.append("wrong_diagnosis")
    if judgement["flood"] or judgement["max_active_copies"] > 1:
        classes.append("fault_flood")
    if judgement["stale_display"]:
        classes.append("stale_display")
    return classes
