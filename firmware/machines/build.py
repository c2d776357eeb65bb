"""The background build of one set: disc and ring feed four sides in parallel.

Each side stops at its target; disc and ring pause while every belt of a side still
building is full, and stop for a top-up (both lift keys). Supervised on the way:
arrivals that stop before the set is complete (tiles missing), a full belt whose
count sensor sees nothing (blind), and — in a sweep after the last stack, before the
ready lamp — any tile still reaching a head (extra tiles).

Walls are never staged while tiles of another set or foreign tiles may be on the disc
or in them: the sweep lasts as long as the slowest tile of the build took to come (a
tile left on the disc takes no longer), and on a table with readers at the heads the
walls are counted by tile before staging: more copies of a tile than a set holds hold
the build for the operator (E51).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from transitions import EventData

from firmware.i18n import N_
from firmware.machines.machine import Recoverable, attach, from_fault, recover_transitions
from mjtable_core.clock import Timer
from rules.tiles import set_composition

if TYPE_CHECKING:
    from collections.abc import Sequence

    from firmware.machines.lid import Lid
    from firmware.machines.ports import Ports
    from firmware.machines.side import SideBuilder



class BuildState(StrEnum):
    IDLE = "idle"
    BUILDING = "building"
    PAUSED_FULL = "paused_full"         # every belt of a side still building full
    PAUSED_TOP_UP = "paused_top_up"     # both lift keys: tiles topped up through the hole
    SWEEPING = "sweeping"               # the last stack done, the disc swept before staging
    STAGED = "staged"
    FAULT = "fault"


RUNNING = frozenset({BuildState.BUILDING, BuildState.PAUSED_FULL, BuildState.PAUSED_TOP_UP})
BUILDING = RUNNING | {BuildState.SWEEPING}      # a set part built
AT_REST = frozenset({BuildState.IDLE, BuildState.STAGED})
# The feed may run (the lid down too): not while paused for a top-up.
FEEDS = frozenset({BuildState.BUILDING, BuildState.PAUSED_FULL, BuildState.SWEEPING})
# Bound once for the per-tile supervision: an enum's attribute costs a lookup each time.
_BUILDING, _PAUSED_FULL, _SWEEPING = (BuildState.BUILDING, BuildState.PAUSED_FULL,
                                      BuildState.SWEEPING)

STATES = [state.value for state in BuildState]
INITIAL = BuildState.IDLE.value
# RUNNING as sources, in the order declared (a set's order is not the same twice).
_RUNNING = [state.value for state in BuildState if state in RUNNING]
TRANSITIONS = [
    {"trigger": "start", "source": "idle", "dest": "building", "before": "_begin",
     "after": "_announce"},
    {"trigger": "belts_full", "source": "building", "dest": "paused_full"},
    {"trigger": "belt_room", "source": "paused_full", "dest": "building"},
    {"trigger": "pause", "source": ["building", "paused_full"], "dest": "paused_top_up"},
    {"trigger": "resume", "source": "paused_top_up", "dest": "building", "after": "_feed"},
    {"trigger": "side_full", "source": _RUNNING, "dest": "sweeping",
     "conditions": "all_full"},
    {"trigger": "side_full", "source": _RUNNING, "dest": None},
    {"trigger": "swept", "source": "sweeping", "dest": "staged"},
    {"trigger": "raised", "source": "staged", "dest": "idle", "after": "_release"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "idle"},
    # Trusted counts: go on from where the fault stopped it (else reset and refeed).
    *recover_transitions([*_RUNNING, "sweeping", "staged"]),
]
BUZZ_S = 0.3
SLOW_BUILDS_RECUR, SLOW_BUILDS_WINDOW = 2, 3


class Build(Recoverable):
    FAULT = BuildState.FAULT

    def __init__(self, ports: Ports, sides: Sequence[SideBuilder], lid: Lid) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.config = ports.config
        self.timing = ports.timing
        self.geometry = ports.geometry
        self.emit = ports.emit
        self.fault = ports.fault
        self.supervisor = ports.supervisor
        self.watch = ports.watch
        self.sides = sides
        self.lid = lid
        for side in sides:
            side.build = self       # each side tells its build of its arrivals
        self.started_at = 0.0
        self.finished_at = 0.0
        self.set_name: str | None = None
        self.walls: list[list[list[str | None]]] = []
        self.untrusted = False      # a count fault happened: never finish this set as is
        self.interrupted = False
        self._full_timer: Timer | None = None
        self._sweep_timer: Timer | None = None
        # The last uninterrupted count at each side, and the longest wait between two.
        self._last_count: dict[int, float] = {}
        self.longest_gap = 0.0
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ports.on_error)

    @property
    def running(self) -> bool:
        return self.state in RUNNING

    @property
    def part_built(self) -> bool:
        """A set part built: running, or sweeping before it is staged."""
        return self.state in BUILDING

    @property
    def idle(self) -> bool:
        """No set under way nor staged."""
        return self.state == BuildState.IDLE

    @property
    def staged(self) -> bool:
        """A set built and swept, waiting in the walls to be raised."""
        return self.state == BuildState.STAGED

    @property
    def at_rest(self) -> bool:
        """No set under way: idle, or one staged."""
        return self.state in AT_REST

    def status(self) -> dict[str, Any]:
        """The build as the status picture shows it: state and the set it builds."""
        return {"state": self.state, "set": self.set_name}

    def all_full(self, *_: object) -> bool:
        return all(side.full for side in self.sides)

    def may_feed(self) -> bool:
        """Whether the feed may run: the build feeding (not paused for a top-up, nor
        parked by a fault) and the lid at its lower stop. Every feed command asks, so
        a resume with the lid still part open starts nothing (`lid_down` starts it)."""
        return self.state in FEEDS and self.lid.down()

    def _disc(self, on: bool) -> None:
        on = on and self.may_feed()
        self.hal.write("motor.disc", on)
        self.hal.write("motor.ring", on)

    def lid_down(self) -> None:
        """The lid reached its lower stop: a build held by it feeds (again)."""
        if self.state == _BUILDING:
            self._disc(True)
        if self.state == _SWEEPING:
            self._disc(True)
            for side in self.sides:
                self.hal.write(side.conveyor, True)
        elif self.running:
            for side in self.sides:
                side.feed(True)

    def motors_off(self) -> None:
        """The build's safe state: disc, ring, every conveyor and head off, as one
        stop the backend fences (a command still crossing a noisy link starts none)."""
        motors = ["motor.disc", "motor.ring"]
        for side in self.sides:
            motors += [side.conveyor, side.head]
        self.hal.safe_state(motors)

    def stop_supervision(self) -> None:
        watch = self.watch
        for key in ["build", "stall", "sweep", *[f"blind.{n}" for n in self.geometry.sides]]:
            watch.cancel(key)
        for side in self.sides:
            self.supervisor.cancel(side.key)
        if self._full_timer is not None:
            self._full_timer.cancel()
            self._full_timer = None

    def _arm_limits(self) -> None:
        timing = self.timing
        self.watch.expect("build", timing.build_fault_s, "build.tiles_missing", "build",
                              lambda: {"limit_s": timing.build_fault_s,
                                       "why": N_("build too long"), "arriving": True,
                                       **self._shortfall()})
        self._arm_stall()

    def _arm_stall(self) -> None:
        stall = self.timing.stall_s
        self.watch.expect("stall", stall, "build.tiles_missing", "build",
                              lambda: {"limit_s": stall,
                                       "why": N_("no tile arrived within the stall limit"),
                                       **self._shortfall()})

    def _shortfall(self) -> dict[str, object]:
        target = self.config.tiles_per_side
        short = {str(s.side): target - s.counted for s in self.sides if s.counted < target}
        return {"counted": {str(s.side): s.counted for s in self.sides},
                "missing": sum(short.values()), "short_sides": short}

    # -- callbacks ------------------------------------------------------------------

    def _begin(self, event: EventData) -> None:
        set_name = event.kwargs["set_name"]
        self.set_name = set_name
        self.untrusted = False
        self.interrupted = False    # a fault or top-up paused it: its time says nothing
        self.started_at = self.clock.now()
        self.walls = []
        self._last_count = {}
        self.longest_gap = 0.0
        self.hal.write("lamp.building", True)
        for side in self.sides:
            side.start()
        self._arm_limits()

    def _announce(self, *_: object) -> None:
        self.emit("build.started", set=self.set_name)

    def on_enter_building(self, event: EventData) -> None:
        self._disc(True)
        if event.transition.source != _PAUSED_FULL:
            # Started or recovered: the sides were, before the build could feed them.
            for side in self.sides:
                side.feed(True)
        if from_fault(event):
            self._after_fault()

    def on_enter_paused_full(self, event: EventData) -> None:
        self._last_count = {}       # a wait across a pause says nothing of the disc
        self._disc(False)
        self.watch.cancel("stall")
        if from_fault(event):
            for side in self.sides:
                side.feed(True)
            self._after_fault()

    def on_exit_paused_full(self, *_: object) -> None:
        self._arm_stall()

    def on_enter_fault(self, *_: object) -> None:
        self.interrupted = True
        self._last_count = {}

    def on_enter_paused_top_up(self, *_: object) -> None:
        self.interrupted = True
        self._last_count = {}
        self._disc(False)
        for side in self.sides:
            side.feed(False)
        self.watch.cancel("build")
        self.watch.cancel("stall")

    def _feed(self, *_: object) -> None:
        for side in self.sides:
            side.feed(True)
        self._arm_limits()

    def _after_fault(self) -> None:
        """A technician cleared the fault that stopped this build: supervise it again
        (the sides were recovered first and feed and turn again)."""
        self._arm_limits()
        if self.state == _PAUSED_FULL:
            self.watch.cancel("stall")
            building = [s for s in self.sides if not s.full]
            if not all(self.hal.read(f"side.{s.side}.full") for s in building):
                self.belt_room()    # a belt emptied while stopped: its edge is long gone
        if self.all_full():
            self.side_full()

    def on_enter_sweeping(self, *_: object) -> None:
        self.finished_at = self.clock.now()
        self.stop_supervision()
        self.walls = [side.stacks() for side in self.sides]
        timing = self.timing
        # As long as the slowest tile of this build took to come: a tile still on the
        # disc would come within it (never past the stall limit).
        sweep = timing.sweep_s if timing.sweep_s <= 0 else max(
            timing.sweep_s, min(self.longest_gap, timing.stall_s))
        if sweep <= 0:
            self._disc(False)
            self.swept()
            return
        # Every tile should be stacked: whatever still reaches a head is extra.
        self._disc(True)
        for side in self.sides:
            self.hal.write(side.conveyor, self.may_feed())
        self._sweep_timer = self.clock.call_later(sweep, self._end_sweep)

    def _end_sweep(self) -> None:
        if self.state != _SWEEPING:
            return
        over = self._over_a_set()
        if over:
            # Counted before staging: foreign tiles or tiles of the other set stand in
            # these walls. Held for the operator, never dealt.
            self.fault("build.extra_tiles", "build", None,
                           {"over": over, "during": "sweeping",
                            "why": N_("the walls hold more copies of a tile than a set "
                                      "has: foreign tiles or tiles of the other set")})
            return
        self.swept()

    def _over_a_set(self) -> dict[str, int]:
        """The tiles read into the walls more often than a set holds them (tables with
        a reader at each head; none elsewhere)."""
        if not all(side.has_reader for side in self.sides):
            return {}
        held = set_composition(self.config.table.tiles)
        read: dict[str, int] = {}
        for side in self.sides:
            for code in side.tiles:
                if code is not None:
                    read[code] = read.get(code, 0) + 1
        return {code: n for code, n in sorted(read.items()) if n > held.get(code, 0)}

    def on_exit_sweeping(self, *_: object) -> None:
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
            self._sweep_timer = None
        self.motors_off()

    def on_enter_staged(self, event: EventData) -> None:
        self.hal.write("lamp.building", False)
        self.hal.write("lamp.ready", True)
        if from_fault(event):
            return      # staged before the fault: announced then
        self.hal.write("buzzer", True)
        self.clock.call_later(BUZZ_S, lambda: self.hal.write("buzzer", False))
        build_s = self.finished_at - self.started_at
        if not self.interrupted:
            self._check_slow(build_s)
        self.emit("build.staged", set=self.set_name, build_s=round(build_s, 3))

    def _check_slow(self, build_s: float) -> None:
        supervisor = self.supervisor
        learned = supervisor.learned_build()
        slow = learned is not None and build_s > learned * self.timing.slow_factor
        # A rare slow draw happens on a clean table: warn only when slow builds recur.
        recurs = supervisor.slow_recurs("build", slow, SLOW_BUILDS_RECUR, SLOW_BUILDS_WINDOW)
        if recurs:
            assert learned is not None
            self.fault("build.slow", "build", None,
                           {"build_s": round(build_s, 3), "learned_s": round(learned, 3),
                            "factor": self.timing.slow_factor,
                            "slow_builds_of_last": [sum(supervisor._slow["build"]),
                                                    len(supervisor._slow["build"])]})
        if recurs or not slow:
            supervisor.record_build(build_s)

    def restore_staged(self, set_name: str, walls: list[list[list[str | None]]]) -> None:
        """From the journal: a set finished before the stop is still staged inside.

        Only the journal's restore at boot calls this (the one place a machine's
        state is set directly)."""
        self.set_name = set_name
        self.walls = walls
        self.machine.set_state(BuildState.STAGED.value, model=self)
        self.hal.write("lamp.ready", True)

    def _release(self, *_: object) -> None:
        self.hal.write("lamp.ready", False)
        for side in self.sides:
            side.release()

    # -- supervision edges -------------------------------------------------------------

    def arrival(self, side: SideBuilder) -> None:
        """A tile was counted at `side`: arrivals are flowing."""
        if self.state == _BUILDING:
            self._arm_stall()
            now = side.last_arrival if side.last_arrival is not None else self.clock.now()
            last = self._last_count.get(side.side)
            if last is not None:
                self.longest_gap = max(self.longest_gap, now - last)
            self._last_count[side.side] = now
        self.watch.cancel(side.blind_key)
        if self.hal.read(side.full_sensor):
            self._arm_blind(side)

    def _arm_blind(self, side: SideBuilder) -> None:
        blind = self.timing.blind_s
        self.watch.expect(side.blind_key, blind, "count.blind", side.count_sensor,
                              lambda: {"belt_full": True, "counted": side.counted,
                                       "blind_s": blind, "head_home_glitches": side.glitches},
                              side=side.side)

    def extra_tile(self, side: SideBuilder, lit: bool = True) -> None:
        """A tile reached a head whose side is already complete (`lit`: still in front
        of its count sensor a moment later, as a tile would be)."""
        self.fault("build.extra_tiles", f"side.{side.side}.count", side.side,
                       {"side": side.side, "counted": side.counted, "target": side.target,
                        "during": self.state, "count_lit": lit})

    def on_belt(self, side: SideBuilder, full: bool) -> None:
        """A belt-full sensor changed: supervise the count, pause or resume the disc."""
        if full and side.busy and self.running:
            self._arm_blind(side)
        elif not full:
            self.watch.cancel(f"blind.{side.side}")
        building = [s for s in self.sides if not s.full]
        every_full = bool(building) and all(
            self.hal.read(f"side.{s.side}.full") for s in building)
        if every_full and self.state == _BUILDING and self._full_timer is None:
            self._full_timer = self.clock.call_later(
                self.timing.belt_full_pause_s, self._pause_full)
        elif not every_full:
            if self._full_timer is not None:
                self._full_timer.cancel()
                self._full_timer = None
            if self.state == _PAUSED_FULL:
                self.belt_room()

    def _pause_full(self) -> None:
        self._full_timer = None
        if self.state == _BUILDING:
            self.belts_full()
