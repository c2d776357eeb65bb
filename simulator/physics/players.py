"""Simulated players: they play a hand, feed the played set back, and throw the dice.

They act only on what players at a real table see and do: the ready lamp, the lid,
the walls rising, the dice shown on the display, and the panel keys. Like people, they
try again when the table does not respond (a key pressed during a fault, say).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import rules
from mjtable_core.clock import Clock
from mjtable_core.config import Config
from mjtable_core.signals import Value
from simulator.physics.table import SimTable

PATIENCE_S = 60.0     # players try again after this long without anything happening
# The table asks for a refeed (rF): the players push the half-built set back, then hold
# both lift keys this long (the table asks for 2 s: a brush of both is not an answer).
REFEED_HOLD_S = 3.0
# What the display shows in test mode: "t-", "t3" while test 3 runs, "3P"/"3F" after it.
TEST_MODE_DISPLAY = re.compile(r"t(-|\d+)|\d+[PF]")


class SimPlayers:
    def __init__(self, table: SimTable, clock: Clock, config: Config) -> None:
        self.table = table
        self.clock = clock
        self.sim = config.simulator
        self.variant = rules.load_variant(config.rules.variant, dict(config.rules.overrides))
        self.rng = random.Random(f"players-{table.seed}")
        self.dealer = 0
        self.throws: list[list[int]] = []
        self.pending_seat: int | None = None
        # First use: set B is in the players' hands; feed it when set A is ready.
        self.phase = "want_lift"
        self.hands_played = 0
        self.leave_behind = 0     # injected: tiles forgotten on the table at the next push
        self.foreign = 0          # injected: tiles of another set pushed in
        self.topping_up = False
        self.top_up_wanted = False    # asked while the dice are still to throw
        self._top_up_at = 0.0
        self._progress = 0
        # The dice shown before the display said something else (E80 while the host
        # was silent, a fault's code): the same dice shown again is no new throw.
        self._dice_shown: list[int] = []
        self._covered: list[int] | None = None
        self._shown: object = object()      # the display last read for test mode
        self._test_mode = False
        self.refeeding = False      # answering an rF: hands off the keys meanwhile
        self.refeeds = 0            # refeeds the players did themselves
        # The changes players react to (_on_change): every other change at the table,
        # a tile counted, a cam leaving home, is nothing to them.
        self._heeded = frozenset({"display", "dice.spin", "lid.upper", "lamp.ready"} | {
            name for name in table.signals if name.endswith(".plate_home")})
        table.heed(self._on_change, self._heeded)
        self.clock.call_later(PATIENCE_S, self._patience)

    def _later(self, delay: float, action: Callable[[], None]) -> None:
        self.clock.call_later(delay, action)

    def _press(self, key: str) -> None:
        # A technician is testing the table: players keep their hands off the keys
        # (a lift key would start the next test).
        if self.in_test_mode():
            return
        self.table.press(key)

    def in_test_mode(self) -> bool:
        """The display shows test mode, as players at a real table would see."""
        shown = self.table.values["display"]
        if shown != self._shown:    # asked on every change at the table: read anew only
            self._shown = shown     # when the display changed
            self._test_mode = bool(TEST_MODE_DISPLAY.fullmatch(str(shown or "")))
        return self._test_mode

    def _to(self, phase: str) -> None:
        self.phase = phase
        self._progress += 1
        if phase == "playing" and self.top_up_wanted:
            self._later(self.sim.key_delay_s, self.top_up)

    def _on_change(self, name: str, value: Value) -> None:
        if name not in self._heeded or self.in_test_mode():
            return      # a technician's lid test is not the hole opening for them
        phase = self.phase
        if name == "display" and value == "rF" and not self.refeeding:
            # The table cannot prove the count of the set it was building: refeed it.
            self.refeeding = True
            self.topping_up = False
            self._later(self.sim.push_time_s, self._refeed)
        if name == "dice.spin" and value:
            # The dice seen tumbling: what the display shows next is a new throw, even
            # the same faces as before a code covered them.
            self._covered = None
        if self.topping_up:
            if name == "lid.upper" and value:
                self._later(self.sim.push_time_s / 4, self._topped_up)
            return
        if phase == "want_lift" and name == "lamp.ready" and value and not self.refeeding:
            self._ask_lift()    # (while refeeding, the lamp is the refeed's step 2)
        elif phase == "waiting_open" and name == "lid.upper" and value:
            self._to("pushing")
            self._later(self.sim.push_time_s, self._pushed)
        elif (phase == "waiting_walls" and name.endswith(".plate_home") and value
              and self.table.walls_up()):
            self._to("throwing")
            self.throws = []
            self.pending_seat = self.dealer
            self._later(self.sim.key_delay_s, self._first_throw)
        elif name == "display":
            if phase == "throwing":
                self._on_display(value)
            self._remember(value)

    def _remember(self, value: Value) -> None:
        faces = _faces(value)
        if faces:
            self._covered = None
            self._dice_shown = faces
        elif str(value or "")[:1].isalpha() and self._dice_shown:
            self._covered = self._dice_shown    # a code (E80, rF) over the dice shown
        elif value:
            # The dice spinning ("--"): a new throw; the faces before are gone (a code
            # over the spin covers no dice: the same faces after it are a throw).
            self._covered = None
            self._dice_shown = []

    def _on_display(self, value: Value) -> None:
        faces = _faces(value)
        if faces and faces == self._covered:
            return          # the same dice back after a code: nobody threw
        if faces:
            self.throws.append(faces)
            request = rules.next_throw(self.variant, self.dealer, self.throws)
            if request is None:
                self.pending_seat = None
                self._to("playing")
                self._later(self.sim.play_time_s, self._hand_over)
            else:
                self._throw(request.thrower_position)
        elif value == "" and self.pending_seat is not None:
            # The display cleared after a fault: the throw is wanted again.
            self._throw(self.pending_seat)

    def _first_throw(self) -> None:
        # A dealer lamp lit before the dice names the dealer (a scored hand chose it).
        lit = [n for n in self.table.geometry.sides if self.table.values.get(f"lamp.dealer.{n}")]
        if lit:
            self.dealer = self.pending_seat = lit[0]
        self._press(f"key.dice.{self.dealer}")

    def _throw(self, seat: int) -> None:
        self.pending_seat = seat
        self._later(self.sim.key_delay_s, lambda: self._press(f"key.dice.{seat}"))

    def start(self) -> None:
        if self.table.values["lamp.ready"]:
            self._ask_lift()

    def _ask_lift(self) -> None:
        self._to("waiting_open")
        self._later(self.sim.key_delay_s, lambda: self._press("key.lift.0"))

    def _pushed(self) -> None:
        left = self.table.push_into_hole(leave_behind=self.leave_behind)
        self.leave_behind = 0
        if self.foreign:
            self.table.add_foreign_tiles(self.foreign)
            self.foreign = 0
        self._forgotten = left
        self._to("waiting_walls")
        self._later(self.sim.key_delay_s, lambda: self._press("key.lift.1"))

    def _hand_over(self) -> None:
        self.hands_played += 1
        if self.rng.random() >= self.sim.dealer_keeps:
            self.dealer = self.table.geometry.side_after(self.dealer)   # seats are sides
        self._to("want_lift")
        if self.table.values["lamp.ready"]:
            self._ask_lift()

    # -- top-up: both lift keys, add the forgotten tiles, one key --------------------

    def top_up(self) -> None:
        if self.phase in ("waiting_walls", "throwing"):
            # The table tops up in play (its lift keys wait for the hand): players
            # asked while the walls rise or the dice are due throw first, then top up.
            self.top_up_wanted = True
            return
        self.top_up_wanted = False
        self.topping_up = True
        self._top_up_at = self.clock.now()
        self.table.press("key.lift.0")
        self.table.press("key.lift.1")

    def _topped_up(self) -> None:
        self.table.push_loose()
        self.topping_up = False
        self._later(self.sim.key_delay_s, lambda: self._press("key.lift.0"))

    # -- a refeed the table asks for: push the set back, hold both lift keys -------------

    def _refeed(self) -> None:
        if self.table.values["display"] != "rF" or self.in_test_mode():
            self.refeeding = False      # answered meanwhile (a technician), or asked no more
            return
        self.table.refeed()
        self.refeeds += 1
        self.table.press("key.lift.0", hold_s=REFEED_HOLD_S)
        self.table.press("key.lift.1", hold_s=REFEED_HOLD_S)
        self._later(REFEED_HOLD_S + self.sim.key_delay_s, self._refed)

    def _refed(self) -> None:
        self.refeeding = False
        if self.table.values["display"] == "rF":
            # Still asked (the keys went unheard: a fault held the table): again later.
            self.refeeding = True
            self._later(PATIENCE_S / 2, self._refeed)
            return
        self._progress += 1
        if self.phase == "want_lift" and self.table.values["lamp.ready"]:
            self._ask_lift()

    # -- patience -------------------------------------------------------------------

    def _patience(self) -> None:
        """Nothing happened for a while: do again what the table seems to wait for."""
        seen = self._progress
        lid = self.table.lid
        if self.topping_up and self.table.values["display"] == "rF":
            # The table asks for the whole set to be refed: a top-up is moot, and the
            # players leave it to the technician.
            self.topping_up = False
        elif (self.topping_up and not self.table.physical["lid.upper"] and not lid.direction
                and self.clock.now() - self._top_up_at >= PATIENCE_S):
            # The lid never opened for the top-up (the keys went unheard, the power
            # was off): press both again, as players at the table would.
            self._top_up_at = self.clock.now()
            self.table.press("key.lift.0")
            self.table.press("key.lift.1")
        elif not self.topping_up and seen == getattr(self, "_seen", None):
            values = self.table.values
            if self.phase in ("want_lift", "waiting_open") and values["lamp.ready"]:
                self._ask_lift()
            elif self.phase == "waiting_walls" and self.table.walls_up():
                self._to("throwing")
                self.throws = []
                self._throw(self.dealer)
            elif self.phase == "waiting_walls" and self.table.physical["lid.upper"]:
                self._press("key.lift.1")
            elif (self.phase == "waiting_walls" and values["lamp.ready"]
                  and self.table.physical["lid.lower"] and not any(self.table.walls)):
                # The table restarted (a power cut) with the lid down and no walls: it
                # waits for a lift key, as after any hand.
                self._press("key.lift.0")
            elif self.phase == "throwing" and self.pending_seat is not None:
                self._throw(self.pending_seat)
            elif self.phase in ("playing", "want_lift") and self.table.physical["lid.upper"]:
                # The hole still open after a top-up: the key that closes it was
                # pressed while a fault held the table and went unheard. Press again.
                self._press("key.lift.0")
        self._seen = self._progress
        self.clock.call_later(PATIENCE_S, self._patience)


def _faces(value: Value) -> list[int]:
    """Dice faces as the display shows them ("3-5"), or [] for anything else."""
    parts = str(value or "").split("-")
    return [int(p) for p in parts] if all(p.isdigit() for p in parts) else []
