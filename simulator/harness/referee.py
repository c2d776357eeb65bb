"""The referee: physical safety invariants, judged from the simulated table itself.

The harness reports what the firmware says (faults, handoffs); the referee watches
where the lid, plates, walls and motors physically are, the way a test rig with limit
switches and a camera would, and records every breach of an invariant as
`{t, cycle, rule, detail}`. The rule names are stable (docs/faults.md):

- `motor.lid_open`: the disc, ring or a conveyor runs while the lid is away from its
  lower stop (a top-up pauses the build: the lid may open, those motors may not run).
- `wall.lid_open`: a plate cam lifts a wall while the lid is away from its lower stop.
- `wall.not_up`: the walls are committed while a plate cam is mid-turn or a wall does
  not stand complete on the table.
- `wall.onto_wall`: a wall rises where the last hand's wall still stands.
- `handoff.mismatch`: a handoff names walls other than the tiles standing there.
- `build.onto_track`: a stack is laid onto a track still holding a wall that did not
  rise (two sets on one track, or more stacks than a wall holds).
- `motor.case_open`: a motor runs while the case switch reads open.
- `motor.after_stop`: a motor of a scope that a stop-fault, an e-stop or a halt
  stopped runs before the explicit resume (that fault cleared at its place; `resume_after_fault`
  for an e-stop or a halt).
- `motor.on_at_fault`: a motor turns on in the same instant a fault stops its scope.
- `motor.interlock`: a motor runs, at the end of an instant, against the interlock
  table the host declared to the I/O board (`hal/interlocks.py`) as its inputs read:
  the board enforces it on every command and every input change, so on a rig with a
  board this never happens, whatever the host does.

In test mode a technician's self-test moves what a fault stopped, on purpose: that is
neither a fault nor ignored. From `service.mode` on to off, a motor turned on is not
judged against the stops (`motor.after_stop`, `motor.on_at_fault`) but against the
interlock table, on every rig (with a board or not), and the lid, wall and case rules
hold as ever.

Over a link a stop-fault's scope is watched from the fault's instant: a motor that
turns on after it is caught at once (once the instant's frames have crossed: within
the instant on the ioboard rig, within `frame_grace_s` on a chip, whose UART and loop
take real time), link or no link; only a motor already running gets the link's grace
to be stopped (the SAFE, or the board's failsafe when the link is broken).

What the firmware believes is used only for *when* to judge (a commit, a handoff, a
fault's instant); what is judged is always the physical table, and what a fault must
stop is the referee's own table (stops.py), never the firmware's fault kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hal.interlocks import Rule, interlock_rules
from mjtable_core.signals import Value
from simulator.harness.stops import feed_motors, motors_of, must_stop
from simulator.physics.table import SimTable

RULES = ("motor.lid_open", "wall.lid_open", "wall.not_up", "wall.onto_wall", "handoff.mismatch",
         "build.onto_track", "motor.case_open", "motor.after_stop", "motor.on_at_fault",
         "motor.interlock")
CASE_REACTION_S = 0.05   # one loop turn; the firmware reacts within the instant


@dataclass
class Stop:
    """A scope of motors a fault (or an e-stop) turned off, until an explicit resume."""

    reason: str
    motors: frozenset[str]
    at: float
    where: str | None = None      # a fault's place: only its own clearance resumes it
    failsafe: bool = False        # the board's failsafe stops it (the link is lost)
    # The motors judged turning on under it: kept on the stop itself, not by its id,
    # which a stop made once this one is gone may be given again.
    judged: set[str] = field(default_factory=set, compare=False)


@dataclass
class Referee:
    table: SimTable
    cycle: Callable[[], int]
    violations: list[dict[str, Any]] = field(default_factory=list)
    stops: list[Stop] = field(default_factory=list)
    limit: int = 200           # a broken run breaks the same rule at every event
    # Over a link a stop reaches the table after the frames cross (same instant on the
    # lockstep clock); with the link lost or broken, after the board's failsafe limit.
    link_grace_s: float = 0.0
    # With the link sound: the time a stop's SAFE takes to cross the wire and be acted
    # on. 0 on the rigs whose lockstep settles the link within the instant; on a
    # chip, the line's pace and the board's turn (simulator/rigs/rig.py).
    frame_grace_s: float = 0.0
    pending: int = 0
    # Whether the link is physically broken (dropped or garbled) at this instant: a stop
    # the firmware sends then cannot cross it, and the board's failsafe stops the motors
    # within link_grace_s instead. With the link sound there is no grace.
    link_broken: Callable[[], bool] = lambda: False
    # The board's interlock table (a rig with a board): judged at the end of each instant.
    interlocks: Sequence[Rule] = ()

    def __post_init__(self) -> None:
        self.motors = [s.name for s in self.table.signals.values() if s.is_motor]
        # Asked at every command; in the table's order, not a set's (which the hash
        # seed changes), so that breaches of one instant are listed alike in every run.
        feeding = feed_motors(self.table.geometry)
        self._feed_motors = tuple(m for m in self.motors if m in feeding)
        # What a witnessed change is judged for: a motor's command, the lid's lower
        # stop; each its own witness, so that neither asks which it is.
        self.table.heed(self._on_motor if self.interlocks else self._check_motors,
                        {n for n in self.table.signals if n.startswith("motor.")})
        self.table.heed(self._on_lid, {"lid.lower"})
        self._interlock_inputs = frozenset(rule[1] for rule in self.interlocks)
        # The readings judged (_on_reading): the interlocks' inputs and the case switch,
        # and in test mode every reading; the table passes no other to it.
        self._judged_readings = self._interlock_inputs | {"case_open"}
        self.table.observe(self._on_reading, self._judged_readings)
        self.table.happenings.append(self._on_happening)
        self._seen: set[tuple[str, str]] = set()
        self._turned_on: dict[str, float] = {}
        self._early_clears: list[tuple[str, str | None]] = []
        self._interlock_due = False
        self._turned_late: dict[str, Stop] = {}     # judged once the instant is over
        self._in_grace: list[Stop] = []     # stops still crossing the link
        self._testing = False       # test mode: motion is a technician's self-test
        self._table_rules = tuple(interlock_rules(self.table.signals))

    # -- what is physically so -----------------------------------------------------

    def running(self, motor: str) -> bool:
        """Commanded on: a dead motor told to run is still an unsafe command."""
        value = self.table.values[motor]
        return bool(value) and value != "off" and self.table.powered

    def lid_closed(self) -> bool:
        return bool(self.table.physical["lid.lower"])

    def _breach(self, rule: str, detail: str, once_key: str = "") -> None:
        if once_key:
            key = (rule, f"{self.cycle()}:{once_key}")
            if key in self._seen:
                return
            self._seen.add(key)
        if len(self.violations) >= self.limit:
            return
        self.violations.append({"t": round(self.table.clock.now(), 3), "cycle": self.cycle(),
                                "rule": rule, "detail": detail})

    # -- the table's own events -----------------------------------------------------

    def _on_motor(self, name: str, value: Value) -> None:
        """A motor's command changed, on a rig whose board holds an interlock table."""
        self._check_motors(name, value)
        self._judge_interlocks()

    def _on_lid(self, name: str, value: Value) -> None:
        self._check_motors(None, value)

    def _judge_interlocks(self) -> None:
        """At the end of this instant: the board reacts to a reading or a command in
        the same instant, as its inputs and its frames arrive."""
        if not self._interlock_due:
            self._interlock_due = True
            self.table.clock.call_later(0.0, self._interlocks_held)

    def _interlocks_held(self) -> None:
        self._interlock_due = False
        values = self.table.values
        rules = self.interlocks or (self._table_rules if self._testing else ())
        for output, input_name, level, output_value in rules:
            if not self.running(output) or values[input_name] == level or (
                    output_value is not None and values[output] != output_value):
                continue
            self._breach("motor.interlock", f"{output} runs with {input_name} reading "
                         f"{values[input_name]}", f"{output}<{input_name}")

    def _on_reading(self, name: str, value: Value) -> None:
        if name in self._interlock_inputs or self._testing:
            self._judge_interlocks()
        # The case switch as it reads (a test opens the case by sticking it): every
        # motor must be off once the firmware has had the instant to react.
        if name == "case_open" and value:
            self.table.clock.call_later(CASE_REACTION_S, self._case_check)

    def _case_check(self) -> None:
        if self.table.values["case_open"]:
            for motor in self.motors:
                if self.running(motor):
                    self._breach("motor.case_open", f"{motor} runs with the case open", motor)

    def _check_motors(self, turned: str | None, _value: Value = None) -> None:
        """The motor rules, when motor `turned` is commanded (a witness of the motors'
        commands where the rig has no interlock table) or the lid moves (None)."""
        # lid_closed and running spelled out, and the time read only for a motor
        # turned on: this runs at every motor command and every move of the lid.
        table = self.table
        if not table.physical["lid.lower"]:
            for motor in self._feed_motors:
                if self.running(motor):
                    self._breach("motor.lid_open", f"{motor} runs with the lid at "
                                 f"{table.lid.position:.0%} of its travel", motor)
        if turned is None:
            return
        values = table.values
        value = values[turned]
        if not value or value == "off" or not table.powered:
            return
        if values["case_open"]:
            self._breach("motor.case_open", f"{turned} turned on with the case open", turned)
        self._turned_on[turned] = now = table.clock.now()
        if self._testing:
            # A self-test's motion: judged against the interlock table, not the stops.
            self._judge_interlocks()
            return
        if not self.stops and not self._in_grace:
            return      # nothing stopped: most motor starts
        for stop in [*self.stops, *self._in_grace]:
            if turned in stop.motors:
                if self.link_grace_s and turned not in self._turned_late:
                    # Over a link: judged when the instant's frames have crossed (a SET
                    # sent before the fault, late for noise, is followed by the SAFE).
                    self._turned_late[turned] = stop
                    self.table.clock.call_later(self.frame_grace_s,
                                                lambda: self._late_turn(turned))
                elif not self.link_grace_s:
                    self._turned_on_after(turned, stop, now)
                return

    def _turned_on_after(self, turned: str, stop: Stop, now: float) -> None:
        stop.judged.add(turned)
        rule = "motor.on_at_fault" if now == stop.at else "motor.after_stop"
        self._breach(rule, f"{turned} turned on after {stop.reason} stopped it "
                           f"(at t={stop.at:.3f})")

    def _late_turn(self, turned: str) -> None:
        stop = self._turned_late.pop(turned)
        stop.judged.add(turned)
        if self.running(turned) and (stop in self.stops or stop in self._in_grace):
            self._turned_on_after(turned, stop, self._turned_on[turned])

    def _on_happening(self, what: str, n: int) -> None:
        if what == "wall.rising":
            if not self.lid_closed():
                self._breach("wall.lid_open", f"wall {n} rises with the lid at "
                             f"{self.table.lid.position:.0%} of its travel", f"wall{n}")
            if self.table.walls[n] and self.table.sides[n].track:
                self._breach("wall.onto_wall", f"wall {n} rises where the last hand's "
                             f"{len(self.table.walls[n])} stacks still stand", f"onto{n}")
        elif what == "stack.laid":
            track = self.table.sides[n].track
            # A stray pushed in with a set rides with it: a foreign tile, or a tile of
            # the other set forgotten on the table and pushed in at the next hand. Only
            # the count can tell those (build.extra_tiles); what this rule catches is a
            # set laid onto another's stacks, judged by the push each tile came with.
            # The whole track at every stack laid: a plain loop over the stacks, the
            # cheapest way to walk it in Python.
            came_with = self.table.came_with.get
            sets: set[str] = set()
            add = sets.add
            for top, bottom in track:
                add(came_with(top.id, top.set_name))
                add(came_with(bottom.id, bottom.set_name))
            sets.discard("X")
            full = self.table.config.table.stacks_per_wall
            if len(sets) > 1 or len(track) > full:
                self._breach("build.onto_track", f"side {n}: {len(track)} stacks of sets "
                             f"{sorted(sets)} on the track", f"track{n}")

    # -- the firmware's instants ----------------------------------------------------

    def on_event(self, event: dict[str, Any]) -> None:
        """Called with every controller event: when to judge, never what."""
        kind = event["kind"]
        must = must_stop(event) if kind == "fault" else None
        if must is not None:
            # What the referee's own table says this fault must stop (stops.py).
            motors = motors_of(must, self.table.geometry, frozenset(self.motors))
            self._stop(Stop(event["id"], motors, self.table.clock.now(),
                            str(event.get("where")), must.failsafe))
        elif kind in ("estop", "halted"):
            self._stop(Stop(kind, frozenset(self.motors), self.table.clock.now()))
        elif kind == "fault.cleared":
            self._resume_fault(event["id"], str(event.get("where")))
        elif kind == "resume_after_fault":
            # A re-home resumes after an e-stop or a halt; a fault's stop lasts until
            # that fault is cleared, whatever the firmware does before.
            self.stops = [s for s in self.stops if s.where is not None]
            self._in_grace = [s for s in self._in_grace if s.where is not None]
        elif kind == "service.mode":
            self._testing = bool(event.get("on"))
            self.table.observe(self._on_reading,
                               None if self._testing else self._judged_readings)
        elif kind == "walls.committed":
            self._walls_up()
        elif kind == "handoff":
            self._handoff(event)

    def _resume_fault(self, fault_id: str, where: str) -> None:
        """One fault cleared: its own stop ends, not that of the same fault elsewhere
        (a head jam cleared on side 0 while side 2's is still jammed)."""
        for stops in (self.stops, self._in_grace):
            for stop in stops:
                if stop.reason == fault_id and stop.where == where:
                    stops.remove(stop)      # within the grace too: it never lands
                    return
        # Cleared before its stop was seen at all.
        self._early_clears.append((fault_id, where))

    def _stop(self, stop: Stop) -> None:
        self.pending += 1
        # Watched from now: a motor turning on within the grace is caught too.
        self._in_grace.append(stop)
        self.once_stopped(stop.failsafe, lambda: self._stopped(stop))

    def once_stopped(self, failsafe: bool, judge: Callable[[], None]) -> None:
        """Call `judge` once a stop made now has reached the table: over the link the
        SAFE crosses first (`frame_grace_s`); with the link lost, or broken at this
        instant (the stop cannot cross), the board's failsafe acts in its limit."""
        link = failsafe or self.link_broken()
        grace = self.link_grace_s if link else self.frame_grace_s
        clock = self.table.clock
        if grace:
            # Once the grace's last instant is over: the board's failsafe may fall in
            # that very instant (its limit from the host's last frame).
            clock.call_later(grace, lambda: clock.call_later(0.0, judge))
        else:
            clock.call_later(0.0, judge)

    def _stopped(self, stop: Stop) -> None:
        self.pending -= 1
        held = [s for s in self._in_grace if s is stop]
        if not held:
            return          # resumed within the grace
        self._in_grace.remove(stop)
        if (stop.reason, stop.where) in self._early_clears:
            self._early_clears.remove((stop.reason, stop.where))
            return
        self.stops.append(stop)
        for motor in sorted(stop.motors):
            if not self.running(motor) or motor in stop.judged:
                continue    # off, or turned on under the stop: judged when it did
            if (self._testing and stop.reason == "halted"
                    and self._turned_on.get(motor, -1.0) >= stop.at):
                continue    # started by the self-test under test mode's own halt
            if self._turned_on.get(motor) == stop.at:
                self._breach("motor.on_at_fault", f"{motor} turned on in the instant "
                             f"{stop.reason} stopped it")
            else:
                self._breach("motor.after_stop", f"{motor} still runs after {stop.reason}")

    def power_back(self) -> None:
        """A new boot: stops latched in memory died with the old controller."""
        self.stops = []
        self._early_clears = []
        self._in_grace = []

    def _walls_up(self) -> None:
        full = self.table.config.table.stacks_per_wall
        for side in self.table.sides:
            plate = side.plate
            assert plate is not None
            if plate.mid_turn:
                self._breach("wall.not_up", f"plate cam {side.n} is {plate.angle:.0%} into "
                             "its turn when the walls are committed")
            stacks = len(self.table.walls[side.n])
            if stacks != full:
                self._breach("wall.not_up", f"wall {side.n} has {stacks} of {full} stacks "
                             "standing when the walls are committed")

    def _handoff(self, event: dict[str, Any]) -> None:
        record = event.get("record")
        walls = self.table.walls
        sets = {t.set_name for wall in walls for stack in wall for t in stack}
        standing = [len(w) for w in walls]
        if record is not None:
            named = [len(w) for w in record["walls"]]
            if named != standing:
                self._breach("handoff.mismatch", f"handed off {named} stacks per wall, "
                             f"{standing} stand on the table")
                return
            wrong = self._misnamed(record["walls"])
            if wrong:
                self._breach("handoff.mismatch", f"handed off {wrong[0][1]} at wall "
                             f"{wrong[0][0]}, {wrong[0][2]} stands there "
                             f"({len(wrong)} tiles differ)")
                return
        if sets != {event["set"]}:
            self._breach("handoff.mismatch", f"handed off set {event['set']}, the walls "
                         f"standing are of sets {sorted(sets)}")

    def _misnamed(self, named: list[Any]) -> list[tuple[str, Any, str]]:
        """Tiles the handoff names other than those standing: `(place, named, standing)`.
        A table without a tile reader names none (None); any code it does name must
        still be the tile standing there. With a reader, every tile must be named."""
        known = self.table.config.table.tile_reader
        wrong: list[tuple[str, Any, str]] = []
        for n, (wall, record) in enumerate(zip(self.table.walls, named, strict=False)):
            for k, (stack, names) in enumerate(zip(wall, record, strict=False)):
                names = list(names) if isinstance(names, (list, tuple)) else [names]
                names += [None] * (len(stack) - len(names))
                for level, (tile, name) in enumerate(zip(stack, names, strict=False)):
                    if (known or name is not None) and name != tile.code:
                        place = f"{n}.{k}.{'top' if level == 0 else 'bottom'}"
                        wrong.append((place, name, tile.code))
        return wrong
