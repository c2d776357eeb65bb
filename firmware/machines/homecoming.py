"""What leaving test mode (or resuming after a jog) must settle first.

A technician's tests and jogs move mechanisms the table's counts know nothing of.
Two of them leave the table unable to go on by itself:

- tiles moved under a half-built set: a belt, head, disc or ring run while a build
  was incomplete carries tiles past the count sensors uncounted (or stacks tiles the
  count has not reached). Resumed from its counts, that set ends with tiles left in
  belts and heads, and the next set is built over them (E51 with counts 36/36/36/36).
  The set is held for a refeed, as after a stop in the middle of a build;
- a plate left off home while its track may hold stacks: turning it round would lift
  them onto the table, so the table cannot bring it home. It is named, with the way
  home, before test mode is left (never an E31 that a clear raises again at once).

And one a self-test must not do: turn a plate at home whose track may hold stacks. Its
turn lifts the next set's wall onto the table (onto the hand in play, if one stands
there), and no refeed puts it back: the hole is shut in test mode, and the next hand
is built over it (E51). Such a plate is not tested (nor jogged: short of a whole turn
it is left off home under them); `test all` says so and runs the rest. Every raise
turns the plates under watch, so a plate that sticks is still found.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from firmware.i18n import N_, _
from firmware.machines.build import BUILDING

if TYPE_CHECKING:
    from firmware.machines.build import Build
    from firmware.machines.off_home import Journaled
    from firmware.machines.plate import Plate
    from firmware.machines.ports import Marks
    from firmware.machines.protocols import FaultSink
    from firmware.machines.side import SideBuilder

# Mechanisms that carry or stack tiles: the build's counts do not see them move.
TILE_MOVERS = ("head", "conveyor", "disc", "ring")
# Why a plate found off home may not be turned round now, or None (off_home.py).
TurnRefused = Callable[[], "str | None"]


def build_incomplete(journaled: Journaled) -> bool:
    """A set is part built (running, or parked by a fault, a halt or test mode)."""
    return journaled()["build"] in BUILDING


def moves_tiles(mechanism: str) -> bool:
    """A test or jog name ("conveyor.2", "disc") that carries or stacks tiles."""
    return mechanism.partition(".")[0] in TILE_MOVERS


def hold_for_refeed(fault: FaultSink, marks: Marks, build: Build, set_name: str,
                    moved: list[str]) -> None:
    """The half-built set's tiles were moved uncounted: hold the build for a refeed
    (display rF; `clear ID --refed` once belts, heads and tracks are emptied)."""
    held = fault("build.interrupted", "build", None,
                 {"build_in_progress": True, "set": set_name,
                  "moved": sorted(moved), "by": "test_mode"})
    held.active = True
    marks.refeed_hold = held
    build.untrusted = True


def stranded_plates(plates: Sequence[Plate], turn_refused: TurnRefused) -> list[str]:
    """Plates off home that the table may not turn round (their tracks may hold
    stacks): a technician brings them home."""
    if turn_refused() is None:
        return []
    return [plate.key for plate in plates if plate.settled_off_home()]


def stranded_why(plates: list[str]) -> str:
    """Which plates keep test mode on, and how to bring each one home."""
    names = ", ".join(plates)
    return _("{plates} is off home, and its track may hold the staged set's stacks: the "
             "table will not turn it round by itself. Take the stacks off its track if "
             "any, then `test {first}` (one turn, it stops at home) and leave test mode "
             "again").format(plates=names, first=plates[0])


REFEED_NOTE = N_("the tests moved tiles of the set being built: empty belts, heads and "
                 "tracks onto the disc, then clear the refeed hold with --refed")


def _nothing_stacked(marks: Marks, journaled: Journaled,
                     sides: Sequence[SideBuilder]) -> bool:
    """A build just begun and stopped before its first tile was counted (test mode at
    power-on): its tracks hold nothing yet."""
    return (marks.refeed_hold is None and build_incomplete(journaled)
            and all(side.counted == 0 for side in sides))


def plate_test_refused(name: str, plates: Sequence[Plate], sides: Sequence[SideBuilder],
                       turn_refused: TurnRefused, marks: Marks,
                       journaled: Journaled) -> str | None:
    """Why the self-test `name` may not turn its plate now, or None (not a plate, its
    track is empty, or it is off home and the test is its way home)."""
    part, _sep, side = name.partition(".")
    if part != "plate":
        return None
    plate = plates[int(side)]
    if (plate.settled_off_home() or turn_refused() is None
            or _nothing_stacked(marks, journaled, sides)):
        return None
    return _("{plate} not tested: its track holds stacks of the next set, and one turn "
             "would lift them onto the table (the next hand would be built wrong). Every "
             "raise turns it under watch (E31 names a plate that sticks); test it when its "
             "track is empty, as in a raise stopped by E31").format(plate=name)
