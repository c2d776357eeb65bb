"""The count sensor of a side: two arrivals closer than a tile allows, or a belt full
with nothing counted.

`count.blind` (a belt full, no tile counted) is either the count sensor or the belt:
the tile reader at the head decides. A tile read at the head since the last counted
arrival reached the head unseen — the count sensor is blind. Nothing read while the
belt stays full — nothing reached the head: the conveyor is jammed, and replacing the
count sensor would replace a good part. Without a reader the two cannot be told
apart, and the cheaper look (the belt) comes first.
"""

from __future__ import annotations

from typing import Any

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect
from firmware.faults.kinds.kind import BUILD, ERROR, FaultKind
from firmware.faults.kinds.parts import COUNT, HEAD_SENSOR_GLITCH
from firmware.i18n import N_

BELT_JAM: Suspect = ("side.{side}.conveyor", N_("a tile stuck on the belt of side {side}"))
FULL_STUCK: Suspect = ("side.{side}.full", N_("the belt-full sensor of side {side} stuck "
                                              "active"))


def double(view: EvidenceView) -> Ranked:
    return [COUNT], None, None


def blind(view: EvidenceView) -> Ranked:
    side = view.at_side()
    if side is not None and view.count_lit:
        # The count sensor still lit with nothing counted: stuck lit, or a tile
        # standing in front of it (the head's odd turns behind it are its effect).
        return ([COUNT, BELT_JAM],
                N_("look at the count sensor of side {side}: if a tile stands in front "
                   "of it, clear the belt; if not and its light stays on, clean or "
                   "replace it"), "conveyor.{side}")
    if view.evidence.get("head_home_glitches"):
        # The head's home sensor glitched this build: the head lost its turn, so the
        # belt filled behind it.
        return ([HEAD_SENSOR_GLITCH, COUNT, BELT_JAM, FULL_STUCK],
                N_("run the head self-test of side {side} and watch the head home "
                   "sensor's light in the signal view: if it flickers while the cam "
                   "stands, clean or replace it"), "head.{side}")
    if side is not None and side.has_reader and side.unseen_reads > 0:
        return [COUNT], None, None      # the head's reader saw tiles the count missed
    if side is not None and side.has_reader:
        return ([BELT_JAM, FULL_STUCK],
                N_("look at the belt of side {side}: if a tile is stuck, clear it; if the "
                   "belt is empty, the belt-full sensor is stuck"), "conveyor.{side}")
    return ([COUNT, BELT_JAM, FULL_STUCK],
            N_("run the conveyor self-test of side {side} and watch the belt: if tiles "
               "reach the head, clean the count sensor; if a tile is stuck, clear it; if "
               "the belt is empty, the belt-full sensor is stuck"), "conveyor.{side}")


def blind_verdict(view: EvidenceView) -> dict[str, Any] | None:
    """Which part to look at first, and why."""
    side = view.at_side()
    if side is None:
        return None
    n = view.side
    evidence = {"reader": side.has_reader, "tiles_read_uncounted": side.unseen_reads,
                "belt_full_s": view.evidence.get("blind_s")}
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


KINDS = (
    FaultKind("count.double", "E4N", ERROR, N_("two tile arrivals closer than physically possible"),
              (N_("dirty or misaligned count sensor"), N_("sensor threshold drift")),
              (N_("clean the count sensor of side {side}"), N_("re-adjust its threshold")),
              short=N_("double count"), scope=BUILD, untrusts_count=True, rule=double,
              symptoms=("wrong_tile_count",),
              sees="two arrivals closer than the physical minimum gap"),
    FaultKind("count.blind", "E6N", ERROR, N_("the belt is full but no tile is counted"),
              (N_("count sensor dead or covered"),),
              (N_("clean the count sensor of side {side}"), N_("replace it")),
              short=N_("count sensor blind"), scope=BUILD, untrusts_count=True, rule=blind,
              verdict=blind_verdict,
              symptoms=("build_never_finishes", "wrong_tile_count"),
              sees="belt full (`side.N.full`) but no arrival counted"),
)
