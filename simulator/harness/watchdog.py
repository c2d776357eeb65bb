"""The stall watchdog: a table that makes no progress must say why.

Progress is a phase change, a cycle event (build, raise, commit, dice, handoff), or a
tile counted at a head. When none happens for `STALL_BOUND_S` of simulated time while
no stop-fault (code E…) is active, no e-stop or refeed hold asks for a technician,
and the players are not busy (playing a hand, pushing tiles, topping up), the table
is stuck: a stall `{t, cycle, phase, waited_s, display}` is recorded. A stall with
nothing on the display is a silent stall, the worst kind (docs/faults.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware.faults.kinds import ERROR
from mjtable_core.clock import Clock
from mjtable_core.signals import Value
from simulator.harness.table import Driven
from simulator.physics.players import SimPlayers
from simulator.physics.table import SimTable

# Longer than any motion or retry, and than players take to press a key again that
# the table ignored (twice their patience, simulator/physics/players.py).
STALL_BOUND_S = 180.0
CHECK_EVERY_S = 10.0
PROGRESS = frozenset({"start", "phase", "build.started", "build.staged", "raising",
                      "walls.committed", "dice.thrown", "handoff", "top_up", "refeed",
                      "resume_after_fault", "resume"})
PLAYERS_BUSY = frozenset({"playing", "pushing"})


class StallWatchdog:
    def __init__(self, clock: Clock, table: SimTable, players: SimPlayers,
                 controller: Callable[[], Driven]) -> None:
        self.clock = clock
        self.table = table
        self.players = players
        self.controller = controller
        self.stalls: list[dict[str, Any]] = []
        self.last_progress = clock.now()
        self.last_moved = clock.now()      # real progress, never reset by an excuse
        table.heed(self._on_witness, [n for n in table.signals if n.endswith(".count")])
        self.clock.call_later(CHECK_EVERY_S, self._check)

    def progress(self) -> None:
        self.last_progress = self.last_moved = self.clock.now()

    def on_event(self, event: dict[str, Any]) -> None:
        if event["kind"] in PROGRESS:
            self.progress()

    def _on_witness(self, name: str, value: Value) -> None:
        # A tile counted at a head (heeded: the count sensors only), progress() spelled
        # out: at every tile.
        if value is True:
            self.last_progress = self.last_moved = self.clock.now()

    def excused(self) -> bool:
        """Waiting on people: a technician for a stop-fault, or players who are busy."""
        ctl = self.controller()
        if self.players.topping_up or self.players.phase in PLAYERS_BUSY:
            return True
        if ctl.estopped or ctl.refeed_hold is not None or not self.table.powered:
            return True
        return any(f.active and f.kind.severity == ERROR for f in ctl.faults)

    def _check(self) -> None:
        if self.stalls:
            return
        if self.excused():
            self.last_progress = self.clock.now()
        waited = self.clock.now() - self.last_progress
        if waited > STALL_BOUND_S:
            self._stall(waited)
            return
        self.clock.call_later(CHECK_EVERY_S, self._check)

    def ran_out(self) -> None:
        """The run's simulated time is up with the table neither done nor held for a
        technician: stuck behind an excuse (a top-up nobody can finish, say)."""
        if not self.stalls:
            self._stall(self.clock.now() - self.last_moved)

    def _stall(self, waited: float) -> None:
        ctl = self.controller()
        self.stalls.append({"t": round(self.clock.now(), 3), "cycle": ctl.cycle.number,
                            "phase": ctl.cycle.state, "waited_s": round(waited, 3),
                            "display": self.table.values["display"] or ""})
