"""Faults tracked across cycles: one defective tile behind a recurring face-up.

A tile whose magnet is reversed or weak arrives face up every time its set is built.
Seen once per build of the same set — by identity on tables with a tile reader, or
as the single face-up of each build without one — it is one defective tile: replace
that tile, not the set. The diagnosis says where it sits in the wall now.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from firmware.i18n import _

if TYPE_CHECKING:
    from firmware.controller import Controller
    from firmware.faults import Fault

RECURS_AFTER = 2    # builds of the same set
KEEP_BUILDS = 40


class FaceUpTracker:
    def __init__(self) -> None:
        # (set, cycle of the build) -> tiles seen face up in that build
        self.builds: dict[tuple[str, int], list[str | None]] = defaultdict(list)

    def seen(self, set_name: str | None, cycle: int, tile: str | None,
             slot: list[int]) -> None:
        self.builds[(set_name or "?", cycle)].append(tile)
        if len(self.builds) > KEEP_BUILDS:
            # Recurrence looks at recent builds only; a table runs for years.
            del self.builds[next(iter(self.builds))]

    def export(self) -> dict[str, Any]:
        return {"builds": [[s, c, tiles] for (s, c), tiles in list(self.builds.items())[-20:]]}

    def restore(self, saved: dict[str, Any]) -> None:
        for set_name, cycle, tiles in saved.get("builds", []):
            self.builds[(set_name, cycle)] = list(tiles)

    def diagnose(self, fault: Fault, ctl: Controller) -> dict[str, Any] | None:
        """Extra diagnosis for a face-up fault: is it one tile coming back?"""
        if fault.id != "tile.face_up":
            return None
        set_name, tile = fault.evidence.get("set") or "?", fault.evidence.get("tile")
        builds = sorted((c, tiles) for (s, c), tiles in self.builds.items() if s == set_name)
        if tile is not None:
            recurring = [c for c, tiles in builds if tile in tiles]
            who = _("tile {tile}").format(tile=tile)
        else:
            recurring = [c for c, tiles in builds if len(tiles) == 1]
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
