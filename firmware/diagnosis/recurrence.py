"""Faults tracked across cycles: one defective tile behind a recurring face-up.

A tile whose magnet is reversed or weak arrives face up every time its set is built.
Seen as the single face-up of each build of the same set, it is one defective tile:
replace that tile, not the set. The diagnosis says where it sits in the wall now.

Never by the tile's identity, even on tables with a reader: the diagnosis is open to
anyone and is made while the walls are being built, so "this tile was face up in
builds 1 and 3" would say which code it is (build 1's walls are revealed by then).

Many tiles face up on one side in one build is not many defective tiles: it is that
side's face-up sensor stuck active (every tile it reads looks face up). Then the
diagnosis points at the sensor, never at a tile.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from firmware.faults.kinds.tile import FACE_UP
from firmware.i18n import _

if TYPE_CHECKING:
    from firmware.diagnosis.table import Evidence
    from firmware.faults.kinds import Fault

RECURS_AFTER = 2    # builds of the same set
KEEP_BUILDS = 40
SENSOR_AFTER = 4    # face-ups on one side in one build before the sensor is suspected
SENSOR_SHARE = 0.5  # ... and at least this share of the tiles that side counted


class FaceUpTracker:
    def __init__(self, sides: int) -> None:
        self.sides = sides      # per-side counts kept: KEEP_BUILDS builds of every side
        # (set, cycle of the build) -> tiles seen face up in that build
        self.builds: dict[tuple[str, int], list[str | None]] = defaultdict(list)
        # (set, cycle of the build, side) -> face-ups seen on that side in that build
        self.per_side: dict[tuple[str, int, int], int] = defaultdict(int)
        self.suspected: set[int] = set()     # sides whose face-up sensor is suspected

    def seen(self, set_name: str | None, cycle: int, slot: list[int]) -> None:
        # Only how many: the tiles' codes would name tiles of walls not yet dealt.
        self.builds[(set_name or "?", cycle)].append(None)
        self.per_side[(set_name or "?", cycle, slot[0])] += 1
        if len(self.builds) > KEEP_BUILDS:
            # Recurrence looks at recent builds only; a table runs for years.
            del self.builds[next(iter(self.builds))]
        while len(self.per_side) > KEEP_BUILDS * self.sides:
            del self.per_side[next(iter(self.per_side))]

    def export(self) -> dict[str, Any]:
        return {"builds": [[s, c, tiles] for (s, c), tiles in list(self.builds.items())[-20:]]}

    def restore(self, saved: dict[str, Any]) -> None:
        for set_name, cycle, tiles in saved.get("builds", []):
            # A journal from before kept the codes: only how many is used.
            self.builds[(set_name, cycle)] = [None] * len(tiles)

    def sensor_suspected(self, fault: Fault, ctl: Evidence) -> bool:
        """Whether the face-up sensor at `fault`'s side is suspected: most of what it
        read in one build looked face up. Once suspected it stays so across builds
        (never a tile verdict from it) until that side's face-up fault is cleared."""
        side = fault.side if fault.side is not None else 0
        on_side = self.per_side.get((fault.evidence.get("set") or "?", fault.cycle, side), 0)
        if on_side >= SENSOR_AFTER and on_side >= SENSOR_SHARE * ctl.sides[side].counted:
            self.suspected.add(side)
        return side in self.suspected

    def diagnose(self, fault: Fault, ctl: Evidence) -> dict[str, Any] | None:
        """Extra diagnosis for a face-up fault: is it one tile coming back?"""
        if fault.id != FACE_UP:
            return None
        set_name = fault.evidence.get("set") or "?"
        side = fault.side if fault.side is not None else 0
        on_side = self.per_side.get((set_name, fault.cycle, side), 0)
        counted = ctl.sides[side].counted
        if self.sensor_suspected(fault, ctl):
            return {
                "recurring": False,
                "sensor_suspect": f"side.{side}.face_up",
                "face_up_this_build": on_side, "counted_this_build": counted,
                "verdict": f"the face-up sensor of side {side} is stuck: {on_side} of the "
                           f"{counted} tiles it read this build looked face up",
                "remedy_instead": [f"check the face-up sensor of side {side} in the signal "
                                   "view; clean or replace it (the tiles are fine)"],
            }
        builds = sorted((c, tiles) for (s, c), tiles in self.builds.items() if s == set_name)
        recurring = [c for c, tiles in builds if len(tiles) == 1]
        # Never its name: a diagnosis is open to anyone, and a sensor that is only
        # starting to stick would name tiles of walls not yet dealt. Its place says
        # which tile to take out.
        who = _("the face-up tile")
        if len(recurring) < RECURS_AFTER:
            return {"recurring": False, "builds_seen": recurring}
        p, k, level = fault.evidence["wall_slot"]
        where = (_("wall {wall}, stack {stack} from its right end, top") if level == 0 else
                 _("wall {wall}, stack {stack} from its right end, bottom")).format(
                     wall=p, stack=k + 1)
        return {
            "recurring": True,
            "builds_seen": recurring,
            "verdict": _("one defective tile: {who} of set {set} arrives face up every time "
                         "its set is built").format(who=who, set=set_name),
            "now_at": [p, k, level],
            "remedy": [_("replace {who}, now at {where}; the rest of the set is fine").format(
                who=who, where=where)],
        }
