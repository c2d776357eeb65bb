"""What every HAL backend offers the firmware.

The firmware sees named signals only. A backend reports input changes through the
listener it was given, always from inside the firmware's loop (a backend with its own
threads posts through the clock), and turns every motor off in `safe_state`.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Protocol

from hal.armed import Capabilities, OnStopped, StopSpec
from mjtable_core.signals import Signal, Value

# (signal name, new value) — the time is the clock's now() when it is delivered.
Listener = Callable[[str, Value], None]


class HalError(RuntimeError):
    """A backend cannot be used; the message says why and what to do."""


class Outputs(Protocol):
    def write(self, name: str, value: Value) -> None:
        """Drive an output signal (motor, lamp, buzzer, display)."""
        ...

    def safe_state(self, outputs: Collection[str] | None = None) -> None:
        """Every motor off, buzzer off; or only `outputs` (a scope's stop: the build's
        motors). Either way nothing sent before it may start what it stops (a board
        behind a noisy link fences it). Idempotent; must not raise."""
        ...


class Inputs(Protocol):
    def read(self, name: str) -> Value:
        """Current value of any signal, input or output."""
        ...

    def listen(self, listener: Listener) -> None:
        """Deliver every later input change to `listener`, inside the loop."""
        ...


class ArmedStops(Protocol):
    """Motions a sensor ends, stopped where the pin is (hal/armed.py)."""

    capabilities: Capabilities

    def arm(self, spec: StopSpec, on_stopped: OnStopped) -> None:
        """Drive `spec.output` at `spec.value` now and stop it by the backend's own
        means on `spec.input`; `on_stopped` is called once, inside the loop. A write to
        the output, another arm on it or safe_state ends it as cancelled."""
        ...

    def cancel(self, output: str) -> None:
        """End `output`'s armed stop (reported as cancelled); the output goes safe."""
        ...

    def changed_at(self, name: str) -> float | None:
        """When input `name` last changed by the pin's own time (capabilities.board_time),
        else None: the loop's time of delivery stands."""
        ...


class Hal(Outputs, Inputs, ArmedStops, Protocol):
    signals: Mapping[str, Signal]

    def entropy(self) -> tuple[random.Random, str]:
        """A random source for dice and nonces, and its label for the handoff.

        Real backends give the OS CSPRNG ("electronic"); only the simulator's backend
        gives a seeded source ("simulated").
        """
        ...

    def close(self) -> None:
        """Leave every output safe and release the hardware."""
        ...


def drive_safe(signals: Mapping[str, Signal], write: Callable[[str, Value], None],
               outputs: Collection[str] | None = None) -> None:
    """Every motor and the buzzer (or only `outputs`) to its safe level through
    `write`: the one `safe_state` of a backend that writes signal by signal. A write
    that fails does not keep the others from being made safe, and nothing is raised."""
    names = [s.name for s in signals.values() if s.made_safe] if outputs is None else outputs
    for name in names:
        with contextlib.suppress(Exception):
            write(name, signals[name].safe_value)


@dataclass
class OpenedHal:
    """A backend opened for a table, and what the daemon must know about it."""

    hal: Hal
    backend: str
    description: str
    # Starts whatever lives outside the firmware (the simulated players); may be a no-op.
    start_world: Callable[[], None] = lambda: None
    # The machine outlives this process (a real table): its journal must be on disk.
    # The built-in simulator is born again with every run, and so is its journal.
    persistent: bool = True
    # The board's handshake. From it on, the board expects our heartbeats within its
    # limit (0.5 s), so the daemon calls it last, just before the table starts.
    connect: Callable[[], None] = lambda: None
