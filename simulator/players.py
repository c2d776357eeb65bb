"""Simulated players: they play a hand, feed the played set back, and throw the dice.

They act only on what players at a real table see and do: the ready lamp, the lid,
the walls rising, the dice shown on the display, and the panel keys.
"""

from __future__ import annotations

import random

import rules
from firmware.clock import Clock
from firmware.config import Config
from hal.signals import Value
from simulator.table import SimTable


class SimPlayers:
    def __init__(self, table: SimTable, clock: Clock, config: Config) -> None:
        self.table = table
        self.clock = clock
        self.sim = config.simulator
        self.variant = rules.load_variant(config.rules.variant, dict(config.rules.overrides))
        self.rng = random.Random(f"players-{table.seed}")
        self.dealer = 0
        self.throws: list[list[int]] = []
        # First use: set B is in the players' hands; feed it when set A is ready.
        self.phase = "want_lift"
        self.hands_played = 0
        table.observers.append(self._on_change)

    def _later(self, delay: float, action) -> None:
        self.clock.call_later(delay, action)

    def _press(self, key: str) -> None:
        self.table.press(key)

    def _on_change(self, name: str, value: Value) -> None:
        phase = self.phase
        if phase == "want_lift" and name == "lamp.ready" and value:
            self._ask_lift()
        elif phase == "waiting_open" and name == "lid.upper" and value:
            self.phase = "pushing"
            self._later(self.sim.push_time_s, self._pushed)
        elif (phase == "waiting_walls" and name.endswith(".plate_home") and value
              and self.table.walls_up()):
            self.phase = "throwing"
            self.throws = []
            self._later(self.sim.key_delay_s, lambda: self._press(f"key.dice.{self.dealer}"))
        elif phase == "throwing" and name == "display" and _faces(value):
            self.throws.append(_faces(value))
            request = rules.next_throw(self.variant, self.dealer, self.throws)
            if request is None:
                self.phase = "playing"
                self._later(self.sim.play_time_s, self._hand_over)
            else:
                seat = request.thrower_position
                self._later(self.sim.key_delay_s, lambda: self._press(f"key.dice.{seat}"))

    def start(self) -> None:
        if self.table.values["lamp.ready"]:
            self._ask_lift()

    def _ask_lift(self) -> None:
        self.phase = "waiting_open"
        self._later(self.sim.key_delay_s, lambda: self._press("key.lift.0"))

    def _pushed(self) -> None:
        self.table.push_into_hole()
        self.phase = "waiting_walls"
        self._later(self.sim.key_delay_s, lambda: self._press("key.lift.1"))

    def _hand_over(self) -> None:
        self.hands_played += 1
        if self.rng.random() >= self.sim.dealer_keeps:
            self.dealer = (self.dealer + 1) % 4
        self.phase = "want_lift"
        if self.table.values["lamp.ready"]:
            self._ask_lift()


def _faces(value: Value) -> list[int]:
    """Dice faces as the display shows them ("3-5"), or [] for anything else."""
    parts = str(value or "").split("-")
    return [int(p) for p in parts] if all(p.isdigit() for p in parts) else []
