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
  others filled: that side's conveyor or its count sensor, then the disc or the ring
  (they fed that side too); a few tiles short: tiles left on the table.

Each suspect names the `part` a technician repairs (a signal or motor name, or the
place of a jam) and its cause in the trade's words. Where more than one stays
possible, `test` says the one check that tells them apart, and `self_test` names the
console's self-test that runs it (`mjtable console test NAME`).

Each kind's evidence rule is written in its family's module (firmware/faults/kinds/) and
reads a view of the evidence built here; the board's interlock, which may stop any
motion, is read here before any rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from firmware.faults.kinds.evidence import Ranked, SideView, at, side_in
from firmware.faults.kinds.lid import LID_BLOCKED, LID_MOTOR, LOWER_DARK_TEST, lid_sensor
from firmware.faults.kinds.plate import PLATE_MOTOR, PLATE_SENSOR_GLITCH
from firmware.faults.kinds.table import CASE_OPENED, CASE_SWITCH
from firmware.i18n import N_
from firmware.machines.supervisor import MIN_TRAVEL

if TYPE_CHECKING:
    from firmware.diagnosis.table import Evidence
    from firmware.faults.kinds import Fault


def rank(fault: Fault, ctl: Evidence) -> dict[str, Any] | None:
    """The ranked suspects of `fault` from its evidence, the test that tells them apart
    and its self-test; None for a fault whose catalogue causes say it all."""
    rule = fault.kind.rule
    if rule is None:
        return None
    # The board's interlock stopped the motor: the input it read is the evidence,
    # whatever the motion was (a plate stopped by a lower lid stop that went out).
    suspects, test, self_test = _interlocked(fault) or rule(TableEvidence(fault, ctl))
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
        extra["test_side"] = next((s for s in map(side_in, parts) if s), side)
        if self_test is not None:
            extra["self_test"] = self_test.replace("{side}", extra["test_side"])
    return extra


def verdict(fault: Fault, ctl: Evidence) -> dict[str, Any] | None:
    """The cause `fault`'s evidence decides between two that look alike, as its kind's
    family says (`FaultKind.verdict`); None for a kind that has no such rule."""
    decide = fault.kind.verdict
    return None if decide is None else decide(TableEvidence(fault, ctl))


class TableEvidence:
    """The view an evidence rule reads (firmware/faults/kinds/evidence.py): `fault` and
    the table, read as the rule asks."""

    def __init__(self, fault: Fault, ctl: Evidence) -> None:
        self._fault = fault
        self._ctl = ctl

    @property
    def where(self) -> str:
        return self._fault.where

    @property
    def side(self) -> int | None:
        return self._fault.side

    @property
    def evidence(self) -> Mapping[str, Any]:
        return MappingProxyType(self._fault.evidence)

    @property
    def tiles_per_side(self) -> int:
        return self._ctl.config.tiles_per_side

    @property
    def table_sides(self) -> int:
        return len(self._ctl.geometry.sides)

    @property
    def sides(self) -> tuple[SideView, ...]:
        return tuple(SideView(s.side, s.has_reader, s.unseen_reads, s.glitches,
                              s.ghost_counts()) for s in self._ctl.sides)

    @property
    def min_travel(self) -> float:
        return MIN_TRAVEL

    @property
    def count_lit(self) -> bool:
        count = f"side.{self._fault.side}.count"
        hal = self._ctl.hal
        return self._fault.side is not None and count in hal.signals and bool(hal.read(count))

    def face_up_sensor_suspected(self) -> bool:
        return self._ctl.face_up.sensor_suspected(self._fault, self._ctl)

    def at_side(self) -> SideView | None:
        return self.sides[self._fault.side] if self._fault.side is not None else None


def _interlocked(fault: Fault) -> Ranked | None:
    """The board's interlock stopped the motor: the inputs it read as forbidding are
    the suspects (a plate home switch that opened, the case switch), not the motion."""
    blocked = fault.evidence.get("interlock") or {}
    plates = [at(PLATE_SENSOR_GLITCH, side) for side in map(side_in, sorted(blocked))
              if side is not None]
    if not plates and "lid.lower" in blocked:
        return [lid_sensor("lid.lower", False), LID_BLOCKED, LID_MOTOR], LOWER_DARK_TEST, "lid"
    if not plates:
        return ([CASE_SWITCH, CASE_OPENED], None, None) if "case_open" in blocked else None
    motors = [at(PLATE_MOTOR, part.split(".")[1]) for part, _cause in plates]
    return ([*plates, *motors],
            N_("watch the plate home switch of side {side} in the signal view while the "
               "plate stands at home: if its light goes out, replace the switch; if the "
               "plate has moved off home, run the plate self-test"), "plate.{side}")
