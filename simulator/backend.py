"""The `sim` HAL backend: the firmware's signals wired to the in-process simulator.

Registered as entry point `sim` in group `mjtable.hal_backends`, so the HAL never
imports the simulator. The only fakes of the firmware's world live here and in
`simulator/`: outputs go to the physical model, input changes come back from it inside
the same loop, and the random source is the simulation's seed instead of the OS CSPRNG.
"""

from __future__ import annotations

import random

from hal.interface import Listener, OpenedHal, drive_safe
from mjtable_core.clock import Clock
from mjtable_core.config import Config
from mjtable_core.i18n import _
from mjtable_core.signals import Signal, Value
from simulator.players import SimPlayers
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
        drive_safe(self.signals, self.table.command)

    def entropy(self) -> tuple[random.Random, str]:
        return self._entropy, "simulated"

    def close(self) -> None:
        self.safe_state()


def open_backend(config: Config, clock: Clock, seed: int | None = None) -> OpenedHal:
    """The simulated table and its simulated players (entry point `sim`)."""
    table = SimTable(config, clock, seed)
    players = SimPlayers(table, clock, config)
    return OpenedHal(SimHal(table), "sim",
                     _("built-in simulator (seed {seed}, simulated players)").format(
                         seed=table.seed),
                     players.start, persistent=False)
