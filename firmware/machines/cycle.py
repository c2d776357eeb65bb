"""The table cycle (docs/mechanics.md): lid, push, raise, dice, play — two sets in turn.

One set is in play while the other is built in the background (`build.py`). The
lift key opens the hole only when a staged set is ready; both lift keys together
during a build are a top-up. After the walls rise the variant's throws are asked for,
each from the right seat, and the deal is handed off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from transitions import EventData

from firmware.faults.shutdown import BUILD
from firmware.machines.build import BuildState
from firmware.machines.dice import faces_text
from firmware.machines.lid import NOT_CLOSED, LidState
from firmware.machines.machine import Recoverable, attach, from_fault, recover_transitions
from firmware.machines.plate import PlateState
from firmware.machines.protocols import Hands, noop
from firmware.machines.side import SideState

if TYPE_CHECKING:
    from firmware.machines.build import Build
    from firmware.machines.dice import Dice
    from firmware.machines.lid import Lid
    from firmware.machines.owner import Owner
    from firmware.machines.plate import Plate
    from firmware.machines.ports import Ports
    from mjtable_core.geometry import Geometry

# Shown while the booking gate holds the table: "En(able)".
GATE_DISPLAY = "En"



class CycleState(StrEnum):
    HOMING = "homing"
    PLAY = "play"                       # a hand in play, the lid down
    OPENING = "opening"                 # the lid rising to take the played tiles
    HOLE_OPEN = "hole_open"
    CLOSING = "closing"
    RAISING = "raising"                 # the plates lifting the staged walls
    DEALING = "dealing"                 # walls up, waiting for the dice
    ROLLING = "rolling"
    TOP_UP_OPENING = "top_up_opening"   # both lift keys: the lid opens for a top-up
    TOP_UP_OPEN = "top_up_open"
    TOP_UP_CLOSING = "top_up_closing"
    FAULT = "fault"


# Both lift keys held in play: the lid opening, open and closing for a top-up.
TOPPING_UP = frozenset({CycleState.TOP_UP_OPENING, CycleState.TOP_UP_OPEN,
                        CycleState.TOP_UP_CLOSING})
# The cycle moves or holds the lid (homing brings it down).
LID_IN_USE = TOPPING_UP | {
    CycleState.HOMING, CycleState.OPENING, CycleState.HOLE_OPEN, CycleState.CLOSING}
# The lid open for the players: hands may be in the hole.
HOLES_OPEN = frozenset({CycleState.HOLE_OPEN, CycleState.TOP_UP_OPEN})
# Something of the cycle moving: the lid, the plates or the dice.
MOVING = frozenset({CycleState.OPENING, CycleState.CLOSING, CycleState.RAISING,
                    CycleState.ROLLING, CycleState.TOP_UP_OPENING, CycleState.TOP_UP_CLOSING})
# The walls in play on the plates.
WALLS_IN_PLAY = frozenset({CycleState.PLAY, CycleState.DEALING, CycleState.ROLLING})
# Players at a dealt hand: from the walls rising to the lid opening again.
HAND_IN_PLAY = TOPPING_UP | {
    CycleState.RAISING, CycleState.DEALING, CycleState.ROLLING, CycleState.PLAY}
# Nothing of the cycle moving, the lid down: a hand in play, or walls up for the dice.
WAITING = frozenset({CycleState.PLAY, CycleState.DEALING})
# A deal under way: walls up, the dice awaited or in the air.
_DEALING = frozenset({CycleState.DEALING, CycleState.ROLLING})
# No build starts: homing, or parked by a fault.
HOLDS_BUILDS = frozenset({CycleState.HOMING, CycleState.FAULT})

STATES = [state.value for state in CycleState]
INITIAL = CycleState.HOMING.value
TRANSITIONS = [
    # Homed is the transition's result: what follows homing runs after it, never as a
    # side effect of leaving `homing` (a fault leaves it too).
    {"trigger": "homed", "source": "homing", "dest": "dealing", "conditions": "deal_pending",
     "after": "_after_homing"},
    {"trigger": "homed", "source": "homing", "dest": "raising", "conditions": "raise_pending",
     "after": "_after_homing"},
    {"trigger": "homed", "source": "homing", "dest": "play", "after": "_after_homing"},
    {"trigger": "lift_key", "source": "play", "dest": "opening", "conditions": "set_staged"},
    {"trigger": "lift_key", "source": "hole_open", "dest": "closing"},
    {"trigger": "lift_key", "source": "top_up_open", "dest": "top_up_closing"},
    {"trigger": "both_lift_keys", "source": "play", "dest": "top_up_opening",
     "conditions": "build_running"},
    {"trigger": "lid_opened", "source": "opening", "dest": "hole_open"},
    {"trigger": "lid_opened", "source": "top_up_opening", "dest": "top_up_open"},
    # The booking gate (firmware/service/gate.py): a closed gate raises no new walls; the set
    # just pushed in waits on the disc and the players' table stays as it is.
    {"trigger": "lid_closed", "source": "closing", "dest": "raising", "conditions": "gate_open"},
    {"trigger": "lid_closed", "source": "closing", "dest": "play", "after": "_gate_held"},
    {"trigger": "lid_closed", "source": "top_up_closing", "dest": "play"},
    {"trigger": "lid_closed", "source": "homing", "dest": None, "after": "check_homed"},
    # A raise resumed with the lid off its lower stop closes it first, then finishes.
    {"trigger": "lid_closed", "source": "raising", "dest": None, "after": "finish_raising"},
    {"trigger": "walls_raised", "source": "raising", "dest": "dealing"},
    {"trigger": "dice_key", "source": "dealing", "dest": "rolling",
     "conditions": "expected_thrower"},
    {"trigger": "rolled", "source": "rolling", "dest": "dealing", "conditions": "more_throws",
     "before": "_record_throw"},
    {"trigger": "rolled", "source": "rolling", "dest": "play", "before": "_record_throw",
     "after": "_hand_off"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    # Back where a fault or halt stopped it (a throw in the air is asked for again).
    *recover_transitions(["homing", "play", "opening", "hole_open", "closing", "raising",
                          "dealing", "top_up_opening", "top_up_open", "top_up_closing"]),
]


def build_mechanisms(geometry: Geometry) -> list[str]:
    """What a build drives: held by a technician, the next build waits."""
    return ["disc", *[f"{part}.{n}" for n in geometry.sides for part in ("head", "conveyor")]]


class Cycle(Recoverable):
    FAULT = CycleState.FAULT

    def __init__(self, ports: Ports, lid: Lid, plates: Sequence[Plate], build: Build,
                 dice: Dice, owner: Owner, hands: Hands,
                 next_dealer: Callable[[], int | None], faults: Sequence[Any]) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.geometry = ports.geometry
        self.emit = ports.emit
        self.marks = ports.marks
        self.lid, self.plates, self.build, self.dice = lid, plates, build, dice
        self.owner = owner
        self.hands = hands              # the committed deal, the throws, the handoff
        self.next_dealer = next_dealer  # a scored hand names the next dealer
        self.faults = faults            # the fault path's list, kept in place
        self._build_mechanisms = build_mechanisms(ports.geometry)
        # Hooks set once their owners are built: plates found off home turned round
        # (off_home.py), and a top-up that ends a build fault (faults/clearing.py).
        self.rehome_plates: Callable[[], None] = noop
        self.top_up_done: Callable[[], None] = noop
        self.number = 0                      # hands dealt since start
        self.set_in_play: str | None = None  # unknown at first use
        self.set_building = ports.geometry.first_set   # power-on: the disc holds a set
        self.dealer: int | None = None
        self.throws: list[list[int]] = []
        self.walls: list[list[list[str | None]]] = []
        self._plates_done: set[int] = set()
        self._deal_pending = False
        self._raise_pending = False
        # The last throw of the hand handed off: shown again after a restart in play.
        self.shown_faces: list[int] | None = None
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ports.on_error,
                              after_state_change="_announce")
        # The peers that answer the cycle: its lid, plates, cams and dice.
        lid.on_open = self._lid_opened
        lid.on_closed = self._lid_down
        for plate in plates:
            plate.came_home = self.plate_done
        for side in build.sides:
            side.rehomed = self.check_homed
        dice.faces_of = lambda count: hands.faces(len(self.throws), count)
        dice.landed = self.rolled
        ports.supervisor.hand_number = lambda: self.number

    def _announce(self, event: EventData) -> None:
        if event.transition is not None and event.transition.dest is not None:
            held = self.marks.halted_by if self.state == CycleState.FAULT else None
            self.emit("phase", state=self.state, cycle=self.number,
                      **({"held_by": held} if held else {}))

    def status(self) -> dict[str, Any]:
        """The hand cycle as the status picture shows it (keys as the picture names them)."""
        return {"cycle": self.number, "state": self.state, "set_in_play": self.set_in_play,
                "set_building": self.set_building, "dealer": self.dealer}

    @property
    def in_play(self) -> bool:
        """A hand in play, the lid down."""
        return self.state == CycleState.PLAY

    @property
    def waiting(self) -> bool:
        """Nothing of the cycle moving, the lid down: a hand in play, or walls up
        waiting for the dice."""
        return self.state in WAITING

    @property
    def holds_builds(self) -> bool:
        """No build starts: homing, or parked by a fault."""
        return self.state in HOLDS_BUILDS

    @property
    def uses_lid(self) -> bool:
        """Moving or holding the lid (homing brings it down)."""
        return self.state in LID_IN_USE

    @property
    def raising(self) -> bool:
        """The plates lifting the staged walls."""
        return self.state == CycleState.RAISING

    @property
    def rolling(self) -> bool:
        """The dice thrown for the deal."""
        return self.state == CycleState.ROLLING

    # -- a deal across a power cut ----------------------------------------------------

    def deal_state(self, state: str) -> dict[str, Any] | None:
        """The deal to journal, if the cycle is (or, parked, was) dealing: `state` is
        the cycle's journaled state. A deal restored at boot and not yet resumed (a
        second cut during the homing) is still a deal."""
        if state not in _DEALING and not (
                state == CycleState.HOMING and self._deal_pending):
            return None
        return {"walls": self.walls, "dealer": self.dealer, "throws": self.throws,
                **self.hands.secret()}

    def restore_deal(self, saved: dict[str, Any]) -> None:
        self.walls = saved["walls"]
        self.dealer = saved["dealer"]
        self.throws = [list(t) for t in saved["throws"]]
        self.hands.restore_secret(saved)
        self._deal_pending = True

    def faces_display(self) -> str:
        """What the display shows in play: the last throw of the hand handed off (a
        cut in the instant of the handoff may have lost it on the way to the board,
        and players who never saw it would throw again), else nothing."""
        if self.state != CycleState.PLAY or not self.shown_faces:
            return ""
        return faces_text(self.shown_faces)

    def show_last_throw(self) -> None:
        """A dice key that throws nothing, on a blank display: show the last throw
        again. Between two throws it names the next thrower; in play it is the hand's
        last. A cut may have lost it on its way to the board, and players who never
        saw it press a key again; a silent table would leave them waiting for ever."""
        if self.hal.read("display") != "":
            return
        between = self.state == CycleState.DEALING and self.throws
        shown = faces_text(self.throws[-1]) if between else self.faces_display()
        if shown:
            self.hal.write("display", shown)

    # -- conditions -------------------------------------------------------------------

    def deal_pending(self, *_: object) -> bool:
        return self._deal_pending

    def raise_pending(self, *_: object) -> bool:
        return self._raise_pending

    def restore_raise(self) -> None:
        """The power failed while the walls rose: after homing, every plate turns once
        more (a plate whose wall is already up turns empty), and the staged set is then
        in play — never left staged to be raised, or built over, a second time."""
        self._raise_pending = True

    def raise_in_progress(self, state: str) -> bool:
        """Whether a raise must be finished after a restart: the cycle is (or, parked,
        was) raising, or a raise restored at boot still waits for the homing."""
        return state == CycleState.RAISING or (
            state == CycleState.HOMING and self._raise_pending)

    def gate_open(self, *_: object) -> bool:
        return self.marks.gate_closed() is None

    def _gate_held(self, *_: object) -> None:
        """The booking gate is closed: the hand just ended stays the last one. The
        display and the ready lamp say so until the venue enables the table."""
        self.hal.write("display", GATE_DISPLAY)
        self.hal.write("lamp.ready", False)
        self.emit("gate.held", why=self.marks.gate_closed())

    def gate_opened(self) -> None:
        """The venue enabled the table: a held build starts, the lid key works again."""
        if self.hal.read("display") == GATE_DISPLAY:
            self.hal.write("display", "")
            self.hal.write("lamp.ready", self.build.staged)
        self.start_next_build()

    def set_staged(self, *_: object) -> bool:
        return self.build.staged

    def build_running(self, *_: object) -> bool:
        # Also after tiles went missing: topping up is how players fix that.
        return self.build.running or any(
            f.active and f.kind.topped_up for f in self.faults)

    def expected_thrower(self, event: EventData) -> bool:
        seat = event.kwargs["seat"]
        if self.dealer is None:
            return True          # the first dice key of a hand names the dealer
        request = self.hands.next_throw(self.dealer, self.throws)
        return request is not None and request.thrower_position == seat

    def more_throws(self, event: EventData) -> bool:
        assert self.dealer is not None
        throws = [*self.throws, event.kwargs["faces"]]
        return self.hands.next_throw(self.dealer, throws) is not None

    # -- homing -----------------------------------------------------------------------

    def check_homed(self, *_: object) -> None:
        """Homing is done when the lid is down and every cam is at home."""
        if self.state != CycleState.HOMING:
            return
        self.rehome_plates()
        cams = [f"side.{n}.{s}" for n in self.geometry.sides
                for s in ("head_home", "plate_home")]
        # The plates' machines too: a plate coming round is home only once its edge is
        # believed (plate.py), and a raise after homing turns every plate from home.
        if (self.lid.state == LidState.CLOSED and all(self.hal.read(c) for c in cams)
                and all(plate.state == PlateState.HOME for plate in self.plates)):
            self.homed()

    def home(self) -> None:
        """Bring every mechanism to its home sensor; the cycle is homed when all are.

        The lid first: a plate found off home turns only once the lid is down
        (`check_homed`), or it would lift a wall into an open hole."""
        if self.lid.state in NOT_CLOSED:
            self.lid.close()
        for side in self.build.sides:
            if not self.hal.read(f"side.{side.side}.head_home") and side.state == SideState.IDLE:
                side.rehome()
        self.check_homed()

    def _after_homing(self, *_: object) -> None:
        """Homed (the result of the `homed` transition): build the set on the disc,
        unless a set is staged, must be refed, or a build fault holds the build."""
        if self.marks.refeed_hold is not None:
            self.hal.write("display", "rF")
            return
        if self.faces_display():
            self.hal.write("display", self.faces_display())
        self.start_next_build()

    def start_next_build(self) -> None:
        """Build the next set, unless something holds it: a refeed to be done, a build
        fault (the build's outputs latched), or a technician holding one of the build's
        mechanisms (it starts when they are released)."""
        if (not self.build.idle or self.holds_builds
                or self.marks.refeed_hold is not None or BUILD in self.hal.scopes):
            return
        why = self.owner.refuses(self._build_mechanisms) or self.marks.gate_closed()
        if why is not None:
            self.emit("build.held", why=why)
            return
        self.build.start(set_name=self.set_building)

    def request_refeed(self, reason: str) -> None:
        """A set that cannot be trusted is built again from the start, never resumed."""
        self.emit("refeed", set=self.set_building, reason=reason)
        self.build.start(set_name=self.set_building)

    def on_enter_homing(self, event: EventData) -> None:
        if from_fault(event):
            self.home()     # re-read every home sensor, bring round what is off

    # -- the cycle --------------------------------------------------------------------

    def on_enter_opening(self, event: EventData) -> None:
        if from_fault(event) and self.lid.state == LidState.OPEN:
            self.lid_opened()
            return
        self.lid.open()

    on_enter_top_up_opening = on_enter_opening

    def on_enter_top_up_open(self, *_: object) -> None:
        self.emit("top_up", open=True)

    def _lid_opened(self) -> None:
        # The lid also moves for a technician's test; only the cycle's own moves count.
        if self.may_lid_opened():
            self.lid_opened()

    def _lid_down(self) -> None:
        # A build resumed while the lid was still off its stop was held: it feeds now.
        self.build.lid_down()
        if self.may_lid_closed():
            self.lid_closed()

    def on_exit_play(self, event: EventData) -> None:
        if event.transition.dest == CycleState.TOP_UP_OPENING and self.build.running:
            self.build.pause()

    def on_enter_closing(self, event: EventData) -> None:
        if from_fault(event) and self.lid.state == LidState.CLOSED:
            self.lid_closed()
            return
        self.lid.close()

    on_enter_top_up_closing = on_enter_closing

    def on_exit_top_up_closing(self, event: EventData) -> None:
        if event.transition.dest == CycleState.FAULT:
            return          # parked: the top-up goes on after the resume, not now
        if self.build.state == BuildState.PAUSED_TOP_UP:
            self.build.resume()
        elif self.build.faulted:
            self.top_up_done()

    def on_enter_raising(self, event: EventData) -> None:
        if from_fault(event):
            self.finish_raising()
            return
        self._plates_done = set()
        self._raise_pending = False
        # Journaled before any plate moves: a cut from here on finishes this raise.
        self.emit("raising", set=self.build.set_name, cycle=self.number + 1)
        for plate in self.plates:
            plate.turn()

    def finish_raising(self, *_: object) -> None:
        """After a fault: turn again every plate that had not come home. A plate found
        off home is already coming round (recovery.py); one at home turns once more.
        Never with the lid off its lower stop: it would lift a wall into the open hole
        (a stop believed from a pulse while the lid stood blocked part open). The lid
        closes first; its lid_closed finishes the raise."""
        if self.lid.state != LidState.CLOSED:
            if self.lid.may_close():
                self.lid.close()
            return
        for plate in self.plates:
            if plate.side not in self._plates_done and plate.state == PlateState.HOME:
                plate.turn()
        if self._every_plate_home():
            self.walls_raised()

    def _every_plate_home(self) -> bool:
        # Each plate made its turn, and none is still turning: a plate that finished
        # and was sent round again by a resume is not a wall that is up.
        return (len(self._plates_done) == len(self.plates)
                and all(p.state == PlateState.HOME for p in self.plates))

    def plate_done(self, plate: object) -> None:
        if self.state == CycleState.HOMING:
            self.check_homed()
            return
        if self.state != CycleState.RAISING:
            return
        self._plates_done.add(plate.side)  # type: ignore[attr-defined]
        if self._every_plate_home():
            self.walls_raised()

    def pending_thrower(self) -> int | None:
        """The seat whose dice key the hand waits for (None: any seat, the dealer)."""
        if self.dealer is None:
            return None
        request = self.hands.next_throw(self.dealer, self.throws)
        return None if request is None else request.thrower_position

    def on_enter_dealing(self, event: EventData) -> None:
        source = event.transition.source
        if source == CycleState.FAULT:
            if self.dealer is not None:
                self.hal.write(f"lamp.dealer.{self.dealer}", True)
            if event.kwargs.get("was") == CycleState.ROLLING:
                self.emit("dice.again", thrower=self.pending_thrower())
        elif source == CycleState.HOMING:
            self._deal_pending = False
            if self.dealer is not None:
                self.hal.write(f"lamp.dealer.{self.dealer}", True)
        elif source == CycleState.RAISING:
            self._walls_up()

    def _walls_up(self) -> None:
        """The staged set is now in play; the set just pushed in is built next."""
        self.number += 1
        self.walls = self.build.walls
        self.set_in_play = self.build.set_name
        self.set_building = self.geometry.next_set(self.set_in_play)
        self.dealer = None
        self.throws = []
        self.shown_faces = None
        for n in self.geometry.sides:
            self.hal.write(f"lamp.dealer.{n}", False)
        # A scored hand named the next dealer: his lamp, before the dice; his key throws.
        self.dealer = self.next_dealer()
        if self.dealer is not None:
            self.hal.write(f"lamp.dealer.{self.dealer}", True)
        self.hands.commit(self.walls, self.number)
        self.build.raised()
        self.start_next_build()     # unless a build fault or a technician holds it

    def on_enter_rolling(self, event: EventData) -> None:
        seat = event.kwargs["seat"]
        if self.dealer is None:
            self.dealer = seat
            self.hal.write(f"lamp.dealer.{seat}", True)
        request = self.hands.next_throw(self.dealer, self.throws)
        assert request is not None
        self.dice.roll(count=request.dice)

    def _record_throw(self, event: EventData) -> None:
        thrower = self.pending_thrower() if self.dealer is not None else None
        self.throws.append(event.kwargs["faces"])
        self.emit("dice.thrown", faces=event.kwargs["faces"], thrower=thrower,
                      cycle=self.number)

    def _hand_off(self, *_: object) -> None:
        assert self.dealer is not None and self.set_in_play is not None
        self.shown_faces = list(self.throws[-1])
        self.hands.hand_off(self.walls, self.throws, self.dealer, self.number,
                                  self.set_in_play)
