"""What an evidence rule reads: a read-only view of a fault and of the table at the
instant it was raised, built by the differential (firmware/diagnosis/differential.py).

A rule ranks the parts that may have caused a fault. It is handed this view, never the
controller: what a rule may read is written here, and a rule can be tried on a view
made by hand. The table is read as a rule asks, not before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

# A part a technician repairs (a signal or motor name, or the place of a jam, with
# `{side}` for the fault's side) and its cause in the trade's words (a msgid).
Suspect = tuple[str, str]
# The suspects ranked, the test that tells them apart (a msgid, or None), and the
# console's self-test that runs it (`head.{side}`, or None).
Ranked = tuple[list[Suspect], str | None, str | None]


@dataclass(frozen=True)
class SideView:
    """What a side's machine knows of the tiles it counted this build."""

    side: int
    has_reader: bool        # a tile reader at its head
    unseen_reads: int       # tiles the reader saw since the last counted arrival
    glitches: int           # impossible home edges seen (a flaky sensor)
    ghost_counts: int       # counts of tiles that were not there, by its own evidence


class EvidenceView(Protocol):
    """One fault and what the table knows of it, read-only: all an evidence rule reads."""

    @property
    def where(self) -> str: ...
    @property
    def side(self) -> int | None: ...
    @property
    def evidence(self) -> Mapping[str, Any]: ...
    @property
    def tiles_per_side(self) -> int: ...
    @property
    def table_sides(self) -> int:
        """How many sides the table's geometry has."""
    @property
    def sides(self) -> Sequence[SideView]:
        """Each side's machine, by side number."""
    @property
    def min_travel(self) -> float:
        """The least share of its learned time a travel takes (a worn motor is slower,
        never faster): supervision's."""
    @property
    def count_lit(self) -> bool:
        """The count sensor of the fault's side reads lit now (False: dark, or no side)."""
    def face_up_sensor_suspected(self) -> bool:
        """Whether the face-up sensor of the fault's side is suspected (learned as it
        is asked: only the rule that needs it asks)."""
    def at_side(self) -> SideView | None:
        """The fault's own side, if it has one."""


Rule = Callable[[EvidenceView], Ranked]
# The cause the evidence decides between two that look alike, with its verdict and
# remedy (None: nothing to add to the ranked suspects).
Verdict = Callable[[EvidenceView], dict[str, Any] | None]


def at(suspect: Suspect, side: str) -> Suspect:
    """A suspect at a side other than the fault's (a build fault has none): its cause
    is filled from the side in its part when translated (record.py)."""
    return suspect[0].replace("{side}", side), suspect[1]


def side_in(part: str) -> str | None:
    """The side a part is at (`motor.side.2.conveyor`, `side.2.count`), if any."""
    words = part.split(".")
    return next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "side"), None)
