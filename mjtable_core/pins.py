"""The `[pins]` section: which GPIO line carries each signal (rpigpio backend).

Keys are signal names (quote them in TOML: they contain dots), values a BCM line::

    "motor.disc" = 17                                   # active high, no pull
    "lid.upper"  = { pin = 5, invert = true, pull = "up" }   # switch to ground
    "motor.lid"  = { up = 20, down = 21 }               # two lines: one per direction

`invert` means the line is low when the signal is active (a switch to ground with a
pull-up, or a relay board that switches on a low input). The same typo rules as the
rest of the config hold: an unknown signal or option is an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from mjtable_core.i18n import _
from mjtable_core.schema import ConfigError, load_section, option
from mjtable_core.signals import Kind, Signal, catalogue

# BCM line numbers RPi.GPIO and rpi-lgpio accept. The 40-pin header carries 0–27;
# the board check in the rpigpio backend says which lines a given board really has.
MAX_LINE = 53
PULLS = ("off", "up", "down")
# Needs a driver chip (e.g. TM1637 or MAX7219): a GPIO line cannot show digits.
NOT_ON_GPIO = frozenset({Kind.DISPLAY})
_ALL = catalogue(tile_reader=True, face_up_sensor=True, case_contacts=2)


@dataclass(frozen=True)
class Pin:
    """One signal's wiring: `lines` is (line,) or, for the lid motor, (up, down)."""

    signal: str
    lines: tuple[int, ...]
    invert: bool = False
    pull: str = "off"


@dataclass(frozen=True)
class PinMap(Mapping[str, Pin]):
    pins: dict[str, Pin] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Pin:
        return self.pins[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.pins)

    def __len__(self) -> int:
        return len(self.pins)


@dataclass(frozen=True)
class LineOptions:
    """`"lid.upper" = { pin = 5, invert = true, pull = "up" }`: one line."""

    pin: int = option(minval=0, maxval=MAX_LINE, doc="the BCM line")
    invert: bool = option(False, doc="the line is low when the signal is active")
    pull: str = option("off", choices=PULLS, doc="the Pi's pull resistor (inputs only)")


@dataclass(frozen=True)
class LidLines:
    """`"motor.lid" = { up = 20, down = 21 }`: one line per direction."""

    up: int = option(minval=0, maxval=MAX_LINE, doc="the BCM line that drives the lid up")
    down: int = option(minval=0, maxval=MAX_LINE, doc="the BCM line that drives it down")
    invert: bool = option(False, doc="the lines are low when the motor runs")


def _parse_one(name: str, raw: Any, file: str) -> Pin:
    signal = _ALL.get(name)
    if signal is None:
        raise ConfigError(file, "pins", name,
                          _("unknown signal (the signal names: docs/mechanics.md)"))
    if signal.kind in NOT_ON_GPIO:
        raise ConfigError(file, "pins", name, _("the 7-segment display needs a driver chip, "
                                                "not a GPIO line; leave it out of [pins]"))
    if signal.kind is Kind.READER:
        raise ConfigError(file, "pins", name, _("a tile reader is not a GPIO line; set "
                                                "[table] tile_reader = false or use the "
                                                "ioboard backend"))
    lid = signal.kind is Kind.LID_MOTOR
    if isinstance(raw, int) and not isinstance(raw, bool):
        if lid:
            raise ConfigError(file, "pins", name, _("the lid motor takes two lines: "
                                                    "{ up = N, down = M }"))
        try:   # the short form of { pin = N }: its errors name the signal's own key
            raw = load_section(LineOptions, {"pin": raw}, file, "pins")
        except ConfigError as exc:
            raise ConfigError(file, "pins", name, exc.problem) from None
        return Pin(name, (raw.pin,))
    if not isinstance(raw, dict):
        raise ConfigError(file, "pins", name,
                          _("got {value!r}, expected a BCM line or {{ pin = N, ... }}").format(
                              value=raw))
    # The table's own section, as TOML spells it: [pins."lid.upper"].
    section = f'pins."{name}"'
    if lid:
        lines = load_section(LidLines, raw, file, section)
        return Pin(name, (lines.up, lines.down), lines.invert)
    line = load_section(LineOptions, raw, file, section)
    if line.pull != "off" and signal.is_output:
        raise ConfigError(file, "pins", name,
                          _("an output has no pull resistor; remove pull"))
    return Pin(name, (line.pin,), line.invert, line.pull)


def parse_pins(raw: Any, file: str) -> PinMap:
    """Read `[pins]`; every line used once at most."""
    if not isinstance(raw, dict):
        raise ConfigError(file, "pins", None, _("must be a table (a [pins] section)"))
    pins = {name: _parse_one(name, value, file) for name, value in raw.items()}
    owner: dict[int, str] = {}
    for pin in pins.values():
        for line in pin.lines:
            if line in owner:
                raise ConfigError(file, "pins", pin.signal,
                                  _("BCM line {line} is already used by {signal}").format(
                                      line=line, signal=owner[line]))
            owner[line] = pin.signal
    return PinMap(pins)


def wired_signals(signals: Mapping[str, Signal]) -> list[str]:
    """The signals of a table that must have a GPIO line."""
    return [s.name for s in signals.values() if s.kind not in NOT_ON_GPIO]


def check_complete(pins: PinMap, signals: Mapping[str, Signal], file: str) -> None:
    """Every signal this table has needs a line; lines for signals it lacks are typos."""
    missing = [name for name in wired_signals(signals) if name not in pins]
    if missing:
        raise ConfigError(file, "pins", missing[0],
                          _("no line for {n} signal(s) of this table: {signals}").format(
                              n=len(missing), signals=", ".join(missing)))
    for name, signal in signals.items():
        if signal.kind is Kind.READER:
            raise ConfigError(file, "table", "tile_reader", _(
                "the rpigpio backend cannot read tiles ({signal}); set tile_reader = false "
                "or use ioboard").format(signal=name))
    extra = sorted(set(pins) - set(signals))
    if extra:
        raise ConfigError(file, "pins", extra[0], _("this table has no such signal (is "
                                                    "face_up_sensor or tile_reader off in "
                                                    "[table]?)"))
