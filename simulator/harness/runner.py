"""A scenario run: the unchanged firmware, the simulated table, injected faults and
a technician who fixes them.

The harness injects each fault of the scenario at its cycle and phase (or time),
watches the firmware's events, sends the technician (or the players, for a top-up)
when the scenario says so, and checks what a user cares about: the right fault at
the right place, motors safe, no wall handed off wrongly, every tile accounted for,
and the next cycles completing.

A power cut kills the controller without a clean stop — its timers die with it — and
boots a new one on the same journal after the cut's duration. Every table the harness
runs is composed here, as the daemon composes its own (`compose_table`); `assemble()`
wires one without running it.
"""

from __future__ import annotations

import re
import resource
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from firmware.controller import Controller, compose_table
from firmware.faults.clearing import ClearRefused
from firmware.faults.guided_refeed import EXTRA
from firmware.faults.kinds import CATALOGUE, ERROR, RELINK, Fault
from firmware.hands.handoff import Consumer
from firmware.machines.build import BuildState
from firmware.machines.cycle import TOPPING_UP, CycleState
from firmware.state.journal import MemoryJournal
from mjtable_core.clock import Clock, VirtualClock
from mjtable_core.config import Config
from simulator.harness import problems
from simulator.harness.referee import Referee
from simulator.harness.stops import motors_of, must_stop
from simulator.harness.table import Driven
from simulator.harness.watchdog import StallWatchdog
from simulator.physics.players import SimPlayers
from simulator.physics.table import DirtySensor, SimTable, build_bound
from simulator.rigs.backend import SimHal
from simulator.rigs.rig import IoboardRig, PicoRig, SimRig
from simulator.rigs.stalls import HostStalls
from simulator.scenario import (
    AFTER_FAULT,
    DETECTED_BY,
    ActionSpec,
    FaultSpec,
    Scenario,
    check_for_table,
)

# Generous: a cycle is a hand of play plus the lid, raise and dice around it, and
# time for a technician to fix what a scenario breaks.
CYCLE_ALLOWANCE_S = 900.0
# The controller's timers kept for `kill`: those spent are forgotten every few dozen, so
# their callbacks die young instead of riding through the garbage collector's older
# generations (a few thousand kept closures cost a simulated hand more than the pruning).
PRUNE_AT = 64

# A clear the table refuses is tried again this often, this long apart.
CLEAR_TRIES, CLEAR_RETRY_S = 3, 1.0


class ScopedClock:
    """The controller's view of the shared clock; `kill` silences all its timers."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.timers: list[Any] = []
        self._prune_at = PRUNE_AT
        # Asked on every edge: the clock's own, one call instead of two.
        self.now = clock.now    # type: ignore[method-assign]

    def now(self) -> float:
        return self.clock.now()

    def call_at(self, when: float, callback: Callable[[], None]) -> Any:
        if len(self.timers) > self._prune_at:
            self._prune()
        timer = self.clock.call_at(when, callback)
        self.timers.append(timer)
        return timer

    def call_later(self, delay: float, callback: Callable[[], None]) -> Any:
        # max() spelled out, and call_at's body too: the controller's every timer comes
        # through here.
        if len(self.timers) > self._prune_at:
            self._prune()
        timer = self.clock.call_later(delay, callback)
        self.timers.append(timer)
        return timer

    def _prune(self) -> None:
        # Forget timers that fired or were cancelled; grow the limit so this stays rare.
        now = self.clock.now()
        self.timers = [t for t in self.timers if not t.cancelled and t.when >= now]
        self._prune_at = max(PRUNE_AT, 2 * len(self.timers))

    def post(self, callback: Callable[[], None]) -> None:
        self.call_at(self.clock.now(), callback)

    def kill(self) -> None:
        for timer in self.timers:
            timer.cancel()
        self.timers = []


@dataclass
class WiredTable:
    """One simulated table: everything wired, nothing run yet."""

    config: Config
    clock: VirtualClock
    table: SimTable
    hal: SimHal
    controller: Controller
    players: SimPlayers
    events: list[dict[str, Any]] = field(default_factory=list)


def assemble(config: Config, seed: int | None = None, *,
             hal: Callable[[SimTable], SimHal] = SimHal, consumers: bool = True) -> WiredTable:
    """One simulated table on `hal` (made on the table), composed as the daemon's is;
    `consumers`: with the config's rules engine and handoff file."""
    clock = VirtualClock()
    table = SimTable(config, clock, seed)
    sim_hal = hal(table)
    controller = compose_table(config, sim_hal, clock, consumers=consumers)
    players = SimPlayers(table, clock, config)
    return WiredTable(config, clock, table, sim_hal, controller, players)



