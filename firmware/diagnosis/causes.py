"""Causes told apart by evidence, for faults whose symptom has more than one cause.

`count.blind` (a belt full, no tile counted) is either the count sensor or the belt:
the tile reader at the head decides. A tile read at the head since the last counted
arrival reached the head unseen — the count sensor is blind. Nothing read while the
belt stays full — nothing reached the head: the conveyor is jammed, and replacing the
count sensor would replace a good part. Without a reader the two cannot be told
apart, and the cheaper look (the belt) comes first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware.diagnosis.table import Evidence
    from firmware.faults.kinds import Fault


def blind_cause(fault: Fault, ctl: Evidence) -> dict[str, Any] | None:
    """Extra diagnosis for `count.blind`: which part to look at first, and why."""
    if fault.id != "count.blind" or fault.side is None:
        return None
    side = ctl.sides[fault.side]
    n = fault.side
    evidence = {"reader": side.has_reader, "tiles_read_uncounted": side.unseen_reads,
                "belt_full_s": fault.evidence.get("blind_s")}
    if side.has_reader and side.unseen_reads > 0:
        return {"cause": "count_sensor", "decided_by": evidence,
                "verdict": f"a tile reached the head of side {n} (its reader saw it) but "
                           "the count sensor did not: the count sensor is blind"}
    if side.has_reader:
        return {"cause": "conveyor_jam", "decided_by": evidence,
                "verdict": f"the belt of side {n} stays full and no tile reached its head "
                           "(the reader saw none): the conveyor is jammed, the count "
                           "sensor is not at fault",
                "remedy_instead": [f"clear the conveyor of side {n}: a tile is stuck on the "
                                   "belt; the count sensor is fine"]}
    return {"cause": "conveyor_or_count_sensor", "decided_by": evidence,
            "verdict": f"the belt of side {n} is full and nothing is counted: a jammed "
                       "conveyor or a blind count sensor (no tile reader to tell)",
            "remedy": [f"look at the conveyor of side {n} first: if a tile is stuck, "
                       "clear it; if tiles reach the head, clean the count sensor"]}
