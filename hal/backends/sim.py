"""HAL backend wired to the in-process simulator.

The only fakes of the firmware's world live here and in `simulator/`: outputs go to
the physical model, input changes come back from it inside the same loop, and the
random source is the simulation's seed instead of the OS CSPRNG.
"""

from __future__ import annotations

import random

from hal.interface import Listener
from hal.signals import Signal, Value
from simulator.table import SimTable


class SimHal:
    def __init__(self, table: SimTable) -> None:
        self.table = table
        self.signals: dict[str, Signal] = table.signals
        # A separate stream from the physics, so firmware draws do not shift the table.
        self._entropy = random.Random(f"mjtable-dice-{table.seed}")

    def write(self, name: str, value: Value) -> None:
        self.table.command(name, value)

    def read(self, name: str) -> Value:
        return self.table.values[name]

    def listen(self, listener: Listener) -> None:
        self.table.listener = listener

    def safe_state(self) -> None:
        for signal in self.signals.values():
            if signal.made_safe:
                self.table.command(signal.name, signal.safe_value)

    def entropy(self) -> tuple[random.Random, str]:
        return self._entropy, "simulated"

    def close(self) -> None:
        self.safe_state()
