"""Maintenance work on the table: test mode, mechanism self-tests and jog.

Test mode is what real tables do when both lift keys are held at power-on: the table
stops building and a technician steps through the mechanism tests one by one. Each
test drives its motor through the HAL and watches its sensor with the table's
clock (never a sleep); the result shows on the display (`t3` while test 3 runs, then
`3P` or `3F`) and the lamps (ready = pass, buzzer = fail), and goes to every API
subscriber and the event log. In test mode a lift key 0 press runs the next test, a
lift key 1 press repeats the last one, and a dice key leaves test mode.

Every failure path turns the motors off before it reports anything. Each test and
jog first takes its mechanism from the table's one owner (`owner.py`), which refuses
while the cycle, the build, a diagnosis check or another service motion uses it; the
motors it then drives are the only ones that move while the table is latched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from firmware.faults.kinds import CATALOGUE, ERROR
from firmware.i18n import N_, _
from firmware.machines import homecoming
from firmware.machines.cycle import HOLES_OPEN, WALLS_IN_PLAY, CycleState
from firmware.machines.cycle import MOVING as CYCLE_MOVING
from firmware.machines.owner import Busy, mechanism_of
from firmware.why import in_use
from firmware.words import TEST_MODE
from mjtable_core.clock import Timer
from mjtable_core.geometry import REFERENCE, Geometry
from mjtable_core.signals import LID_DOWN, LID_OFF, LID_UP, Value

if TYPE_CHECKING:
    from firmware.machines.build import Build
    from firmware.machines.cycle import Cycle
    from firmware.machines.dice import Dice
    from firmware.machines.homecoming import TurnRefused
    from firmware.machines.lid import Lid
    from firmware.machines.off_home import Journaled
    from firmware.machines.owner import Owner
    from firmware.machines.plate import Plate
    from firmware.machines.ports import Ports
    from firmware.machines.protocols import Emit
    from firmware.machines.side import SideBuilder
    from mjtable_core.config import TimingSection

MAX_JOG_S = 5.0
# Hold-to-run (the phone console): the motor runs while the technician's page keeps
# saying "still held"; silent for HOLD_S (a page killed, a link lost) it stops here,
# whatever the page and the agent do. One press runs at most MAX_HOLD_S.
HOLD_S = 0.5
MAX_HOLD_S = 30.0
SETTLE_S = 0.2          # motor off between two moves of one test
FREE_RUN_S = 2.0        # motors without a sensor run this long in their test

Done = Callable[[dict[str, Any]], None]
SERVICE, JOG = "test mode", "jog"     # holders of mechanisms, as the owner names them
SKIPPED = "-"       # a test's result when it was not run (P passed, F failed)


class MaintenanceRefused(Exception):
    """The table's state or an interlock says no; `str()` says why and what to do."""


class NoSuchMechanism(MaintenanceRefused):
    """A test or motor name the table does not have."""


@dataclass
class Step:
    """One move of a self-test: drive outputs, then wait for a sensor (or just time)."""

    what: str
    outputs: dict[str, Value]
    expect: tuple[str, Value] | None
    within_s: float
    fault_id: str | None = None


@dataclass
class MechanismTest:
    number: int
    name: str
    label: str
    steps: Callable[[TimingSection], list[Step]]
    note: str = ""
    side: int | None = None


def _k(timing: TimingSection, travel: float) -> float:
    return travel * timing.timeout_factor


def _lid_steps(timing: TimingSection) -> list[Step]:
    limit = _k(timing, timing.lid_travel_s)
    return [Step(_("lid rises to lid.upper"), {"motor.lid": LID_UP}, ("lid.upper", True),
                 limit, "lid.not_rising"),
            Step(_("lid stops"), {"motor.lid": LID_OFF}, None, SETTLE_S),
            Step(_("lid lowers to lid.lower"), {"motor.lid": LID_DOWN}, ("lid.lower", True),
                 limit, "lid.not_lowering"),
            Step(_("lid stops"), {"motor.lid": LID_OFF}, None, SETTLE_S)]


def _cam_steps(motor: str, sensor: str, turn_s: float, fault_id: str,
               timing: TimingSection) -> list[Step]:
    limit = _k(timing, turn_s)
    return [Step(_("{motor} leaves {sensor}").format(motor=motor, sensor=sensor),
                 {motor: True}, (sensor, False), limit, fault_id),
            Step(_("{motor} returns to {sensor}").format(motor=motor, sensor=sensor),
                 {}, (sensor, True), limit, fault_id),
            Step(_("{motor} stops").format(motor=motor), {motor: False}, None, SETTLE_S)]


