"""The build of a set: tiles stopped arriving before it was complete, more tiles than it
holds, or tiles arriving far slower than usual.

Every side starving at once: the disc or the ring; one side starving while the others
filled: that side's conveyor or its count sensor, then the disc or the ring (they stopped
the last side filling too); a few tiles short: tiles left on the table.
"""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect, at
from firmware.faults.kinds.kind import BUILD, ERROR, REFEED, WARNING, FaultKind
from firmware.faults.kinds.parts import COUNT
from firmware.i18n import N_

DISC: Suspect = ("motor.disc", N_("the disc motor, its belt or its fuse"))
RING: Suspect = ("motor.ring", N_("the magnet ring motor or its fuse"))
LEFT_ON_TABLE: Suspect = ("table", N_("tiles left on the table"))
CONVEYOR: Suspect = ("motor.side.{side}.conveyor", N_("the conveyor motor of side {side} or "
                                                      "its fuse"))
FOREIGN: Suspect = ("hole", N_("foreign tiles or tiles of the other set"))

# The kinds other modules name: the one players answer by topping up (its evidence
# says which sides were short), and the one a refeed hold may stand for.
TILES_MISSING = "build.tiles_missing"
EXTRA_TILES = "build.extra_tiles"

# The most tiles players leave on the table by mistake: a hand.
HAND = 14


def missing(view: EvidenceView) -> Ranked:
    short: dict[str, int] = view.evidence.get("short_sides") or {}
    sides = view.table_sides
    missing = int(view.evidence.get("missing") or 0)
    per_side = view.tiles_per_side
    heavy = [n for n, count in short.items() if count > 3]
    if view.evidence.get("arriving") and len(short) >= 2:
        # Out of time while tiles still came (within the stall limit) at several sides:
        # the feed that serves them all turns slowly; tiles left on the table would
        # have stopped the arrivals (the stall limit) instead.
        return ([DISC, RING, *(at(CONVEYOR, n) for n in sorted(short)), LEFT_ON_TABLE],
                N_("run the disc self-test: the disc and the magnet ring must both turn "
                   "at full speed; if they do, run the conveyor self-test of each short "
                   "side"), "disc")
    if view.evidence.get("arriving") and short:
        # Out of time with one side short, tiles still coming: that side's belt or the
        # disc feeding every side slowly (the others just made it) look the same.
        n = next(iter(short))
        return ([at(CONVEYOR, n), DISC, RING, at(COUNT, n)],
                N_("run the conveyor self-test of side {side}: a belt that moves slowly "
                   "is its motor; if it runs at full speed, run the disc self-test: the "
                   "disc and the magnet ring must both turn at full speed; if they do, "
                   "clean the count sensor of side {side}"), f"conveyor.{n}")
    # No more missing than a player's hand: tiles left on the table look the same as a
    # belt or a disc that stopped late in the build, and cost no trip to check first.
    left = missing <= HAND
    # Several sides short by more than a few tiles left on the table: the feed that
    # serves them all (a slow disc leaves most sides short, a dead one every side).
    if len(heavy) >= 2 or (short and len(short) == sides and missing >= 2 * sides):
        if left:
            return ([LEFT_ON_TABLE, DISC, RING],
                    N_("look for tiles left on the table and top up; if none are missing, "
                       "run the disc self-test: the disc and the magnet ring must both "
                       "turn"), "disc")
        return ([DISC, RING, LEFT_ON_TABLE],
                N_("run the disc self-test: the disc and the magnet ring must both turn; "
                   "if they do, look for tiles left on the table"), "disc")
    if len(heavy) == 1:
        n = heavy[0]
        # The disc feeds every side: stopped while this side was last (others short
        # too), or turning slowly as this side was the last to fill (a slow disc's
        # gaps can outlast the stall limit), it cannot be told from the belt by counts.
        parts = [at(CONVEYOR, n), at(COUNT, n), DISC, RING]
        if left:
            return ([LEFT_ON_TABLE, *parts],
                    N_("look for tiles left on the table and top up; if none are missing, "
                       "run the conveyor self-test of side {side}: if the belt does not "
                       "move, the conveyor motor or its fuse; if it moves and tiles reach "
                       "the head, clean the count sensor of side {side}; if the belt is "
                       "fine, run the disc self-test"), f"conveyor.{n}")
        return ([*parts, LEFT_ON_TABLE],
                N_("run the conveyor self-test of side {side}: if the belt does not move, "
                   "the conveyor motor or its fuse; if it moves and tiles reach the head, "
                   "clean the count sensor of side {side}; if the belt is fine, run the "
                   "disc self-test"),
                f"conveyor.{n}")
    # The head's reader saw tiles the count missed: that side's count sensor.
    unseen = [str(s.side) for s in view.sides
              if s.has_reader and s.unseen_reads > 0 and str(s.side) in short]
    if unseen:
        return [*(at(COUNT, n) for n in unseen), LEFT_ON_TABLE], None, None
    # A few short: tiles left on the table first; a count sensor gone dark or a
    # conveyor stopped looks the same from the counts alone.
    own: list[Suspect] = []
    for n, count in sorted(short.items()):
        if count > 3 or count >= per_side:
            own += [at(CONVEYOR, n), at(COUNT, n)]
        else:
            own += [at(COUNT, n), at(CONVEYOR, n)]
    # The stall says every side still filling stopped at once, and the disc and the
    # ring feed them all: a ring that died as the last side filled leaves that side a
    # few short and no other. One side stopped is likelier its own belt or sensor;
    # several stopped together, the one feed rather than a part at each.
    if len(short) >= 2:
        return ([LEFT_ON_TABLE, DISC, RING, *own],
                N_("look for tiles left on the table and top up; if none are missing, "
                   "run the disc self-test: the disc and the magnet ring must both turn; "
                   "if they do, run the conveyor self-test of each short side and watch "
                   "its head: tiles that reach it without being counted mean its count "
                   "sensor (clean or replace it); a belt that does not move, its "
                   "conveyor"), "disc")
    return ([LEFT_ON_TABLE, *own, *([DISC, RING] if short else [])],
            N_("look for tiles left on the table and top up; if none are missing, run "
               "the conveyor self-test of each short side and watch its head: tiles that "
               "reach it without being counted mean its count sensor (clean or replace "
               "it); a belt that does not move, its conveyor; if the belt moves and no "
               "tile comes onto it, run the disc self-test: the disc and the magnet ring "
               "must both turn"), None)


