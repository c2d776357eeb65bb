"""The differential diagnosis: the parts that may have caused a fault, ranked by its
evidence, and the one test that tells them apart when the evidence cannot.

A technician drives to the venue with the part the table names, so a part is named
first only when the evidence singles it out:

- a cam (head, plate) that never left home: its motor, driver or fuse — or its home
  sensor stuck active, which looks the same; one that left and never came back: a jam
  first (a stopped or slow motor, a home sensor that never lights, after it); a plate
  found off home while it rested, its motor off and nothing commanded: its home
  switch gone open, not the motor;
- a lid that never left its stop: the lift motor, or the sensor of the stop it rests
  on stuck active; one that left and never arrived: an obstruction or the far sensor;
- every side starving at once: the disc or the ring; one side starving while the
  others filled: that side's conveyor or its count sensor; a few tiles short: tiles
  left on the table.

Each suspect names the `part` a technician repairs (a signal or motor name, or the
place of a jam) and its cause in the trade's words. Where more than one stays
possible, `test` says the one check that tells them apart, and `self_test` names the
console's self-test that runs it (`mjtable console test NAME`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.i18n import N_
from firmware.machines.supervisor import MIN_TRAVEL

if TYPE_CHECKING:
    from firmware.diagnosis.table import Evidence
    from firmware.faults.kinds import Fault

Suspect = tuple[str, str]      # (part, cause msgid with {side})

HEAD_MOTOR = ("motor.side.{side}.head", N_("the head motor of side {side}, its driver or "
                                          "its fuse"))
HEAD_SENSOR_ON = ("side.{side}.head_home", N_("the head home sensor of side {side} stuck "
                                              "active"))
HEAD_SENSOR_OFF = ("side.{side}.head_home", N_("the head home sensor of side {side} never "
                                               "lights"))
HEAD_SENSOR_GLITCH = ("side.{side}.head_home", N_("the head home sensor of side {side} "
                                                   "flickers"))
HEAD_JAM = ("side.{side}.head", N_("a tile jammed in the head of side {side}"))
HEAD_SENSOR_DARK = ("side.{side}.head_home", N_("the head home sensor of side {side} gone "
                                                "dark while the head rested"))
PLATE_MOTOR = ("motor.side.{side}.plate", N_("the plate motor of side {side}, its driver "
                                            "or its fuse"))
PLATE_SENSOR_ON = ("side.{side}.plate_home", N_("the plate home switch of side {side} "
                                                "stuck active"))
PLATE_SENSOR_OFF = ("side.{side}.plate_home", N_("the plate home switch of side {side} "
                                                 "never closes"))
PLATE_SENSOR_GLITCH = ("side.{side}.plate_home", N_("the plate home switch of side {side} "
                                                    "opens while the plate is at home"))
PLATE_JAM = ("side.{side}.plate", N_("debris in the plate rails of side {side}"))
PLATE_SENSOR_DARK = ("side.{side}.plate_home", N_("the plate home switch of side {side} "
                                                  "gone open (dark) while the plate rests"))
PLATE_PUSHED = ("side.{side}.plate", N_("the plate of side {side} pushed off home by hand "
                                        "or by a knock"))
LID_LOWER_DARK = ("lid.lower", N_("the lower lid sensor gone dark while the lid rested "
                                  "down"))
LID_MOTOR = ("motor.lid", N_("the lift motor, its driver or its fuse"))
LID_BLOCKED = ("lid", N_("something blocks the lid"))
DISC = ("motor.disc", N_("the disc motor, its belt or its fuse"))
RING = ("motor.ring", N_("the magnet ring motor or its fuse"))
TABLE = ("table", N_("tiles left on the table"))
CONVEYOR = ("motor.side.{side}.conveyor", N_("the conveyor motor of side {side} or its "
                                            "fuse"))
COUNT = ("side.{side}.count", N_("the count sensor of side {side} (dirty, misaligned or "
                                 "dead)"))
BELT_JAM = ("side.{side}.conveyor", N_("a tile stuck on the belt of side {side}"))
FULL_STUCK = ("side.{side}.full", N_("the belt-full sensor of side {side} stuck active"))
FOREIGN = ("hole", N_("foreign tiles or tiles of the other set"))
DICE_MOTOR = ("motor.dice", N_("the dice motor or its fuse"))
DICE_SENSOR = ("dice.spin", N_("the dice spin sensor stuck"))
DICE_JAM = ("dice", N_("a jam under the dice plate"))
CASE_OPENED = ("case", N_("the case was opened"))
CASE_SWITCH = ("case_open", N_("the case switch stuck open"))
FACE_TILE = ("tile", N_("a tile with a reversed or weak magnet"))
FACE_SENSOR = ("side.{side}.face_up", N_("the face-up sensor of side {side} stuck active"))


def _lid_sensor(name: str, on: bool) -> Suspect:
    which = {"lid.upper": N_("the upper lid sensor stuck active") if on
             else N_("the upper lid sensor never lights"),
             "lid.lower": N_("the lower lid sensor stuck active") if on
             else N_("the lower lid sensor never lights")}
    return name, which[name]


def rank(fault: Fault, ctl: Evidence) -> dict[str, Any] | None:
    """The ranked suspects of `fault` from its evidence, the test that tells them apart
    and its self-test; None for a fault whose catalogue causes say it all."""
    rule = RULES.get(fault.kind.rule or "")
    if rule is None:
        return None
    # The board's interlock stopped the motor: the input it read is the evidence,
    # whatever the motion was (a plate stopped by a lower lid stop that went out).
    suspects, test, self_test = _interlocked(fault) or rule(fault, ctl)
    side = "" if fault.side is None else str(fault.side)
    parts = [part.replace("{side}", side) for part, _cause in suspects]
    extra: dict[str, Any] = {
        "suspects": [{"part": part, "cause": cause}
                     for part, (_p, cause) in zip(parts, suspects, strict=True)],
        "certain": len(suspects) == 1}
    if test is not None and len(suspects) > 1:
        # A build fault has no side: its test is about the side its suspects name.
        # The test is about the first suspect at a side (a build fault has none, and
        # an extra tile may come from another side's count).
        extra["test"] = test
        extra["test_side"] = next((s for s in map(_side_in, parts) if s), side)
        if self_test is not None:
            extra["self_test"] = self_test.replace("{side}", extra["test_side"])
    return extra


Ranked = tuple[list[Suspect], str | None, str | None]


def _side_in(part: str) -> str | None:
    """The side a part is at (`motor.side.2.conveyor`, `side.2.count`), if any."""
    words = part.split(".")
    return next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "side"), None)


def _head(fault: Fault, ctl: Evidence) -> Ranked:
    if fault.evidence.get("home_dark_at_rest"):
        # Home went dark with the head's motor off, and never lit again: a cam at rest
        # does not leave home by itself. The sensor first, described as it failed.
        return ([HEAD_SENSOR_DARK, HEAD_JAM, HEAD_MOTOR],
                N_("turn the cam of side {side} by hand to home and watch the head home "
                   "sensor's light in the signal view: if it stays off, replace the "
                   "sensor; if it lights, look for a jammed tile"), "head.{side}")
    counted = int(fault.evidence.get("counted") or 0)
    if counted and counted > ctl.config.tiles_per_side:
        # More tiles counted than the side holds: the count sensor counted ghosts, and
        # the head was sent for a tile that is not there.
        return ([COUNT, HEAD_MOTOR, HEAD_SENSOR_ON],
                N_("count the stacks of side {side}: if the wall is complete, clean the "
                   "count sensor of side {side}; if not, run the head self-test"),
                "head.{side}")
    if not fault.evidence.get("moved"):
        # A tile jammed before the cam could leave home looks the same, less often.
        return ([HEAD_MOTOR, HEAD_SENSOR_ON, HEAD_JAM],
                N_("run the head self-test of side {side}: if the cam turns, replace the "
                   "head home sensor; if it does not, check the fuse, the driver, then the "
                   "motor"), "head.{side}")
    return ([HEAD_JAM, HEAD_MOTOR, HEAD_SENSOR_OFF],
            N_("open side {side} and look at the head: remove a jammed tile if there is "
               "one; if the head is clear, run its self-test: a cam that turns slowly or "
               "not at all is the motor, one that turns round while the home light stays "
               "off is the sensor"), "head.{side}")


def _plate(fault: Fault, ctl: Evidence) -> Ranked:
    evidence = fault.evidence
    if evidence.get("found_off_home") and not evidence.get("motor_on"):
        # Off home while it rested, its motor off and nothing commanded: a motor cannot
        # take a plate off home unpowered. The switch went open first; the plate
        # pushed by hand looks the same from here.
        return ([PLATE_SENSOR_DARK, PLATE_PUSHED],
                N_("look at the plate of side {side}: if it stands at home, replace its "
                   "home switch (it has gone open); if it is off home, run the plate "
                   "self-test"), "plate.{side}")
    if not evidence.get("moved"):
        return ([PLATE_MOTOR, PLATE_SENSOR_ON],
                N_("run the plate self-test of side {side}: if the plate rises and falls, "
                   "replace the plate home switch; if it does not, check the fuse, the "
                   "driver, then the motor"), "plate.{side}")
    return ([PLATE_JAM, PLATE_MOTOR, PLATE_SENSOR_OFF],
            N_("look at the plate rails of side {side}: clear any debris; if they are "
               "clear, run the plate self-test: a plate that moves slowly or not at all "
               "is the motor, one that comes round while the home switch stays open is "
               "the switch"), "plate.{side}")


def _interlocked(fault: Fault) -> Ranked | None:
    """The board's interlock stopped the motor: the inputs it read as forbidding are
    the suspects (a plate home switch that opened, the case switch), not the motion."""
    blocked = fault.evidence.get("interlock") or {}
    plates = [_at(PLATE_SENSOR_GLITCH, side) for side in map(_side_in, sorted(blocked))
              if side is not None]
    if not plates and "lid.lower" in blocked:
        return ([_lid_sensor("lid.lower", False), LID_BLOCKED, LID_MOTOR],
                N_("run the lid self-test and watch the lower lid sensor's light in "
                   "the signal view: if it goes out while the lid stays down, replace "
                   "the sensor"), "lid")
    if not plates:
        return ([CASE_SWITCH, CASE_OPENED], None, None) if "case_open" in blocked else None
    motors = [_at(PLATE_MOTOR, part.split(".")[1]) for part, _cause in plates]
    return ([*plates, *motors],
            N_("watch the plate home switch of side {side} in the signal view while the "
               "plate stands at home: if its light goes out, replace the switch; if the "
               "plate has moved off home, run the plate self-test"), "plate.{side}")


def _lid(left: str, toward: str) -> Any:
    def rule(fault: Fault, ctl: Evidence) -> Ranked:
        interlocked = _interlocked(fault)
        if interlocked is not None:
            return interlocked
        if fault.evidence.get("dropped_while"):
            # The lower stop went dark while the lid rested on it, its motor off.
            return ([LID_LOWER_DARK, LID_BLOCKED, LID_MOTOR],
                     N_("run the lid self-test and watch the lower lid sensor's light in "
                        "the signal view: if it goes out while the lid stays down, replace "
                        "the sensor"), "lid")
        if not fault.evidence.get("moved"):
            return ([LID_MOTOR, _lid_sensor(left, True)],
                    N_("run the lid self-test: if the lid moves, replace the sensor of the "
                       "stop it rested on; if it does not, check the fuse, the driver, then "
                       "the lift motor"), "lid")
        return ([LID_BLOCKED, _lid_sensor(toward, False), LID_MOTOR],
                N_("look at the lid: if something blocks it, clear it; if it reached its "
                   "stop and the sensor's light stays off, replace that sensor; if it "
                   "still travels slowly in the lid self-test, the lift motor"), "lid")
    return rule


def _lid_conflict(fault: Fault, ctl: Evidence) -> Ranked:
    changed = fault.evidence.get("changed_last", "lid.upper")
    other = "lid.lower" if changed == "lid.upper" else "lid.upper"
    # The lid driven towards the sensor that just lit, far enough to be there: that one
    # is right, the other stayed lit. At rest, or too soon, the one that lit is the liar.
    travel = fault.evidence.get("travel_s")
    arrived = travel is not None and travel >= MIN_TRAVEL * float(
        fault.evidence.get("learned_s") or 0.0)
    first, second = (other, changed) if arrived else (changed, other)
    return ([_lid_sensor(first, True), _lid_sensor(second, True)],
            N_("with the lid at one stop, look at both lid sensors' lights in the signal "
               "view: the one lit at the wrong stop is stuck; replace it"), "lid")


def _dice(fault: Fault, ctl: Evidence) -> Ranked:
    test = N_("run the dice self-test and watch the dice: if they tumble, replace the "
              "spin sensor; if they do not, clear the dice plate, check the fuse, then "
              "the motor")
    if "spun_s" in fault.evidence:      # they tumbled, then stopped: held
        return [DICE_JAM, DICE_SENSOR, DICE_MOTOR], test, "dice"
    return [DICE_MOTOR, DICE_SENSOR, DICE_JAM], test, "dice"


# The most tiles players leave on the table by mistake: a hand.
HAND = 14


def _missing(fault: Fault, ctl: Evidence) -> Ranked:
    short: dict[str, int] = fault.evidence.get("short_sides") or {}
    sides = [str(n) for n in ctl.geometry.sides]
    missing = int(fault.evidence.get("missing") or 0)
    per_side = ctl.config.tiles_per_side
    heavy = [n for n, count in short.items() if count > 3]
    if fault.evidence.get("arriving") and len(short) >= 2:
        # Out of time while tiles still came (within the stall limit) at several sides:
        # the feed that serves them all turns slowly; tiles left on the table would
        # have stopped the arrivals (the stall limit) instead.
        return ([DISC, RING, *(_at(CONVEYOR, n) for n in sorted(short)), TABLE],
                N_("run the disc self-test: the disc and the magnet ring must both turn "
                   "at full speed; if they do, run the conveyor self-test of each short "
                   "side"), "disc")
    if fault.evidence.get("arriving") and short:
        # Out of time with one side short, tiles still coming: that side's belt or the
        # disc feeding every side slowly (the others just made it) look the same.
        n = next(iter(short))
        return ([_at(CONVEYOR, n), DISC, RING, _at(COUNT, n)],
                N_("run the conveyor self-test of side {side}: a belt that moves slowly "
                   "is its motor; if it runs at full speed, run the disc self-test: the "
                   "disc and the magnet ring must both turn at full speed; if they do, "
                   "clean the count sensor of side {side}"), f"conveyor.{n}")
    # No more missing than a player's hand: tiles left on the table look the same as a
    # belt or a disc that stopped late in the build, and cost no trip to check first.
    left = missing <= HAND
    # Several sides short by more than a few tiles left on the table: the feed that
    # serves them all (a slow disc leaves most sides short, a dead one every side).
    if len(heavy) >= 2 or (short and len(short) == len(sides) and missing >= 2 * len(sides)):
        if left:
            return ([TABLE, DISC, RING],
                    N_("look for tiles left on the table and top up; if none are missing, "
                       "run the disc self-test: the disc and the magnet ring must both "
                       "turn"), "disc")
        return ([DISC, RING, TABLE],
                N_("run the disc self-test: the disc and the magnet ring must both turn; "
                   "if they do, look for tiles left on the table"), "disc")
    if len(heavy) == 1:
        n = heavy[0]
        # The disc feeds every side: stopped while this side was last (others short
        # too), or turning slowly as this side was the last to fill (a slow disc's
        # gaps can outlast the stall limit), it cannot be told from the belt by counts.
        parts = [_at(CONVEYOR, n), _at(COUNT, n), DISC, RING]
        if left:
            return ([TABLE, *parts],
                    N_("look for tiles left on the table and top up; if none are missing, "
                       "run the conveyor self-test of side {side}: if the belt does not "
                       "move, the conveyor motor or its fuse; if it moves and tiles reach "
                       "the head, clean the count sensor of side {side}; if the belt is "
                       "fine, run the disc self-test"), f"conveyor.{n}")
        return ([*parts, TABLE],
                N_("run the conveyor self-test of side {side}: if the belt does not move, "
                   "the conveyor motor or its fuse; if it moves and tiles reach the head, "
                   "clean the count sensor of side {side}; if the belt is fine, run the "
                   "disc self-test"),
                f"conveyor.{n}")
    # The head's reader saw tiles the count missed: that side's count sensor.
    unseen = [str(s.side) for s in ctl.sides
              if s.has_reader and s.unseen_reads > 0 and str(s.side) in short]
    if unseen:
        return [*(_at(COUNT, n) for n in unseen), TABLE], None, None
    # A few short: tiles left on the table first; a count sensor gone dark or a
    # conveyor stopped looks the same from the counts alone.
    suspects = [TABLE]
    for n, count in sorted(short.items()):
        if count > 3 or count >= per_side:
            suspects += [_at(CONVEYOR, n), _at(COUNT, n)]
        else:
            suspects += [_at(COUNT, n), _at(CONVEYOR, n)]
    if len(short) == len(sides):
        suspects += [DISC, RING]
    return (suspects, N_("look for tiles left on the table and top up; if none are "
                         "missing, run the conveyor self-test of each short side and watch "
                         "its head: tiles that reach it without being counted mean its "
                         "count sensor (clean or replace it); a belt that does not move, "
                         "its conveyor"), None)


def _at(suspect: Suspect, side: str) -> Suspect:
    """A suspect at a side other than the fault's (a build fault has none): its cause
    is filled from the side in its part when translated (faults.py)."""
    return suspect[0].replace("{side}", side), suspect[1]


def _blind(fault: Fault, ctl: Evidence) -> Ranked:
    side = ctl.sides[fault.side] if fault.side is not None else None
    count = f"side.{fault.side}.count"
    if side is not None and count in ctl.hal.signals and ctl.hal.read(count):
        # The count sensor still lit with nothing counted: stuck lit, or a tile
        # standing in front of it (the head's odd turns behind it are its effect).
        return ([COUNT, BELT_JAM],
                N_("look at the count sensor of side {side}: if a tile stands in front "
                   "of it, clear the belt; if not and its light stays on, clean or "
                   "replace it"), "conveyor.{side}")
    if fault.evidence.get("head_home_glitches"):
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


def _extra(fault: Fault, ctl: Evidence) -> Ranked:
    test = N_("count the tiles at side {side}: if the wall holds the right number, clean "
              "the count sensor of side {side}; if not, remove the foreign tiles")
    here = ctl.sides[fault.side] if fault.side is not None else None
    short_pulse = fault.evidence.get("count_lit") is False
    if here is not None and (here.glitches or here.ghost_counts() or short_pulse):
        # Counted against itself: this side's own sensor counted a tile that was not
        # there (a count gone too soon for a tile), finished a tile short, and its
        # own leftover came back to it.
        return [COUNT, FOREIGN], test, None
    # A ghost count at another side finished it a tile early: the tile it never took
    # turned up here.
    ghosts = sorted((s for s in ctl.sides if s.ghost_counts() and s.side != fault.side),
                    key=lambda s: -s.ghost_counts())
    if not ghosts and fault.side is None:
        return [FOREIGN], None, None    # the walls counted by tile: too many of one
    if ghosts:
        return ([_at(COUNT, str(ghosts[0].side)), FOREIGN],
                N_("count the tiles in the wall of side {side}: if one is missing, its count "
                   "sensor counted a tile that was not there: clean or replace it; if the "
                   "wall is whole, remove the foreign tiles"), None)
    return [FOREIGN, COUNT], test, None


CASE_NO = ("case_open", N_("the case switch's normally-open contact stuck or its wire "
                          "broken"))
CASE_NC = ("case_open_nc", N_("the case switch's normally-closed contact stuck or its "
                              "wire broken"))


def _contacts(fault: Fault, ctl: Evidence) -> Ranked:
    # The contact that reports open while the other says closed is the one a broken
    # wire would show (an open circuit reads open) — or the other is stuck closed.
    first, second = ((CASE_NC, CASE_NO) if fault.evidence.get("case_open_nc")
                     else (CASE_NO, CASE_NC))
    return ([first, second],
            N_("open and close the case and watch both contacts in the signal view: the "
               "one that does not follow is the fault"), None)


def _case(fault: Fault, ctl: Evidence) -> Ranked:
    return ([CASE_OPENED, CASE_SWITCH],
            N_("close the case and look at the case switch in the signal view: if it "
               "still reads open, replace the switch"), None)


def _drift(fault: Fault, ctl: Evidence) -> Ranked:
    mechanism = str(fault.evidence.get("mechanism", fault.where))
    cam, _dot, n = mechanism.partition(".")
    if cam in ("head", "plate"):
        return [(f"motor.side.{n}.{cam}", N_("the motor wears or the mechanism is stiff")),
                ], None, None
    return [("motor.lid", N_("the motor wears or the mechanism is stiff"))], None, None


def _degraded(fault: Fault, ctl: Evidence) -> Ranked:
    return [(fault.where, N_("a failed position sensor"))], None, None


def _double(fault: Fault, ctl: Evidence) -> Ranked:
    return [COUNT], None, None


def _face_up(fault: Fault, ctl: Evidence) -> Ranked:
    if ctl.face_up.sensor_suspected(fault, ctl):
        return [FACE_SENSOR], None, None
    return ([FACE_TILE, FACE_SENSOR],
            N_("if many tiles of side {side} come face up in one build, the face-up "
               "sensor is stuck: clean or replace it; if one tile comes back, replace that "
               "tile"), None)


# The evidence rules by the name a fault kind gives (`FaultKind.rule`).
COUNT_FLICKER = ("side.{side}.count", N_("the count sensor of side {side} flickers (dirty, "
                                         "loose or failing)"))


FULL_DARK = ("side.{side}.full", N_("the belt-full sensor of side {side} dead or covered "
                                   "(never lights)"))
COUNT_DARK = ("side.{side}.count", N_("the count sensor of side {side} dead or covered "
                                     "(never lights)"))


def _silent(fault: Fault, ctl: Evidence) -> Ranked:
    # The one sensor not seen lit is the evidence.
    full = str(fault.evidence.get("sensor", "")).endswith(".full")
    return [FULL_DARK if full else COUNT_DARK], None, None


def _flaky(fault: Fault, ctl: Evidence) -> Ranked:
    # The edges themselves are the evidence: the sensor they came from, nothing else.
    if str(fault.evidence.get("sensor", "")).endswith(".count"):
        return [COUNT_FLICKER], None, None
    return [HEAD_SENSOR_GLITCH], None, None


RULES = {
    "head": _head,
    "plate": _plate,
    "lid.rising": _lid("lid.lower", "lid.upper"),
    "lid.lowering": _lid("lid.upper", "lid.lower"),
    "lid.conflict": _lid_conflict,
    "dice": _dice,
    "missing": _missing,
    "blind": _blind,
    "double": _double,
    "extra": _extra,
    "silent": _silent,
    "case": _case,
    "contacts": _contacts,
    "drift": _drift,
    "degraded": _degraded,
    "face_up": _face_up,
    "flaky": _flaky,
}
