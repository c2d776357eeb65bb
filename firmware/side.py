"""One side's builder: count tiles at the head, stack them two high, stop at target.

Tiles are known only on tables with a reader at the head (`side.N.tile_id`); the
build itself uses counts alone, never identity (MECHANICS.md §8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.machine import attach

if TYPE_CHECKING:
    from firmware.controller import Controller

STATES = ["idle", "feeding", "stacking", "full", "fault"]
INITIAL = "idle"
TRANSITIONS = [
    {"trigger": "start", "source": "idle", "dest": "feeding", "after": "_start_conveyor"},
    {"trigger": "tile_arrived", "source": "feeding", "dest": "stacking"},
    {"trigger": "tile_arrived", "source": "stacking", "dest": None},
    {"trigger": "turn_done", "source": "stacking", "dest": "full", "conditions": "complete"},
    {"trigger": "turn_done", "source": "stacking", "dest": "feeding",
     "unless": "tiles_waiting"},
    {"trigger": "turn_done", "source": "stacking", "dest": None},
    {"trigger": "release", "source": ["full", "idle"], "dest": "idle"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "idle"},
]


class SideBuilder:
    def __init__(self, ctl: Controller, side: int) -> None:
        self.ctl = ctl
        self.side = side
        self.target = ctl.config.tiles_per_side
        self.conveyor = f"motor.side.{side}.conveyor"
        self.head = f"motor.side.{side}.head"
        self.reader = f"side.{side}.tile_id"
        self.has_reader = self.reader in ctl.hal.signals
        self.counted = 0          # tiles seen by the count sensor this build
        self.stacked = 0          # tiles the head has put away
        self.tiles: list[str | None] = []   # in the order counted
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ctl.on_machine_error)

    @property
    def key(self) -> str:
        return f"head.{self.side}"

    def complete(self, *_: object) -> bool:
        return self.stacked >= self.target

    def tiles_waiting(self, *_: object) -> bool:
        return self.counted > self.stacked

    def stacks(self) -> list[list[str | None]]:
        """The built wall as [top, bottom] per stack, k = 0 at the owner's right end."""
        return [[self.tiles[i + 1], self.tiles[i]] for i in range(0, len(self.tiles) - 1, 2)]

    def feed(self, on: bool) -> None:
        """Run the conveyor while this side still needs tiles."""
        self.ctl.hal.write(self.conveyor, on and self.counted < self.target)

    # -- callbacks ------------------------------------------------------------------

    def _start_conveyor(self, *_: object) -> None:
        self.feed(True)

    def on_exit_idle(self, *_: object) -> None:
        self.counted = self.stacked = 0
        self.tiles = []

    def on_enter_stacking(self, *_: object) -> None:
        self._turn()

    def on_enter_full(self, *_: object) -> None:
        self.ctl.hal.write(self.head, False)
        self.ctl.watch.done(self.key)
        self.ctl.build.side_full()

    def rehome(self) -> None:
        """Turn the cam until it is home again (found off home at boot)."""
        self._turn()

    def _turn(self) -> None:
        self.ctl.hal.write(self.head, True)
        limit = self.ctl.timing.head_turn_s * self.ctl.timing.timeout_factor
        self.ctl.watch.expect(self.key, limit, "head.jam", f"side.{self.side}.head",
                              {"sensor": f"side.{self.side}.head_home", "limit_s": limit,
                               "counted": self.counted, "stacked": self.stacked},
                              side=self.side)

    # -- sensor edges -----------------------------------------------------------------

    def on_count(self) -> None:
        self.counted += 1
        self.tiles.append(self.ctl.hal.read(self.reader) if self.has_reader else None)
        if self.counted >= self.target:
            self.ctl.hal.write(self.conveyor, False)
        self.tile_arrived()

    def on_home(self) -> None:
        if self.state != "stacking":
            # Re-homing at boot: the cam was found off home and has come round.
            self.ctl.hal.write(self.head, False)
            self.ctl.watch.done(self.key)
            self.ctl.cycle.check_homed()
            return
        self.stacked += 1
        if not self.tiles_waiting():
            self.ctl.hal.write(self.head, False)
            self.ctl.watch.done(self.key)
        else:
            self._turn()
        self.turn_done()