def _free_run(*motors: str) -> Callable[[TimingSection], list[Step]]:
    def steps(_timing: TimingSection) -> list[Step]:
        return [Step(_("{motors} run").format(motors=" + ".join(motors)),
                     dict.fromkeys(motors, True), None, FREE_RUN_S),
                Step(_("stop"), dict.fromkeys(motors, False), None, SETTLE_S)]
    return steps


def _dice_steps(timing: TimingSection) -> list[Step]:
    return [Step(_("dice start tumbling (dice.spin)"), {"motor.dice": True},
                 ("dice.spin", True), 1.0, "dice.stuck"),
            Step(_("dice tumble for the minimum spin"), {}, None, timing.dice_min_spin_s),
            Step(_("dice settle (dice.spin off)"), {"motor.dice": False},
                 ("dice.spin", False), 2.0, "dice.stuck")]


def mechanism_tests(geometry: Geometry = REFERENCE) -> list[MechanismTest]:
    """The tests in the order test mode steps through them (numbers on the display):
    the lid, every plate, every head, disc and ring, every conveyor, the dice."""
    tests = [MechanismTest(1, "lid", _("lid up and down"), _lid_steps)]
    # The cams of each side: one turn from home to home, timed like the cycle's.
    for cam, title, fault in (("plate", N_("wall lift plate of side {n}"), "plate.stuck"),
                              ("head", N_("stacking head of side {n}"), "head.jam")):
        for n in geometry.sides:
            tests.append(MechanismTest(
                len(tests) + 1, f"{cam}.{n}", _(title).format(n=n),
                lambda timing, n=n, cam=cam, fault=fault: _cam_steps(
                    f"motor.side.{n}.{cam}", f"side.{n}.{cam}_home",
                    getattr(timing, f"{cam}_turn_s"), fault, timing),
                side=n))
    tests.append(MechanismTest(len(tests) + 1, "disc", _("shuffle disc and magnet ring"),
                               _free_run("motor.disc", "motor.ring"),
                               note=N_("no sensor: watch that disc and ring both turn")))
    for n in geometry.sides:
        tests.append(MechanismTest(len(tests) + 1, f"conveyor.{n}",
                                   _("conveyor of side {n}").format(n=n),
                                   _free_run(f"motor.side.{n}.conveyor"),
                                   note=N_("no sensor: watch that the belt moves"), side=n))
    tests.append(MechanismTest(len(tests) + 1, "dice", _("dice tumbler"), _dice_steps))
    return tests


def tests_by_name(geometry: Geometry) -> dict[str, MechanismTest]:
    """The mechanism tests by name (made per call: labels follow the language)."""
    return {t.name: t for t in mechanism_tests(geometry)}


def jog_motors(geometry: Geometry) -> dict[str, str]:
    """Jog: motor name as technicians say it -> HAL signal."""
    return {"lid": "motor.lid", "disc": "motor.disc", "ring": "motor.ring",
            "dice": "motor.dice",
            **{f"{part}.{n}": f"motor.side.{n}.{part}"
               for n in geometry.sides for part in ("head", "plate", "conveyor")}}


def jog_directions(motor: str) -> tuple[str, ...]:
    """The directions a jog of `motor` takes: the lid up or down, every other motor
    forward only. The jog refuses any other; the API tells consoles the same."""
    return ("up", "down") if motor == "lid" else ("fwd",)


@dataclass
class _Run:
    """A self-test in progress."""

    test: MechanismTest
    steps: list[Step]
    by: str | None
    done: Done | None
    index: int = -1
    timer: Timer | None = None
    started: float = 0.0
    log: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Jog:
    motor: str
    signal: str
    direction: str
    seconds: float
    by: str
    done: Done | None
    timer: Timer | None = None
    stop_at: str | None = None
    started: float = 0.0
    hold: int | None = None             # a hold-to-run jog's number
    deadman: Timer | None = None        # stops a hold not kept within HOLD_S


@dataclass(frozen=True)
class TableWork:
    """The table's own work as test mode stops and resumes it: the power-on path, and
    the halt and resume of the fault path (faults/clearing.py)."""

    start: Callable[[], None]
    halt: Callable[[str, str], None]
    needs_resume: Callable[[], bool]
    may_resume: Callable[[], bool]
    may_resume_table: Callable[[], bool]
    resume_after_fault: Callable[[], None]


