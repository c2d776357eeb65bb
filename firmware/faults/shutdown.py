"""One shutdown path: every fault, halt, machine error and e-stop goes through here.

The model is a host driving microcontrollers with one idempotent shutdown: the safe
outputs of the affected scope are driven first, every later step runs on its own (one
that fails cannot keep the others from running), and the scope is latched. While a
scope is latched the outputs refuse to start any of its motors — whatever hook, timer
or exit callback asks — until an explicit resume, after the sensors were read again,
releases it. A mechanism's owner (`owner.py`) may still drive the motors it holds: a
technician's jog or self-test is how a latched table is looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, Protocol

from hal.armed import OnStopped, StopSpec
from mjtable_core.signals import Value

if TYPE_CHECKING:
    from hal.interface import Hal

TABLE, BUILD = "table", "build"
# What the recorder notes when every output is driven safe at once.
SAFE_STATE = "safe_state"


def build_motor(name: str) -> bool:
    """Motors a build-only fault stops: disc, ring, conveyors and heads."""
    return name in ("motor.disc", "motor.ring") or name.endswith(
        (".conveyor", ".head"))


class Holders(Protocol):
    """Who holds a mechanism (the owner, firmware/machines/owner.py): its holder may
    still drive the motors it holds."""

    def holds(self, holder: str, motor: str) -> bool: ...


class LatchedOutputs:
    """The HAL as the firmware sees it: inputs pass through; a write that would start a
    motor of a latched scope is refused and reported instead of reaching the table."""

    def __init__(self, hal: Hal) -> None:
        self._hal = hal
        # Read on every edge and turn: the HAL's own, not looked up through __getattr__.
        self.read = hal.read
        self.scopes: set[str] = set()
        self.owner: Holders | None = None
        self.refused: list[tuple[str, Value]] = []
        self.on_refused: Callable[[str, Value], None] | None = None
        # Every command that reaches the HAL, for the flight recorder (recorder.py).
        self.watchers: list[Callable[[str, Value], None]] = []

    def __getattr__(self, name: str) -> Any:
        # Reads, signals, entropy, the board's stamps: the HAL's own.
        return getattr(self._hal, name)

    @property
    def hal(self) -> Hal:
        return self._hal

    def latched(self, name: str) -> bool:
        """Whether motor `name` belongs to a latched scope."""
        return TABLE in self.scopes or (BUILD in self.scopes and build_motor(name))

    def write(self, name: str, value: Value, holder: str | None = None) -> None:
        if not self._refuses(name, value, holder):
            self._hal.write(name, value)
            for watcher in self.watchers:
                watcher(name, value)

    def arm(self, spec: StopSpec, on_stopped: OnStopped, holder: str | None = None) -> bool:
        """An armed stop starts its motor: refused like a write in a latched scope."""
        if self._refuses(spec.output, spec.value, holder):
            return False
        self._hal.arm(spec, on_stopped)
        for watcher in self.watchers:
            watcher(spec.output, spec.value)
        return True

    def _refuses(self, name: str, value: Value, holder: str | None) -> bool:
        if not self.scopes:
            return False    # nothing latched (`latched`): every write and stop of a hand
        signal = self._hal.signals.get(name)
        starts_motor = signal is not None and signal.is_motor and value != signal.safe_value
        if starts_motor and self.latched(name) and not (
                holder is not None and self.owner is not None
                and self.owner.holds(holder, name)):
            self.refused.append((name, value))
            if self.on_refused is not None:
                self.on_refused(name, value)
            return True
        return False

    def safe_state(self, outputs: Collection[str] | None = None) -> None:
        """Every output safe, or a scope's `outputs` only (noted write by write)."""
        self._hal.safe_state(outputs)
        for watcher in self.watchers:
            if outputs is None:
                watcher(SAFE_STATE, True)
            else:
                for name in outputs:
                    watcher(name, self._hal.signals[name].safe_value)


class Shutdown:
    """Latch a scope safe. `invoke` is idempotent: a second fault only adds to the latch."""

    def __init__(self, outputs: LatchedOutputs) -> None:
        self.outputs = outputs
        self.errors: list[str] = []

    @property
    def scopes(self) -> set[str]:
        return self.outputs.scopes

    def invoke(self, scope: str, safe: Callable[[], None],
               *steps: Callable[[], None]) -> None:
        """Latch `scope`, drive it safe with `safe`, then run `steps` one by one.

        Latched first: driving an output safe may itself change an input at once (a
        conveyor stopping lets its belt slide back and empty), and the machine reacting
        to that input must already find its motors refused."""
        self.outputs.scopes.add(scope)
        safe()
        for step in steps:
            try:
                step()
            except Exception as exc:        # one failing step must not stop the rest
                self.errors.append(f"{getattr(step, '__name__', step)}: {exc!r}")

    def release(self) -> None:
        """An explicit resume, after the sensors were read again: motors may start."""
        self.outputs.scopes.clear()
