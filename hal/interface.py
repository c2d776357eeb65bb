"""What every HAL backend offers the firmware.

The firmware sees named signals only. A backend reports input changes through the
listener it was given, always from inside the firmware's loop (a backend with its own
threads posts through the clock), and turns every motor off in `safe_state`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Protocol

from hal.signals import Signal, Value

# (signal name, new value) — the time is the clock's now() when it is delivered.
Listener = Callable[[str, Value], None]


class HalError(RuntimeError):
    """A backend cannot be used; the message says why and what to do."""


class Outputs(Protocol):
    def write(self, name: str, value: Value) -> None:
        """Drive an output signal (motor, lamp, buzzer, display)."""
        ...

    def safe_state(self) -> None:
        """Every motor off, buzzer off. Idempotent; must not raise."""
        ...


class Inputs(Protocol):
    def read(self, name: str) -> Value:
        """Current value of any signal, input or output."""
        ...

    def listen(self, listener: Listener) -> None:
        """Deliver every later input change to `listener`, inside the loop."""
        ...


class Hal(Outputs, Inputs, Protocol):
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