class Maintenance:
    """Test mode, self-tests and jog for one table."""

    def __init__(self, ports: Ports, *, cycle: Cycle, build: Build, lid: Lid, dice: Dice,
                 sides: Sequence[SideBuilder], plates: Sequence[Plate], owner: Owner,
                 work: TableWork, journaled: Journaled, turn_refused: TurnRefused,
                 input_watchers: list[Callable[[str, Value], None]],
                 subscribers: list[Callable[[dict[str, Any]], None]]) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.timing = ports.timing
        self.geometry = ports.geometry
        self.emit: Emit = ports.emit
        self.fault = ports.fault
        self.marks = ports.marks
        self.cycle, self.build, self.lid, self.dice = cycle, build, lid, dice
        self.sides, self.plates, self.owner = sides, plates, owner
        self.work = work
        self.journaled = journaled          # each machine's state as the journal keeps it
        self.turn_refused = turn_refused    # why a plate off home may not come round
        self.test_mode = False
        self.results: dict[str, dict[str, Any]] = {}
        self.last_test: str | None = None
        self._run: _Run | None = None
        self._jog: _Jog | None = None
        self._queue: list[str] = []
        self._holds = 0
        # Tile movers run while a set was part built: its counts no longer hold.
        self.moved_tiles: set[str] = set()
        # The lid jogged in this test mode: it must be back at its lower stop to leave.
        self.lid_jogged = False
        input_watchers.append(self._on_input)
        subscribers.append(self._on_event)

    # -- state ----------------------------------------------------------------------

    @property
    def running(self) -> str | None:
        """What service motion is in progress ("test lid", "jog head.2"), if any."""
        if self._run is not None:
            return f"test {self._run.test.name}"
        if self._jog is not None:
            return f"jog {self._jog.motor}"
        return None

    def status(self) -> dict[str, Any]:
        return {"test_mode": self.test_mode, "running": self.running,
                "last_test": self.last_test, "results": dict(self.results),
                "queued": list(self._queue)}

    def busy(self) -> str | None:
        """Why the table cannot be taken for service now, or None."""
        cycle = self.cycle.state
        if cycle in HOLES_OPEN:
            return _("the lid is open for the players (cycle {cycle}): hands may be in the "
                     "hole; close it with a lift key first").format(cycle=cycle)
        if cycle in CYCLE_MOVING:
            return _("the table is moving (cycle {cycle}); wait until it settles").format(
                cycle=cycle)
        if cycle == CycleState.DEALING:
            return _("a hand is being dealt (waiting for the dice); finish the deal first")
        if self.build.running:
            built = sum(s.counted for s in self.sides)
            total = sum(s.target for s in self.sides)
            return _("a set is being built ({built}/{total} tiles); wait for the ready lamp, "
                     "or force test mode (the half-built set is then rebuilt)").format(
                         built=built, total=total)
        return None

    # -- power-on and test mode -------------------------------------------------------

    def power_on(self) -> None:
        """Start the table, or enter test mode when both lift keys are held."""
        hal = self.hal
        held = hal.read("key.lift.0") and hal.read("key.lift.1")
        # The boot path runs either way (it also reads the journal); test mode then
        # stops the homing it began within the same loop turn.
        self.work.start()
        if held:
            self.enter(by=None, reason="both lift keys held at power-on", force=True)

    def enter(self, by: str | None, reason: str = "console", force: bool = False) -> None:
        """Stop the table's work and enter test mode."""
        if self.test_mode:
            return
        why = self.busy()
        if why is not None and not (force and self.cycle.state not in HOLES_OPEN):
            raise MaintenanceRefused(_("cannot enter test mode: {why}").format(why=why))
        self.work.halt("test mode", TEST_MODE)
        self.test_mode = True
        self.marks.service_mode = True    # opening the case is expected now
        self.results = {}
        self.last_test = None
        self.lid_jogged = False
        self.hal.write("display", "t-")
        self.emit("service.mode", on=True, by=by, reason=reason)

    def leave(self, by: str | None) -> None:
        """Leave test mode; the table re-homes unless a fault or the e-stop holds it."""
        if not self.test_mode:
            return
        self._abort(N_("leaving test mode"))
        # A plate the table may not turn round stays where it is: say which and how,
        # and stay in test mode (never an E31 that a clear raises again at once).
        stranded = homecoming.stranded_plates(self.plates, self.turn_refused)
        if stranded:
            raise MaintenanceRefused(_("cannot leave test mode: {why}").format(
                why=homecoming.stranded_why(stranded)))
        if self.lid_jogged and not self._lid_down():
            # Left up, the cycle's next lift key asks an open lid to open (E99).
            raise MaintenanceRefused(_("cannot leave test mode: {why}").format(
                why=_("the lid is not at its lower stop (lid.lower not seen): jog lid "
                      "down (it stops at lid.lower), then leave test mode again")))
        self._queue = []
        self.test_mode = False
        self.marks.service_mode = False
        for lamp in ("lamp.ready", "lamp.building"):
            self.hal.write(lamp, False)
        self.hal.write("display", "")
        self.emit("service.mode", on=False, by=by)
        self.resume_if_clear()
        # Test mode borrowed the ready lamp; a set still staged inside is ready again.
        if self.build.staged:
            self.hal.write("lamp.ready", True)

    def resume_if_clear(self) -> bool:
        """Re-home and build again when nothing holds the table stopped."""
        work = self.work
        if self.test_mode or not work.needs_resume() or not (
                work.may_resume() or work.may_resume_table()):
            return False
        if self.moved_tiles and homecoming.build_incomplete(self.journaled):
            homecoming.hold_for_refeed(self.fault, self.marks, self.build,
                                       self.cycle.set_building, sorted(self.moved_tiles))
        self.moved_tiles.clear()
        work.resume_after_fault()
        return True

    # -- self-tests -------------------------------------------------------------------

    def test(self, name: str, by: str | None, done: Done | None = None) -> None:
        """Run one mechanism's self-test (or "all" in order); `done` gets each result."""
        tests = tests_by_name(self.geometry)
        names = list(tests) if name == "all" else [name]
        for n in names:
            if n not in tests:
                raise NoSuchMechanism(_("no mechanism test {name!r}; tests: all, {tests}").format(
                    name=n, tests=", ".join(tests)))
        self._check_free()
        if not self.test_mode:
            if self.busy() is not None:
                raise MaintenanceRefused(_("cannot test now: {why}").format(why=self.busy()))
            self.enter(by, reason=f"test {name}")
        self._queue = names[1:]
        self._start(tests[names[0]], by, done)

    def _note_moved(self, mechanism: str) -> None:
        if homecoming.moves_tiles(mechanism) and homecoming.build_incomplete(self.journaled):
            self.moved_tiles.add(mechanism)

    def _check_free(self) -> None:
        if self.marks.estopped:
            raise MaintenanceRefused(_("the e-stop is active: release it before moving anything"))
        if self.running is not None:
            raise MaintenanceRefused(_("{running} is still running; wait for it to finish").format(
                running=self.running))

    def _start(self, test: MechanismTest, by: str | None, done: Done | None) -> None:
        part = test.name.partition(".")[0]
        if part in ("disc", "conveyor", "plate") and not self._lid_down():
            # The same interlock as jog: hands may be in the hole, a wall would rise
            # into it (a lid jogged up in test mode, then a plate test).
            self._queue = []
            raise MaintenanceRefused(_("cannot test {name}: {why}").format(
                name=test.name, why=_("the lid is not at its lower stop (lid.lower not "
                                      "seen): hands may be in the hole; lower the lid "
                                      "with a lift key or jog lid down first")))
        skipped = homecoming.plate_test_refused(test.name, self.plates, self.sides,
                                                 self.turn_refused, self.marks,
                                                 self.journaled)
        if skipped is not None:
            self._skip(test, by, done, skipped)
            return
        try:
            self.owner.acquire(SERVICE, [test.name], f"test {test.name}")
        except Busy as exc:
            raise MaintenanceRefused(_("cannot test {name}: {why}").format(
                name=test.name, why=in_use(exc))) from None
        self._note_moved(test.name)
        self._run = run = _Run(test, test.steps(self.timing), by, done,
                               started=self.clock.now())
        self.last_test = test.name
        hal = self.hal
        hal.write("display", f"t{test.number}")
        hal.write("lamp.ready", False)
        hal.write("lamp.building", True)
        for n in self.geometry.sides:
            hal.write(f"lamp.dealer.{n}", n == test.side)
        self.emit("service.test.started", test=test.name, number=test.number, by=by)
        self._next_step(run)

    def _next_step(self, run: _Run) -> None:
        if self._run is not run:
            return
        run.index += 1
        if run.index >= len(run.steps):
            self._finish(run, passed=True,
                         detail=_(run.test.note) if run.test.note else _("every step seen in time"))
            return
        step = run.steps[run.index]
        for name, value in step.outputs.items():
            self.hal.write(name, value, holder=SERVICE)
        step_started = self.clock.now()
        if step.expect is None:
            run.timer = self.clock.call_later(step.within_s, lambda: self._next_step(run))
            return
        sensor, wanted = step.expect
        if self.hal.read(sensor) == wanted:
            self.clock.post(lambda: self._next_step(run))
            return

        def missed() -> None:
            waited = round(self.clock.now() - step_started, 3)
            self._finish(run, passed=False,
                         detail=_("{step}: {sensor} did not turn {wanted} within {seconds} "
                                  "s").format(step=step.what, sensor=sensor,
                                              wanted=_("on") if wanted else _("off"),
                                              seconds=f"{step.within_s:g}"),
                         fault_id=step.fault_id,
                         evidence={"sensor": sensor, "expected": wanted,
                                   "waited_s": waited, "step": step.what})

        run.timer = self.clock.call_later(step.within_s, missed)

    def _on_input(self, name: str, value: Value) -> None:
        run = self._run
        if run is not None and 0 <= run.index < len(run.steps):
            expect = run.steps[run.index].expect
            if expect is not None and expect == (name, value):
                run.log.append({"t": round(self.clock.now() - run.started, 3),
                                "seen": name, "value": value})
                if run.timer is not None:
                    run.timer.cancel()
                self._next_step(run)
        jog = self._jog
        if jog is not None and jog.stop_at == name and value:
            self._end_jog(jog, f"reached {name}")

    def _finish(self, run: _Run, passed: bool, detail: str, fault_id: str | None = None,
                evidence: dict[str, Any] | None = None) -> None:
        # Motors off first, whatever happened.
        self.hal.safe_state()
        if run.timer is not None:
            run.timer.cancel()
        self._run = None
        self.owner.release(SERVICE)
        test = run.test
        result: dict[str, Any] = {
            "test": test.name, "number": test.number, "label": test.label,
            "result": "P" if passed else "F", "detail": detail, "by": run.by,
            "took_s": round(self.clock.now() - run.started, 3), "seen": run.log}
        if fault_id is not None:
            kind = CATALOGUE[fault_id]
            result["evidence"] = evidence or {}
            result["diagnosis"] = {
                "fault": fault_id, "code": kind.display_code(test.side),
                **kind.texts(test.side)}
        self.results[test.name] = result
        hal = self.hal
        hal.write("lamp.building", False)
        hal.write("lamp.ready", passed)
        if not self.marks.estopped:       # ES stays on the display until released
            hal.write("display", f"{test.number}{'P' if passed else 'F'}")
        if not passed:
            hal.write("buzzer", True)
            self.clock.call_later(0.5, lambda: hal.write("buzzer", False))
        self.emit("service.test", **result)
        if run.done is not None:
            run.done(result)
        self._next_queued(run.by, run.done)

    def _skip(self, test: MechanismTest, by: str | None, done: Done | None,
              why: str) -> None:
        """A test that must not run now: said like a result (`n-` on the display, the
        reason for the console), and `test all` goes on with the rest."""
        result: dict[str, Any] = {
            "test": test.name, "number": test.number, "label": test.label,
            "result": SKIPPED, "detail": why, "by": by, "took_s": 0.0, "seen": []}
        self.results[test.name] = result
        self.last_test = test.name      # the panel's next lift key steps past it
        if not self.marks.estopped:
            self.hal.write("display", f"{test.number}{SKIPPED}")
        self.emit("service.test", **result)
        if done is not None:
            done(result)
        self._next_queued(by, done)

    def _next_queued(self, by: str | None, done: Done | None) -> None:
        if self._queue and self.test_mode and not self.marks.estopped:
            nxt = tests_by_name(self.geometry)[self._queue.pop(0)]
            self.clock.post(lambda: self._panel(lambda: self._start(nxt, by, done)))

    def _abort(self, why: str) -> None:
        self._queue = []
        if self._run is not None:
            self._finish(self._run, passed=False,
                         detail=_("aborted: {why}").format(why=_(why)))
        if self._jog is not None:
            self._end_jog(self._jog, f"aborted: {why}")

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "fault" and CATALOGUE[event["id"]].severity == ERROR:
            self._abort(f"fault {event['code']} {event['id']}")
        elif kind == "estop":
            self._abort(N_("e-stop"))
        elif kind == "estop.released" and self.test_mode:
            self.hal.write("display", "t-")     # test mode still holds the table
        elif kind == "key" and self.test_mode and self.running is None:
            # Test mode on the panel: lift key 0 = next test, 1 = again, dice key = leave.
            key = event["key"]
            order = [t.name for t in mechanism_tests(self.geometry)]
            if key == "key.lift.0":
                nxt = order[0] if self.last_test is None else order[
                    (order.index(self.last_test) + 1) % len(order)]
                self.clock.post(lambda: self._panel(lambda: self.test(nxt, "panel")))
            elif key == "key.lift.1" and self.last_test is not None:
                again = self.last_test
                self.clock.post(lambda: self._panel(lambda: self.test(again, "panel")))
            elif key.startswith("key.dice."):
                self.clock.post(lambda: self._panel(lambda: self.leave("panel")))

    def _panel(self, action: Callable[[], None]) -> None:
        try:
            action()
        except MaintenanceRefused as exc:
            self.emit("service.refused", reason=str(exc), by="panel")

    # -- jog --------------------------------------------------------------------------

    def interlock(self, motor: str, direction: str) -> str | None:
        """Why `motor` must not move now, or None.

        A jog is how a technician frees a jam, so a latched fault does not refuse it;
        what refuses it is what could hurt a hand or the tiles: anything that moves
        tiles under the lid (disc, ring, belts) or lifts a wall while the lid is away
        from its lower stop, and a lid opened over a running build.
        """
        if self.marks.estopped:
            return _("the e-stop is active: release it before moving anything")
        if self.running is not None:
            return _("{running} is still running; wait for it to finish").format(
                running=self.running)
        part, _sep, side = motor.partition(".")
        if part == "lid":
            return self._lid_interlock(direction)
        if part in ("disc", "ring", "conveyor", "plate") and not self._lid_down():
            return _("the lid is not at its lower stop (lid.lower not seen): hands may be "
                     "in the hole; lower the lid with a lift key or jog lid down first")
        if part in ("disc", "ring"):
            if self.build.running:
                return _("the build is driving the disc and ring (build {state})").format(
                    state=self.build.state)
        elif part in ("head", "conveyor"):
            n = int(side)
            if self.sides[n].busy:
                return _("side {n} is building ({state}); wait or enter test mode").format(
                    n=n, state=self.sides[n].state)
        elif part == "plate":
            n = int(side)
            if self.plates[n].moving or self.cycle.raising:
                return _("the cycle is raising the walls")
            if not self.test_mode and self.cycle.state in WALLS_IN_PLAY:
                return _("the walls are in play on the plates; enter test mode first")
            if homecoming.plate_test_refused(motor, self.plates, self.sides, self.turn_refused,
                                             self.marks, self.journaled) is not None:
                # Short of a whole turn it is left off home under them, and its way
                # home lifts them all the same.
                return _("its track holds stacks of the next set, and a turn would lift "
                         "them onto the table (the next hand would be built wrong)")
        elif part == "dice" and (self.dice.spinning or self.cycle.rolling):
            return _("the dice are rolling")
        return None

    def _lid_interlock(self, direction: str) -> str | None:
        cycle = self.cycle.state
        if cycle in HOLES_OPEN:
            return _("hands may be in the hole: the lid is open for the players "
                     "(cycle {cycle}); close it with a lift key first").format(cycle=cycle)
        if self.lid.moving:
            return _("the cycle is moving the lid ({state})").format(state=self.lid.state)
        sensor = "lid.upper" if direction == "up" else "lid.lower"
        if self.hal.read(sensor):
            return _("the lid is already at {sensor}").format(sensor=sensor)
        if direction == "up" and self.build.part_built:
            # An open lid over a turning disc: hands reach moving tiles (motor.lid_open).
            return _("the build is driving the disc and ring (build {state}): the lid "
                     "stays down; wait for the ready lamp, or top up with both lift "
                     "keys").format(state=self.build.state)
        return None

    def _lid_down(self) -> bool:
        """The lid at its lower stop, by its sensor alone: lid.lower guards the feed and
        is never run on a timer (supervisor.GUARDS), so nothing else can stand in."""
        return bool(self.hal.read("lid.lower"))

    def jog(self, motor: str, direction: str, seconds: float, by: str,
            done: Done | None = None, hold: bool = False) -> dict[str, Any]:
        """Run one motor for `seconds` (the lid stops at its limit sensor); with `hold`,
        only while `keep` comes at least every HOLD_S (`seconds` then caps the press)."""
        motors = jog_motors(self.geometry)
        signal = motors.get(motor)
        if signal is None:
            raise NoSuchMechanism(_("no motor {motor!r}; motors: {motors}").format(
                motor=motor, motors=", ".join(motors)))
        if direction not in jog_directions(motor):
            moves = (_("{motor} moves up or down, not “{direction}”") if motor == "lid"
                     else _("{motor} turns only fwd, not “{direction}”"))
            raise MaintenanceRefused(moves.format(motor=motor, direction=direction))
        most = MAX_HOLD_S if hold else MAX_JOG_S
        if not 0 < seconds <= most:
            raise MaintenanceRefused(_("jog time must be above 0 and at most {most:g} s, "
                                   "got {seconds:g}").format(most=most, seconds=seconds))
        why = self.interlock(motor, direction)
        if why is not None:
            raise MaintenanceRefused(_("jog {motor} refused: {why}").format(motor=motor, why=why))
        try:
            self.owner.acquire(JOG, [mechanism_of(signal)], f"jog {motor} by {by}")
        except Busy as exc:
            raise MaintenanceRefused(_("jog {motor} refused: {why}").format(
                motor=motor, why=in_use(exc))) from None
        self._note_moved(motor)
        self.lid_jogged = self.lid_jogged or motor == "lid"
        jog = _Jog(motor, signal, direction, seconds, by, done,
                   started=self.clock.now())
        if motor == "lid":
            jog.stop_at = "lid.upper" if direction == "up" else "lid.lower"
            value: Value = LID_UP if direction == "up" else LID_DOWN
        else:
            value = True
        self._jog = jog
        self.hal.write(signal, value, holder=JOG)
        jog.timer = self.clock.call_later(seconds, lambda: self._end_jog(jog, "time up"))
        started: dict[str, Any] = {"motor": motor, "signal": signal, "direction": direction,
                                   "seconds": seconds, "by": by}
        if hold:
            self._holds += 1
            jog.hold = started["hold"] = self._holds
            started["hold_s"] = HOLD_S
            self._arm(jog)
        self.emit("service.jog.started", **started)
        return started

    def _arm(self, jog: _Jog) -> None:
        if jog.deadman is not None:
            jog.deadman.cancel()
        jog.deadman = self.clock.call_later(HOLD_S, lambda: self._end_jog(jog, "hold lost"))

    def keep(self, hold: int, by: str) -> dict[str, Any]:
        """The technician still holds the button: run HOLD_S more. A hold that has
        stopped (released, lost, time up, a fault) never starts again from here."""
        jog = self._jog
        if jog is None or jog.hold is None or jog.hold != hold or jog.by != by:
            raise MaintenanceRefused(_("the jog has stopped; press and hold again"))
        self._arm(jog)
        return {"hold": hold, "motor": jog.motor, "running": True}

    def stop_jog(self, hold: int | None, by: str | None) -> dict[str, Any]:
        """Stop the jog now (any jog without a number: the safe direction)."""
        jog = self._jog
        if jog is None or (hold is not None and jog.hold != hold):
            return {"stopped": None}
        self._end_jog(jog, "released")
        return {"stopped": jog.motor, "by": by}

    def _end_jog(self, jog: _Jog, why: str) -> None:
        off: Value = LID_OFF if jog.motor == "lid" else False
        self.hal.write(jog.signal, off)
        if jog.timer is not None:
            jog.timer.cancel()
        if jog.deadman is not None:
            jog.deadman.cancel()
        if self._jog is not jog:
            return
        self._jog = None
        self.owner.release(JOG)
        result = {"motor": jog.motor, "direction": jog.direction, "by": jog.by,
                  "ran_s": round(self.clock.now() - jog.started, 3), "stopped": why}
        self.emit("service.jog", **result)
        if jog.done is not None:
            jog.done(result)
