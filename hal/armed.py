"""Armed stops: the HAL's contract for a motion that a sensor ends, and its engine for
backends that own their pins.

The firmware arms a stop ("run `output` at `value`; stop it when `input` reaches
`level`, on the `edges`-th arrival, held `confirm_s`; give up after `max_s`") and the
backend stops the motor where the pin is — on the I/O board (protocol 3), in the GPIO
callback thread (rpigpio), in the instant of the simulator's edge (sim) — then reports
once, inside the loop, when and why. The firmware's supervisor keeps its own timeouts
as a second line. The stop logic itself is the board's (`board/stops.py`): one
implementation on the board, in the simulator and on a Pi's own GPIO.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from operator import itemgetter

from board.stops import ArmedStop
from mjtable_core.clock import Clock, Timer
from mjtable_core.signals import Signal, Value


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do, declared once instead of probed with getattr."""

    armed_stops: bool = False   # arm()/cancel() stop a motor at the pin, not in the loop
    board_time: bool = False    # changed_at() gives an input change's own time
    link: bool = False          # a link that can be lost: on_link_fault, on_link_back,
    #                             on_link_resumed, link_lost, link_in_doubt()
    interlocks: bool = False    # its own interlocks stop outputs by themselves: cut_by()


class StopReason(Enum):
    EDGE = "edge"               # the input reached its level (edges, dwell)
    MAX_TIME = "max_time"       # max_s passed first
    INTERLOCK = "interlock"     # an interlock refused or stopped the output
    CANCELLED = "cancelled"     # cancel(), a write or safe_state on the output


# A spec and a report are made at every turn and travel. Frozen, they stay; but a frozen
# dataclass's own __init__ sets each field through object.__setattr__, more than twice
# the cost of filling the instance's dict at once: the __init__s below do that, with
# the fields' defaults (equality, hash, repr and replace() are the dataclass's own).


@dataclass(frozen=True, init=False)
class StopSpec:
    output: str
    value: Value
    input: str
    level: Value
    edges: int = 0              # 0: the level alone ends it
    blank_s: float = 0.0        # arrivals this soon after the start do not count
    confirm_s: float = 0.0      # the level must hold this long
    max_s: float = 0.0          # give up after this long (0: never)

    def __init__(self, output: str, value: Value, input: str, level: Value,
                 edges: int = 0, blank_s: float = 0.0, confirm_s: float = 0.0,
                 max_s: float = 0.0) -> None:
        self.__dict__.update(output=output, value=value, input=input, level=level,
                             edges=edges, blank_s=blank_s, confirm_s=confirm_s, max_s=max_s)


@dataclass(frozen=True, init=False)
class StopReport:
    spec: StopSpec
    reason: StopReason
    at: float                   # when the motor was stopped, on the loop's clock
    inputs: Mapping[str, Value]  # the inputs at that instant

    def __init__(self, spec: StopSpec, reason: StopReason, at: float,
                 inputs: Mapping[str, Value]) -> None:
        self.__dict__.update(spec=spec, reason=reason, at=at, inputs=inputs)


class Readings(Mapping[str, Value]):
    """The inputs at a stop, as a mapping: their names and the tuple of their values
    read then, made a dict only when asked. Every turn and travel ends in a stop and
    its report; the report's inputs are looked into only for an interlock's stop."""

    __slots__ = ("_dict", "_names", "_values")

    def __init__(self, names: tuple[str, ...], values: tuple[Value, ...]) -> None:
        self._names = names
        self._values = values
        self._dict: dict[str, Value] | None = None

    def _readings(self) -> dict[str, Value]:
        if self._dict is None:
            self._dict = dict(zip(self._names, self._values, strict=True))
        return self._dict

    def __getitem__(self, name: str) -> Value:
        return self._readings()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return repr(self._readings())


OnStopped = Callable[[StopReport], None]
REASONS = (StopReason.EDGE, StopReason.MAX_TIME, StopReason.INTERLOCK, StopReason.CANCELLED)


