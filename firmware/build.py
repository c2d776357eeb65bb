"""The background build of one set: disc and ring feed four sides in parallel.

Each side stops at its target; disc and ring pause while every belt of a side still
building is full, and stop for a top-up (both lift keys).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transitions import EventData

from firmware.clock import Timer
from firmware.machine import attach

if TYPE_CHECKING:
    from firmware.controller import Controller

STATES = ["idle", "building", "paused_full", "paused_top_up", "staged", "fault"]
INITIAL = "idle"
TRANSITIONS = [
    {"trigger": "start", "source": "idle", "dest": "building", "before": "_begin"},
    {"trigger": "belts_full", "source": "building", "dest": "paused_full"},
    {"trigger": "belt_room", "source": "paused_full", "dest": "building"},
    {"trigger": "pause", "source": ["building", "paused_full"], "dest": "paused_top_up"},
    {"trigger": "resume", "source": "paused_top_up", "dest": "building", "after": "_feed"},
    {"trigger": "side_full", "source": ["building", "paused_full", "paused_top_up"],
     "dest": "staged", "conditions": "all_full"},
    {"trigger": "side_full", "source": ["building", "paused_full", "paused_top_up"],
     "dest": None},
    {"trigger": "raised", "source": "staged", "dest": "idle", "after": "_release"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "idle"},
]
BUZZ_S = 0.3


class Build:
    def __init__(self, ctl: Controller) -> None:
        self.ctl = ctl
        self.started_at = 0.0
        self.finished_at = 0.0
        self.set_name: str | None = None
        self.walls: list[list[list[str | None]]] = []
        self._full_timer: Timer | None = None
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ctl.on_machine_error)

    @property
    def running(self) -> bool:
        return self.state in ("building", "paused_full", "paused_top_up")

    def all_full(self, *_: object) -> bool:
        return all(side.state == "full" for side in self.ctl.sides)

    def _disc(self, on: bool) -> None:
        self.ctl.hal.write("motor.disc", on)
        self.ctl.hal.write("motor.ring", on)

    def _arm_build_limit(self) -> None:
        limit = self.ctl.timing.build_fault_s
        counted = {str(s.side): s.counted for s in self.ctl.sides}
        self.ctl.watch.expect("build", limit, "build.tiles_missing", "build",
                              {"limit_s": limit, "counted_at_start": counted})

    # -- callbacks ------------------------------------------------------------------

    def _begin(self, event: EventData) -> None:
        set_name = event.kwargs["set_name"]
        self.set_name = set_name
        self.started_at = self.ctl.clock.now()
        self.walls = []
        self.ctl.hal.write("lamp.building", True)
        for side in self.ctl.sides:
            side.start()
        self._arm_build_limit()
        self.ctl.emit("build.started", set=set_name)

    def on_enter_building(self, *_: object) -> None:
        self._disc(True)

    def on_enter_paused_full(self, *_: object) -> None:
        self._disc(False)

    def on_enter_paused_top_up(self, *_: object) -> None:
        self._disc(False)
        for side in self.ctl.sides:
            side.feed(False)
        self.ctl.watch.cancel("build")

    def _feed(self, *_: object) -> None:
        for side in self.ctl.sides:
            side.feed(True)
        self._arm_build_limit()

    def on_enter_staged(self, *_: object) -> None:
        self._disc(False)
        self.ctl.watch.done("build")
        self.finished_at = self.ctl.clock.now()
        self.walls = [side.stacks() for side in self.ctl.sides]
        self.ctl.hal.write("lamp.building", False)
        self.ctl.hal.write("lamp.ready", True)
        self.ctl.hal.write("buzzer", True)
        self.ctl.clock.call_later(BUZZ_S, lambda: self.ctl.hal.write("buzzer", False))
        self.ctl.emit("build.staged", set=self.set_name,
                      build_s=round(self.finished_at - self.started_at, 3))

    def _release(self, *_: object) -> None:
        self.ctl.hal.write("lamp.ready", False)
        for side in self.ctl.sides:
            side.release()

    # -- belt-full pause --------------------------------------------------------------

    def on_belt(self) -> None:
        """A belt-full sensor changed: pause or resume disc and ring."""
        building = [s for s in self.ctl.sides if s.state != "full"]
        every_full = bool(building) and all(
            self.ctl.hal.read(f"side.{s.side}.full") for s in building)
        if every_full and self.state == "building" and self._full_timer is None:
            self._full_timer = self.ctl.clock.call_later(
                self.ctl.timing.belt_full_pause_s, self._pause_full)
        elif not every_full:
            if self._full_timer is not None:
                self._full_timer.cancel()
                self._full_timer = None
            if self.state == "paused_full":
                self.belt_room()

    def _pause_full(self) -> None:
        self._full_timer = None
        if self.state == "building":
            self.belts_full()
