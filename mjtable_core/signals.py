"""The table's named signals (docs/mechanics.md): what each is and which way it goes.

Names are the contract between firmware, backends, simulator and console. Wiring a
name to a pin or a board channel is config, never code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cached_property

from mjtable_core.geometry import REFERENCE, Geometry

# Lid motor commands; every other motor is on/off.
LID_UP, LID_DOWN, LID_OFF = "up", "down", "off"


class Kind(Enum):
    MOTOR = "motor"          # bool: on/off
    LID_MOTOR = "lid_motor"  # "up" / "down" / "off"
    LAMP = "lamp"            # bool
    BUZZER = "buzzer"        # bool
    DISPLAY = "display"      # short text for the 7-segment display
    SENSOR = "sensor"        # bool, True = active
    KEY = "key"              # bool, True = pressed
    READER = "reader"        # tile code or None (RFID/camera at a head)


OUTPUT_KINDS = frozenset({Kind.MOTOR, Kind.LID_MOTOR, Kind.LAMP, Kind.BUZZER, Kind.DISPLAY})

Value = bool | str | None


@dataclass(frozen=True)
class Signal:
    name: str
    kind: Kind
    doc: str

    # What follows from the kind is asked on every command and edge: worked out once
    # per signal (cached_property keeps it in the instance, past the frozen fields).
    @cached_property
    def is_output(self) -> bool:
        return self.kind in OUTPUT_KINDS

    @cached_property
    def is_motor(self) -> bool:
        return self.kind in (Kind.MOTOR, Kind.LID_MOTOR)

    @cached_property
    def safe_value(self) -> Value:
        """What the output is driven to in the safe state."""
        if self.kind is Kind.LID_MOTOR:
            return LID_OFF
        if self.kind is Kind.DISPLAY:
            return ""
        return False

    @property
    def rest_value(self) -> Value:
        """Its value before anything happens: outputs safe, readers empty, inputs off."""
        if self.is_output:
            return self.safe_value
        return None if self.kind is Kind.READER else False

    @property
    def made_safe(self) -> bool:
        """Driven by `safe_state`: every motor, and the buzzer."""
        return self.is_motor or self.kind is Kind.BUZZER


def motors_off(signals: Mapping[str, Signal], values: Mapping[str, Value]) -> bool:
    """Whether every motor in `values` is off."""
    return all(values[s.name] == s.safe_value for s in signals.values() if s.is_motor)


def catalogue(tile_reader: bool = False, face_up_sensor: bool = False,
              geometry: Geometry = REFERENCE, case_contacts: int = 1) -> dict[str, Signal]:
    """Every signal of a table of `geometry`; optional sensors only when fitted.

    `case_contacts` 2: the case switch's normally-closed contact on its own input
    (`case_open_nc`, active when that contact reports the case open), as safety
    interlocks are wired; any disagreement with `case_open` is a fault."""
    out: list[Signal] = [
        Signal("motor.lid", Kind.LID_MOTOR, "centre lid lift"),
        Signal("motor.disc", Kind.MOTOR, "shuffle disc"),
        Signal("motor.ring", Kind.MOTOR, "magnet ring"),
        Signal("motor.dice", Kind.MOTOR, "dice tumbler"),
        Signal("lamp.ready", Kind.LAMP, "a staged set is ready"),
        Signal("lamp.building", Kind.LAMP, "a set is being built"),
        Signal("buzzer", Kind.BUZZER, "panel buzzer"),
        Signal("display", Kind.DISPLAY, "7-segment display"),
        Signal("lid.upper", Kind.SENSOR, "lid at its upper stop"),
        Signal("lid.lower", Kind.SENSOR, "lid at its lower stop"),
        Signal("dice.spin", Kind.SENSOR, "IR sees the dice tumbling"),
        Signal("key.lift.0", Kind.KEY, "lift key 0"),
        Signal("key.lift.1", Kind.KEY, "lift key 1 (diagonal)"),
        Signal("reset", Kind.KEY, "reset switch"),
        Signal("case_open", Kind.SENSOR, "case tamper switch"),
    ]
    if case_contacts == 2:
        out.append(Signal("case_open_nc", Kind.SENSOR,
                          "case switch, normally-closed contact (active: reports open)"))
    for n in geometry.sides:
        out += [
            Signal(f"lamp.dealer.{n}", Kind.LAMP, f"dealer lamp at seat {n}"),
            Signal(f"key.dice.{n}", Kind.KEY, f"dice key at seat {n}"),
            Signal(f"motor.side.{n}.conveyor", Kind.MOTOR, f"conveyor of side {n}"),
            Signal(f"motor.side.{n}.head", Kind.MOTOR, f"stacking head cam of side {n}"),
            Signal(f"motor.side.{n}.plate", Kind.MOTOR, f"wall lift plate cam of side {n}"),
            Signal(f"side.{n}.full", Kind.SENSOR, f"belt of side {n} full"),
            Signal(f"side.{n}.count", Kind.SENSOR, f"tile at the head of side {n}"),
            Signal(f"side.{n}.head_home", Kind.SENSOR, f"head cam of side {n} at home"),
            Signal(f"side.{n}.plate_home", Kind.SENSOR, f"plate cam of side {n} at home"),
        ]
        if face_up_sensor:
            out.append(Signal(f"side.{n}.face_up", Kind.SENSOR, f"face-up tile at head {n}"))
        if tile_reader:
            out.append(Signal(f"side.{n}.tile_id", Kind.READER, f"tile read at head {n}"))
    return {s.name: s for s in out}