class PinStops:
    """Armed stops for a backend that drives its own pins (sim, rpigpio).

    `on_input` is called where the pin changes — the simulator's edge, the GPIO
    library's thread — and stops the motor there; reports reach `on_stopped` through
    `clock.post`, inside the loop. A lock keeps the GPIO thread and the loop apart.
    """

    def __init__(self, clock: Clock, signals: Mapping[str, Signal],
                 write: Callable[[str, Value], None], read: Callable[[str], Value],
                 values: Mapping[str, Value] | None = None) -> None:
        self.clock = clock
        self.signals = signals
        # Read at every stop for its report: the input names, listed once.
        self._inputs = tuple(name for name, signal in signals.items() if not signal.is_output)
        self._write = write
        self._read = read
        # What `read` reads, where the backend keeps it in one mapping: a stop's
        # report then copies the inputs without a call for each.
        self._values = values
        # All the inputs out of that mapping in one call (itemgetter gives a tuple for two
        # or more names).
        self._pick = itemgetter(*self._inputs) if len(self._inputs) > 1 else None
        self._lock = threading.RLock()
        self._armed: dict[str, tuple[StopSpec, ArmedStop, OnStopped]] = {}
        # Each output's pending look (when it is due, board ms, and its timer).
        self._timers: dict[str, tuple[int, Timer]] = {}
        self._seen: dict[str, Value] = {}   # an edge is a change: a bounce back is not one
        # Inputs an armed stop reads, each with the outputs armed on it in the order
        # armed: an edge looks at its own stops only, and an edge of any other input
        # needs no call (a backend may look here first).
        self.watched: dict[str, list[str]] = {}

    def _ms(self) -> int:
        return round(self.clock.now() * 1000)

    def arm(self, spec: StopSpec, on_stopped: OnStopped) -> None:
        with self._lock:
            if spec.output in self._armed:     # cancel(), without taking the lock again
                self._end(spec.output, 3, self._ms(), drive=False)
            now = self._ms()
            stop = ArmedStop(0, spec.output, spec.value, spec.input, spec.level, spec.edges,
                             round(spec.blank_s * 1000), round(spec.confirm_s * 1000),
                             round(spec.max_s * 1000), now)
            self._armed[spec.output] = (spec, stop, on_stopped)
            self.watched.setdefault(spec.input, []).append(spec.output)
            level = self._seen[spec.input] = self._read(spec.input)
            if spec.edges == 0 and level == spec.level:
                stop.reached(now, True)
            self._write(spec.output, spec.value)
            self._settle(spec.output, now)

    def cancel(self, output: str) -> None:
        """End `output`'s armed stop, if any, as cancelled (the caller drives it)."""
        if output not in self._armed:
            return      # every write asks: only the loop arms, so none can appear here
        with self._lock:
            if output in self._armed:
                self._end(output, 3, self._ms(), drive=False)

    def cancel_all(self) -> None:
        with self._lock:
            for output in list(self._armed):
                self._end(output, 3, self._ms(), drive=False)

    def on_input(self, name: str, value: Value, in_loop: bool = True) -> None:
        """An input changed, where the pin is: stop what it ends, now. From another
        thread (`in_loop` False) a dwell's timer is set from inside the loop."""
        if name not in self.watched:       # the hot path: nothing armed on it
            return
        with self._lock:
            if self._seen.get(name, not value) == value:
                return
            self._seen[name] = value
            now = self._ms()
            armed = self._armed
            for output, (spec, stop, _cb) in [(o, armed[o]) for o in self.watched[name]]:
                stop.reached(now, value == spec.level)
                self._settle(output, now, in_loop)

    def _settle(self, output: str, now: int, in_loop: bool = True) -> None:
        armed = self._armed.get(output)
        if armed is None:
            return
        stop = armed[1]
        reason = stop.due(now)
        if reason is not None:
            self._end(output, reason, now)
            return
        due = stop.next_due() if in_loop else None
        pending = self._timers.get(output)
        if pending is not None and due is not None and pending[0] == due:
            return          # already looked for then (a cam leaving: max_s is unchanged)
        if pending is not None:
            del self._timers[output]
            pending[1].cancel()
        if not in_loop:     # timers belong to the loop: look again from there
            self.clock.post(lambda: self._tick(output))
            return
        if due is not None:
            self._timers[output] = (due, self.clock.call_at(due / 1000,
                                                            lambda: self._tick(output)))

    def _tick(self, output: str) -> None:
        with self._lock:
            self._timers.pop(output, None)
            self._settle(output, self._ms())

    def _end(self, output: str, reason: int, now: int, drive: bool = True) -> None:
        spec, _stop, on_stopped = self._armed.pop(output)
        armed_on = self.watched[spec.input]
        armed_on.remove(output)
        if not armed_on:
            del self.watched[spec.input]
        pending = self._timers.pop(output, None)
        if pending is not None:
            pending[1].cancel()
        if drive:
            self._write(output, self.signals[output].safe_value)
        values = self._values
        inputs: Mapping[str, Value]
        if values is not None and self._pick is not None:
            inputs = Readings(self._inputs, self._pick(values))
        elif values is not None:
            inputs = {name: values[name] for name in self._inputs}
        else:
            inputs = {name: self._read(name) for name in self._inputs}
        report = StopReport(spec, REASONS[reason], self.clock.now(), inputs)
        self.clock.post(lambda: on_stopped(report))