def extra(view: EvidenceView) -> Ranked:
    test = N_("count the tiles at side {side}: if the wall holds the right number, clean "
              "the count sensor of side {side}; if not, remove the foreign tiles")
    here = view.at_side()
    short_pulse = view.evidence.get("count_lit") is False
    if here is not None and (here.glitches or here.ghost_counts or short_pulse):
        # Counted against itself: this side's own sensor counted a tile that was not
        # there (a count gone too soon for a tile), finished a tile short, and its
        # own leftover came back to it.
        return [COUNT, FOREIGN], test, None
    # A ghost count at another side finished it a tile early: the tile it never took
    # turned up here.
    ghosts = sorted((s for s in view.sides if s.ghost_counts and s.side != view.side),
                    key=lambda s: -s.ghost_counts)
    if not ghosts and view.side is None:
        return [FOREIGN], None, None    # the walls counted by tile: too many of one
    if ghosts:
        return ([at(COUNT, str(ghosts[0].side)), FOREIGN],
                N_("count the tiles in the wall of side {side}: if one is missing, its count "
                   "sensor counted a tile that was not there: clean or replace it; if the "
                   "wall is whole, remove the foreign tiles"), None)
    return [FOREIGN, COUNT], test, None


KINDS = (
    FaultKind(TILES_MISSING, "E50", ERROR,
              N_("tiles stopped arriving before the set was complete"),
              (N_("a tile left on the table"),
               N_("a tile stuck on the disc"),
               N_("a tile without magnetism")),
              (N_("look for tiles on the table and disc"), N_("top up with both lift keys")),
              short=N_("tiles missing"), scope=BUILD, answer=REFEED, topped_up=True,
              rule=missing,
              symptoms=("build_never_finishes", "wrong_tile_count"),
              sees="arrivals stop before the set is complete",
              clears="players top up (both lift keys) or technician clears"),
    FaultKind(EXTRA_TILES, "E51", ERROR, N_("more tiles than the set holds"),
              (N_("mixed sets"), N_("a foreign tile")),
              (N_("remove the extra tiles"),),
              short=N_("extra tiles"), scope=BUILD, untrusts_count=True, answer=REFEED,
              rule=extra, symptoms=("wrong_tile_count",),
              sees="more tiles counted than the set holds"),
    FaultKind("build.slow", "W52", WARNING, N_("tiles arrive far slower than usual"),
              (N_("magnet ring misplaced"), N_("rubber strip loose"), N_("flip spring worn")),
              (N_("check the magnet ring"), N_("check the rubber strip and flip spring")),
              short=N_("slow build"), symptoms=("build_never_finishes",),
              sees="builds far slower than learned, in 2 of the last 3"),
)