class Harness:
    """One scenario on one rig: "sim" (the simulated HAL in-process) or "ioboard"
    (the serial path and the I/O-board emulator; `rig_options` go to `IoboardRig`)."""

    def __init__(self, config: Config, scenario: Scenario, seed: int | None = None,
                 consumers: Sequence[Consumer] = (), rig: str = "sim",
                 rig_options: dict[str, Any] | None = None) -> None:
        if scenario.needs_link and rig not in ("ioboard", "pico"):
            raise ValueError("link_noise and link_drop need the I/O board link: "
                             "run with --hal ioboard")
        if scenario.play_time_s is not None:
            config = config.with_play_time(scenario.play_time_s)
        if rig == "pico":       # the Pico board carries no tile reader
            from simulator.rigs.pico_run import pico_config

            config = pico_config(config)
        self.config = config
        self.scenario = scenario
        table_seed = seed if seed is not None else scenario.seed
        self.rig: SimRig | IoboardRig = (
            IoboardRig(config, table_seed, **(rig_options or {})) if rig == "ioboard"
            else PicoRig(config, table_seed) if rig == "pico"
            else SimRig(config, table_seed))
        self.clock = self.rig.clock
        self.table = self.rig.table
        check_for_table(scenario, config.table.tiles, self.table.signals)
        self.journal = MemoryJournal()
        self.players = SimPlayers(self.table, self.clock, config)
        self.ctl: Driven
        self._scoped: ScopedClock | None = None
        self.consumers = list(consumers)
        self.boot_hooks: list[Callable[[Driven], None]] = []
        # What happened.
        self.faults: list[dict[str, Any]] = []
        self.handoffs: list[dict[str, Any]] = []
        self.build_times: list[float] = []
        self.bounds: list[float] = []
        self.problems: list[str] = []
        self.detections: list[dict[str, Any]] = []
        # What a technician sees (simulator/harness/diagnosis_judge.py): copies of one fault
        # active at once, and a display still showing a fault once it is cleared.
        self.max_active_copies = 0
        self.stale_displays: list[str] = []
        self.motors_safe = True
        self.wrong_handoffs = 0
        self._phase_seen: set[tuple[str, int]] = set()
        self._builds = 0
        self._last_build_set: str | None = None
        self._cycle_start: dict[int, float] = {}
        self._pending = 0                   # actions scheduled, not yet done
        self._handled: set[int] = set()     # actions already sent
        self._injected: list[tuple[FaultSpec, float]] = []
        self._undetected: list[tuple[FaultSpec, float]] = []   # injected, not yet found
        self._armed: list[FaultSpec] = []   # faults due after a stop-fault, scheduled
        self._build_started_at = 0.0
        self._repaired: set[str] = set()
        self._on_the_way: set[str] = set()
        # The physics judged by the table itself, and a table that stops moving.
        self.referee = Referee(self.table, lambda: self.ctl.cycle.number,
                               link_grace_s=self.rig.link_grace_s,
                               frame_grace_s=self.rig.frame_grace_s,
                               link_broken=self.rig.link_broken,
                               interlocks=self.rig.interlocks)
        self.host_stalls = HostStalls(self.table, self.rig.host)
        self.watchdog = StallWatchdog(self.clock, self.table, self.players, lambda: self.ctl)
        self.crashed: dict[str, Any] | None = None
        self.timed_out = False
        self.interrupted = False    # Ctrl-C: the report says what ran until then
        self.link_dead = False              # the host could not reach the board
        self._checks = 0                    # motor checks still due
        # Clears a technician made while the power was off: done once the table is back.
        self._after_power: list[Callable[[], None]] = []

    @property
    def hal(self) -> Any:
        return self.rig.hal

    # -- the controller's life -------------------------------------------------------

    def boot(self) -> None:
        self._scoped = ScopedClock(self.rig.host)
        # With the config's rules engine and handoff file.
        self.ctl = compose_table(self.config, self.hal, self._scoped, self.journal)
        self.ctl.handoff.consumers.extend(self.consumers)
        for hook in self.boot_hooks:
            hook(self.ctl)
        self.ctl.subscribers.append(self.referee.on_event)
        self.ctl.subscribers.append(self.watchdog.on_event)
        self.ctl.subscribers.append(self._on_event)
        self.ctl.start()

    def power_cut(self, spec: FaultSpec) -> None:
        assert self._scoped is not None
        if not self.table.powered:
            return      # already off: a second cut changes nothing
        self._scoped.kill()
        self.ctl.subscribers.clear()
        self.rig.host_dies(spec.duration_s)
        self.table.power(False)
        self.clock.call_later(spec.duration_s, self._power_back)

    def _power_back(self) -> None:
        self.table.power(True)
        self.referee.power_back()
        error = self.rig.host_boots()
        if error is not None and error.fault_id != "link.lost":
            self._link_failed(error)
            return
        self.boot()
        if error is not None:
            # The board silent at boot: E80 shown, the host says HELLO until it answers.
            self.rig.wait_for_board(error)
        waiting, self._after_power = self._after_power, []
        for clear in waiting:
            clear()

    def _link_failed(self, error: Any) -> None:
        """The host could not shake hands with the board: it never starts."""
        fault = Fault(error.fault_id, "link", None, 0, self.clock.now(),
                      error.evidence).as_dict()
        self.faults.append({k: fault[k] for k in ("id", "code", "where", "cycle",
                                                  "sim_time_s", "evidence", "diagnosis")})
        self.link_dead = True

    # -- events ----------------------------------------------------------------------

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        ctl = self.ctl
        if kind == "build.started":
            self._build_started_at = ctl.build.started_at
            for side in self.table.sides:
                side.loaded_at = []
            if event["set"] != self._last_build_set:
                self._builds += 1
                self._last_build_set = event["set"]
                self._cycle_start[self._builds] = self.clock.now()
                self._phase("build", self._builds)
        elif kind == "build.staged":
            self.build_times.append(event["build_s"])
            self.bounds.append(round(build_bound(self.table, self._build_started_at,
                                                 self.config.tiles_per_side), 3))
        elif kind == "phase":
            state = event["state"]
            phase = {CycleState.OPENING: "lid_up", CycleState.CLOSING: "lid_down",
                     CycleState.RAISING: "raise"}.get(state)
            if phase:
                self._phase(phase, ctl.cycle.number + 1)
            elif state == CycleState.ROLLING:
                self._phase("dice", ctl.cycle.number)
            elif state == CycleState.PLAY and ctl.cycle.number > 0:
                self._phase("play", ctl.cycle.number)
        elif kind == "fault":
            self._on_fault(event)
        elif kind == "handoff":
            self._check_handoff(event)

    def _phase(self, phase: str, cycle: int) -> None:
        if (phase, cycle) in self._phase_seen:
            return
        self._phase_seen.add((phase, cycle))
        for spec in self.scenario.faults:
            if spec.cycle == cycle and spec.phase == phase:
                self.inject(spec)
            elif (spec.cycle == cycle and spec.phase is None and spec.at_s is not None
                  and phase == "build"):
                self.clock.call_later(spec.at_s, lambda s=spec: self.inject(s))

    def _on_fault(self, event: dict[str, Any]) -> None:
        fault = {k: event[k] for k in ("id", "code", "where", "cycle", "sim_time_s",
                                       "evidence", "diagnosis")}
        if not event.get("reopened"):
            self.faults.append(fault)      # raised; a fault come back is not raised again
        copies = sum(1 for f in self.ctl.faults
                     if f.active and (f.id, f.where) == (event["id"], event["where"]))
        self.max_active_copies = max(self.max_active_copies, copies)
        if CATALOGUE[event["id"]].severity == ERROR:
            self._after_fault()
            # What it must stop is the referee's word (stops.py), not the fault kind's.
            must = must_stop(event)
            motors = sorted(motors_of(must, self.config.geometry, frozenset(
                s.name for s in self.table.signals.values() if s.is_motor))) if must else []
            # Judged once the stop has reached the table, as the referee judges it.
            self._checks += 1
            self.referee.once_stopped(must is not None and must.failsafe,
                                      lambda: self._motors_stopped(
                                          event["id"], event["where"], motors))
        self._detect(event["id"], str(event.get("where")))
        self._send_technician(event["id"], str(event.get("where")))

    def _detect(self, fault_id: str, where: str) -> None:
        """A fault detects each injection not yet detected whose kind it tells of
        (DETECTED_BY), at its side or where either has none."""
        side = _side(where)
        still: list[tuple[FaultSpec, float]] = []
        for spec, at in self._undetected:
            if fault_id in DETECTED_BY[spec.kind] and _at_its_side(spec.where, side):
                self.detections.append({"spec": spec, "kind": spec.kind, "fault": fault_id,
                                        "latency_s": round(self.clock.now() - at, 3)})
            else:
                still.append((spec, at))
        self._undetected = still

    def _send_technician(self, fault_id: str, where: str) -> None:
        """Send the technician planned for this fault occurrence, if any.

        An action planned for one injection (`for_fault`) answers only a fault that
        injection may have caused: injected before it, at the same side. Of the actions
        left, the earliest injection's come first, and the technician takes one for a
        part that is really broken, as a technician at the table would find it (`where`
        says where the technician works, not where the fault was seen)."""
        causes = self._causes(where)
        actions = self.scenario.actions
        waiting = [i for i, a in enumerate(actions)
                   if i not in self._handled and a.after_fault == fault_id
                   and (a.for_fault is None or a.for_fault - 1 in causes)]
        # Until its technician is done, the same fault again is the same job.
        jobs = {(fault_id, None), *((fault_id, n) for n in causes)}
        if not waiting or jobs & self._on_the_way:
            return
        waiting.sort(key=lambda i: causes.index(actions[i].for_fault - 1)
                     if actions[i].for_fault is not None else len(causes))
        broken = [i for i in waiting if self._broken(actions[i])]
        i = (broken or waiting)[0]
        action = actions[i]
        self._handled.add(i)
        self._pending += 1
        self._on_the_way.add(self._job(action))
        self.clock.call_later(action.delay_s, lambda a=action: self._act(a))

    def _causes(self, where: str) -> list[int]:
        """The scenario's faults (0-based, in injection order) injected so far that may
        have caused a fault raised at `where`: any place without a side, or its side."""
        side = _side(where)
        indexes = {id(spec): n for n, spec in enumerate(self.scenario.faults)}
        causes: list[int] = []
        for spec, _at in self._injected:
            n = indexes.get(id(spec))
            if n is not None and n not in causes and _at_its_side(spec.where, side):
                causes.append(n)
        return causes

    def _job(self, action: ActionSpec) -> tuple[str, int | None]:
        return (action.after_fault,
                None if action.for_fault is None else action.for_fault - 1)

    def _side_of(self, action: ActionSpec) -> int | None:
        """The side whose fault an action planned for an injection clears (None: any)."""
        if action.for_fault is None:
            return None
        return _side(self.scenario.faults[action.for_fault - 1].where)

    def _after_fault(self) -> None:
        """Arm the faults due `at_s` after the first stop-fault of their cycle."""
        begun = {cycle for _, cycle in self._phase_seen}
        for spec in self.scenario.faults:
            if (spec.phase == AFTER_FAULT and spec.cycle in begun
                    and all(spec is not armed for armed in self._armed)):
                self._armed.append(spec)
                self.clock.call_later(spec.at_s or 0.0, lambda s=spec: self.inject(s))

    def _motors_stopped(self, fault_id: str, where: Any, motors: Sequence[str]) -> None:
        self._checks -= 1
        # Only while the stop-fault still holds: one that cleared by itself meanwhile
        # (E80 over once the board answers) leaves a table rightly running again.
        if not any(f.active and (f.id, f.where) == (fault_id, where) for f in self.ctl.faults):
            return
        if any(self.table.motor_on(m) for m in motors):
            self.motors_safe = False
            self.problems.append(problems.MOTORS_ON.format(fault=fault_id))

    def _broken(self, action: ActionSpec) -> bool:
        """Whether `action` would mend something that is broken right now."""
        table, where, do = self.table, action.where or "", action.do
        side = table.sides[int(where.split(".")[1])] if where.startswith("side.") else None
        if do == "clear_jam":
            if side is not None:
                return side.head.blocked or side.plate.blocked or side.belt_jammed
            return table.dice_jammed
        if do == "clear_obstruction":
            return table.lid.blocked_below > 0 or any(s.plate.blocked for s in table.sides)
        if do == "replace_part" and where == "link":
            return self.rig.link_broken()
        if do == "replace_part":
            return (where in table.dead_motors or where in table.slow_motors
                    or where in table.stuck or self._flaky_now(where))
        if do == "clean_sensor":
            return where in table.dirty or where in table.stuck or self._flaky_now(where)
        if do == "replace_tile":
            return any(t.magnet != "ok" for t in table.tiles)
        if do == "top_up":
            return bool(table.on_table) and self.ctl.cycle.state == CycleState.PLAY
        if do == "remove_extra":
            return any(t.set_name == "X" for t in table.tiles)
        return True

    def _flaky_now(self, where: str) -> bool:
        return where not in self._repaired and any(
            s.kind == "sensor_flaky" and s.where == where for s, _ in self._injected)

    def _check_handoff(self, event: dict[str, Any]) -> None:
        record = event.get("record") or self.ctl.handoff.records[-1]
        physical = self.table.raised_walls()
        sets = {t.set_name for wall in physical for stack in wall for t in stack}
        complete = all(len(w) == self.config.table.stacks_per_wall for w in physical)
        codes = [[[top.code, bottom.code] for top, bottom in wall] for wall in physical]
        known = self.config.table.tile_reader
        if not complete or sets != {event["set"]} or (known and record["walls"] != codes):
            self.wrong_handoffs += 1
            self.problems.append(problems.WRONG_WALLS.format(
                hand=event["cycle"], sets=",".join(sorted(sets)), complete=complete))
        self.handoffs.append({"cycle": event["cycle"], "set": event["set"],
                              "commitment": event["commitment"],
                              "tiles": sum(len(s) for w in record["walls"] for s in w)})

    # -- faults and the technician ------------------------------------------------------

    def inject(self, spec: FaultSpec) -> None:
        table, kind = self.table, spec.kind
        self._injected.append((spec, self.clock.now()))
        self._undetected.append((spec, self.clock.now()))
        if kind == "tile_jam" or kind == "plate_blocked":
            table.jam(spec.where, True)
        elif kind in ("weak_magnet_tile", "dead_magnet_tile"):
            tile = self._tile(spec)
            tile.magnet = "weak" if kind == "weak_magnet_tile" else "dead"
            table.dead_tiles = table.dead_tiles or tile.magnet == "dead"
        elif kind == "missing_tiles":
            self.players.leave_behind = spec.count
        elif kind == "extra_tiles":
            self.players.foreign = spec.count
        elif kind == "motor_dead":
            table.kill_motor(spec.where)
        elif kind == "motor_slow":
            table.slow_motor(spec.where, spec.factor)
        elif kind == "sensor_stuck":
            table.stick(spec.where, spec.value)
        elif kind == "sensor_dirty":
            p = spec.probability
            table.dirty[spec.where] = DirtySensor(miss=p if spec.mode != "double" else 0.0,
                                                  double=p if spec.mode != "miss" else 0.0)
        elif kind == "sensor_flaky":
            self._flaky(spec)
        elif kind == "lid_blocked":
            table.block_lid(True)
        elif kind == "dice_jam":
            table.jam_dice(True)
        elif kind == "power_cut":
            self.power_cut(spec)
        elif kind == "host_stall":
            self.host_stalls.inject(spec)
        else:
            self.rig.inject_link(spec)

    def _tile(self, spec: FaultSpec):
        set_name = spec.where.split(".")[1]
        return next(t for t in self.table.tiles if t.set_name == set_name and t.code == spec.tile)

    def _flaky(self, spec: FaultSpec) -> None:
        """Random short glitches on a sensor until it is cleaned or replaced."""
        def glitch() -> None:
            if spec.where in self._repaired:
                return
            self.table._pulse(spec.where, 0.0, self.table.noise.uniform(0.005, 0.05))
            self.clock.call_later(self.table.noise.expovariate(spec.probability), glitch)

        self._repaired.discard(spec.where)
        self.clock.call_later(self.table.noise.expovariate(spec.probability), glitch)

    def _act(self, action: ActionSpec) -> None:
        self._pending -= 1
        self._on_the_way.discard(self._job(action))
        table, where, do = self.table, action.where or "", action.do
        if do == "top_up":
            self.players.top_up()
            return
        if do == "clear_jam":
            if where.startswith("side."):
                table.jam(where, False)
            table.jam_dice(False)
        elif do == "clear_obstruction":
            table.block_lid(False)
            for n in self.config.geometry.sides:
                table.jam(f"side.{n}.plate", False)
        elif do == "replace_tile":
            for tile in table.tiles:
                tile.magnet = "ok"
        elif do == "clean_sensor":
            table.unstick(where)
            self._repaired.add(where)
        elif do == "replace_part" and where == "link":
            self.rig.mend_link()
        elif do == "replace_part":
            if where.startswith("motor."):
                table.repair_motor(where)
            else:
                table.unstick(where)
                self._repaired.add(where)
        elif do == "remove_extra":
            table.remove_foreign_tiles()
        elif do == "refeed" and not table.powered:
            # The operator refeeds when the table asks for it, so after the power is back.
            self._pending += 1
            self._when_powered(lambda: self._act(action))
            return
        # The operator empties the machine only when the table asks for a refeed (a
        # set it will build again from the start), never under a build that goes on.
        untrusted = self._count_lost(action.after_fault) or do == "remove_extra"
        refed = untrusted or (do == "refeed" and self.ctl.refeed_hold is not None)
        if refed:
            table.refeed()
        # Only an operator who refed says so: any other action leaves the hold on. A
        # technician who mended one side clears that side's fault, not another's.
        self._clear(action.after_fault, refed=do == "refeed", side=self._side_of(action))

    def _count_lost(self, fault_id: str) -> bool:
        """Whether the table asks for the set inside to be emptied after `fault_id`. A
        lost link answers itself: only a set that was being built is held for a refeed
        (firmware/faults/relink.py); a staged set stays on its tracks, to be raised, and an
        operator who emptied them unasked would leave the table raising empty plates."""
        kind = CATALOGUE[fault_id]
        if kind.answer == RELINK:
            return kind.untrusts_count and (
                self.ctl.build.untrusted or self.ctl.refeed_hold is not None)
        return kind.untrusts_count

    def _when_powered(self, job: Callable[[], None]) -> None:
        """Do `job` once the power is back (still pending for `halted` meanwhile)."""
        self._pending += 1

        def powered() -> None:
            self._pending -= 1
            job()

        self._after_power.append(powered)

    def _clear(self, fault_id: str, refed: bool = False, tries: int = CLEAR_TRIES,
               side: int | None = None) -> None:
        if not self.table.powered:
            # The table is off: what was mended stays mended, but the fault is cleared
            # on the controller that boots when the power returns, never on a dead one.
            self._when_powered(lambda: self._clear(fault_id, refed, tries, side))
            return
        ctl = self.ctl
        refused = False
        for fault in ctl.faults:
            if fault.active and fault.id == fault_id and (
                    side is None or _side(fault.where) in (None, side)):
                try:
                    ctl.clear_fault(fault, by="technician", refed=refed)
                except ClearRefused:
                    refused = True
        if refused and tries > 1:
            # The table says what to do first (the case still reads open: over a link
            # the switch's change is still on its way). A technician reads the
            # message and tries again a moment later; a wrong action stays refused.
            self._pending += 1

            def again() -> None:
                self._pending -= 1
                self._clear(fault_id, refed, tries - 1, side)

            self.clock.call_later(CLEAR_RETRY_S, again)
            return
        if (ctl.may_resume() or ctl.may_resume_table()) and ctl.needs_resume():
            ctl.resume_after_fault()
        self._judge_display()

    def _judge_display(self) -> None:
        """After a clear the display never shows a fault no longer active."""
        shown = self.hal.read("display") if self.table.powered else None
        codes = {f.code for f in self.ctl.faults if f.active}
        cleared = {f.code for f in self.ctl.faults if not f.active}
        if shown and shown in cleared - codes:
            self.stale_displays.append(f"{shown} at t={round(self.clock.now(), 1)}")

    # -- the run --------------------------------------------------------------------------

    def halted(self) -> bool:
        """An error holds the table and nobody is on the way to fix it."""
        if self.link_dead:
            return True
        ctl = self.ctl
        if ctl.refeed_hold is None and not ctl.faults:
            return False        # nothing holds it (asked after every event: said first)
        if not self.table.powered:
            return False        # the power comes back: the table is judged then
        if self.rig.link_returning():
            return False        # the cable comes back: the host connects by itself
        if self._pending:
            return False
        if (self.players.topping_up or self.players.top_up_wanted
                or ctl.cycle.state in TOPPING_UP) and not self._top_up_barred():
            return False
        # A refeed hold alone is no halt: the players answer it themselves (rF, both
        # lift keys held), unless it stands for extra tiles a technician must take out;
        # an error first needs someone to fix it.
        if any(f.active and f.kind.severity == ERROR for f in ctl.faults):
            return True
        hold = ctl.refeed_hold
        if hold is None:
            return False
        if EXTRA in hold.evidence.get("took_the_place_of", ()):
            return True     # extra tiles a technician must take out, whatever players try
        if self.players.refeeding:
            return False
        # Not asked of the players (the display shows something else, the dice of a
        # hand dealt after the resume, say).
        return not (self.table.values["display"] == "rF" or ctl.cycle.state == CycleState.HOMING)

    def _top_up_barred(self) -> bool:
        """Players topping up are on their way no more: the cycle is parked by an error
        their tiles do not answer (a dead lid motor, a blocked lid), and it ignores their
        lift keys until a technician clears it."""
        ctl = self.ctl
        return ctl.cycle.state == CycleState.FAULT and any(
            f.active and f.kind.severity == ERROR and not f.kind.topped_up
            for f in ctl.faults)

    def run(self, progress: Callable[[int, int], None] | None = None,
            wall_limit_s: float | None = None) -> dict[str, Any]:
        """Run the scenario; a crash, a stall or `wall_limit_s` of real time ends it."""
        cycles = self.scenario.cycles
        wall_start = time.perf_counter()
        give_up = None if wall_limit_s is None else wall_start + wall_limit_s
        last = -1
        referee, watchdog, handoffs = self.referee, self.watchdog, self.handoffs

        def finished() -> bool:
            nonlocal last
            if progress is not None and len(handoffs) != last:
                last = len(handoffs)
                progress(last, cycles)
            if give_up is not None and time.perf_counter() > give_up:
                self.timed_out = True
                return True
            if self._checks or referee.pending:
                return False
            if watchdog.stalls:
                return True
            ctl = self.ctl
            # halted() is False while nothing holds the table: not asked then (this
            # runs after every event, hence no bool() and no lookups it can spare).
            # The refeed hold read from the marks themselves, not through the
            # controller's property.
            if (self.link_dead or ctl.faults or ctl.marks.refeed_hold is not None) \
                    and self.halted():
                return True
            return len(handoffs) >= cycles and ctl.build.state == BuildState.STAGED

        # From now: a table may have run for months before this run (tests/test_clean_soak.py).
        # A technician may come an hour late: the wait for them is no stall.
        deadline = self.clock.now() + (cycles + 1) * (
            self.config.simulator.play_time_s + CYCLE_ALLOWANCE_S) + sum(
            a.delay_s for a in self.scenario.actions)
        error = self.rig.connect()
        if error is not None and error.fault_id != "link.lost":
            self._link_failed(error)
            self.rig.close(drain=False)     # the host stopped reading: nothing drains
            return self.report(time.perf_counter() - wall_start)
        try:
            self.boot()
            if error is not None:
                # The board silent at boot: E80 shown, the host says HELLO until it
                # answers (as the daemon does).
                self.rig.wait_for_board(error)
            self.players.start()
            self.clock.run_until(deadline, until=finished)
            if not finished():
                self.watchdog.ran_out()
            if not self.link_dead:
                self.ctl.stop()
            self.rig.close()
        except Exception as exc:   # the firmware (or the model) crashed: say where
            self.crashed = crash_report(exc)
            self.table.power(False)     # whatever it left running stops with the run
            self.rig.close(drain=False)
        except KeyboardInterrupt:
            self.interrupted = True
            self.table.power(False)
            self.rig.close(drain=False)
        wall = time.perf_counter() - wall_start
        return self.report(wall)

    def report(self, wall: float) -> dict[str, Any]:
        expect = self.scenario.expect
        raised = {f["id"] for f in self.faults}
        found = list(self.problems)
        for v in self.referee.violations:
            found.append(problems.REFEREE.format(rule=v["rule"], t=v["t"], detail=v["detail"]))
        for stall in self.watchdog.stalls:
            shown = stall["display"] or "nothing"
            found.append(problems.STALL.format(phase=stall["phase"],
                                               seconds=stall["waited_s"], shown=shown))
        if self.crashed is not None:
            found.append(problems.CRASHED.format(**self.crashed))
        if self.timed_out:
            found.append(problems.OUT_OF_TIME)
        if self.interrupted:
            found.append(problems.INTERRUPTED)
        for fault_id in expect.faults:
            if fault_id not in raised:
                found.append(problems.NOT_RAISED.format(fault=fault_id))
        allowed = set(expect.faults) | set(expect.allow) | {"power.recovered"}
        for fault_id in sorted(raised - allowed):
            found.append(problems.UNEXPECTED.format(fault=fault_id))
        completed = len(self.handoffs)
        wanted = expect.cycles_completed if expect.cycles_completed is not None \
            else self.scenario.cycles
        if completed < wanted:
            found.append(problems.TOO_FEW.format(completed=completed, wanted=wanted))
        accounted = self.table.tiles_accounted()
        if not accounted:
            found.append(problems.TILES)
        latency: dict[str, float] = {}
        for d in self.detections:
            latency.setdefault(d["kind"], d["latency_s"])
        clock = self.clock
        return {
            "referee_violations": list(self.referee.violations),
            "stalls": list(self.watchdog.stalls),
            "crashed": self.crashed,
            "timed_out": self.timed_out,
            "interrupted": self.interrupted,
            "cycles_requested": self.scenario.cycles,
            "cycles_completed": completed,
            "seed": self.table.seed,
            "config": self.config.source,
            "scenario": self.scenario.source,
            "sim_time_s": round(clock.now(), 3),
            "wall_time_s": round(wall, 3),
            "speed_factor": round(clock.now() / wall, 1) if wall > 0 else None,
            "events_run": clock.events_run,
            "faults": self.faults,
            "handoffs": self.handoffs,
            "tiles_accounted": accounted,
            "build_times_s": self.build_times,
            "build_bound_s": self.bounds,
            "motors_safe_after_faults": self.motors_safe,
            "motors_off_at_end": self.table.motors_off(),
            "wrong_handoffs": self.wrong_handoffs,
            "detection_latency_s": latency,
            "injections": [{"kind": s.kind, "where": s.where, "at_s": round(at, 3)}
                           for s, at in self._injected],
            "max_active_copies": self.max_active_copies,
            "stale_displays": self.stale_displays,
            **({"host_stalls": self.host_stalls.report(),
                "host_stall_missed": self.host_stalls.missed}
               if self.host_stalls.stalls or self.host_stalls.missed else {}),
            **self.rig.report(),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "expectations_met": not found,
            "problems": found,
            "completed": not found,
        }


def _side(where: str) -> int | None:
    """The side a place belongs to (`side.2.head`, `motor.side.2.plate`), else None."""
    match = re.search(r"(?:^|\.)side\.(\d+)\b", where)
    return int(match.group(1)) if match else None


def _at_its_side(place: str, side: int | None) -> bool:
    """Whether a fault seen at `side` may come from something at `place`: the same
    side, or either belongs to none."""
    theirs = _side(place)
    return side is None or theirs is None or side == theirs


def crash_report(exc: BaseException) -> dict[str, Any]:
    """The exception and where: the innermost frame of ours (not of a library)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if any(f"/{d}/" in f.filename
                                     for d in ("firmware", "hal", "rules", "simulator"))]
    where = " < ".join(f"{'/'.join(f.filename.rsplit('/', 2)[-2:])}:{f.lineno} in {f.name}"
                       for f in reversed((ours or frames)[-3:])) or "?"
    return {"error": f"{type(exc).__name__}: {exc}", "where": where}
