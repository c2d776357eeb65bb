"""One side's builder: count tiles at the head, stack them two high, stop at target.

Tiles are known only on tables with a reader at the head (`side.N.tile_id`); the
build itself uses counts alone, never identity (docs/mechanics.md). The count sensor
is checked for plausibility: edges closer than the debounce time are bounce, two
arrivals closer than the physical minimum gap are one tile counted twice.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from transitions import EventData

from firmware.i18n import N_
from firmware.machines.machine import Quick, Recoverable, attach, from_fault, recover_transitions
from firmware.machines.protocols import SideBuild, noop
from firmware.machines.supervisor import CONFIRM_S

if TYPE_CHECKING:
    from firmware.machines.ports import Ports
    from mjtable_core.clock import Timer



class SideState(StrEnum):
    IDLE = "idle"
    FEEDING = "feeding"     # its conveyor brings tiles to the head
    STACKING = "stacking"   # the head turns a tile onto the wall
    FULL = "full"
    FAULT = "fault"


# Building its wall: tiles are fed and stacked.
BUSY = frozenset({SideState.FEEDING, SideState.STACKING})
# Bound once for the per-tile handlers: an enum's attribute costs a lookup each time.
_IDLE, _FEEDING, _STACKING, _FULL = (SideState.IDLE, SideState.FEEDING, SideState.STACKING,
                                     SideState.FULL)

STATES = [state.value for state in SideState]
INITIAL = SideState.IDLE.value
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
    *recover_transitions(["idle", "feeding", "stacking", "full"]),
]


# A tile stays at the count sensor until the head takes it, a third of a turn at the
# least: a count gone sooner than this part of a turn was no tile (a flaky sensor).
GHOST_TURNS = 0.15
# A home seen sooner than this part of the learned turn teaches no turn time.
LEARN_TURNS = 0.9
# A rejected home edge this soon (in learned turns) after the home a turn started
# from may be the real home of which that one was a glitch.
REANCHOR = 0.35
# A head-home sensor is told flaky (W95) at this many impossible edges within
# FLAKY_WINDOW_S of table time: one alone is noise (or a host too late to time it).
FLAKY_GLITCHES = 3
FLAKY_WINDOW_S = 60.0


class SideBuilder(Recoverable):
    FAULT = SideState.FAULT

    # The build this side feeds: it sets itself here as it is built (`Build`).
    build: SideBuild

    def __init__(self, ports: Ports, side: int) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.timing = ports.timing
        self.emit = ports.emit
        self.fault = ports.fault
        self.edge_time = ports.edge_time
        self.supervisor = ports.supervisor
        self.motions = ports.motions
        # Hooks: the cam came home from a re-homing (the cycle's homing check), and a
        # tile arrived face up (input dispatch warns).
        self.rehomed: Callable[[], None] = noop
        self.on_face_up: Callable[[SideBuilder, int, str | None], None] = noop
        self.side = side
        self.target = ports.config.tiles_per_side
        self.conveyor = f"motor.side.{side}.conveyor"
        self.head = f"motor.side.{side}.head"
        self.count_sensor = f"side.{side}.count"
        self.home_sensor = f"side.{side}.head_home"
        self.head_where = f"side.{side}.head"     # where a head fault is, for the supervisor
        self.full_sensor = f"side.{side}.full"    # its belt full: the build's blind watch
        self.blind_key = f"blind.{side}"          # that watch's key
        self.reader = f"side.{side}.tile_id"
        self.face_up = f"side.{side}.face_up"
        self.key = f"head.{side}"     # its head's mechanism, for the supervisor
        self.has_reader = self.reader in self.hal.signals
        self.has_face_up = self.face_up in self.hal.signals
        self.counted = 0          # tiles seen by the count sensor this build
        self.stacked = 0          # tiles the head has put away
        self.tiles: list[str | None] = []   # in the order counted
        self.last_arrival: float | None = None
        self.left_home = False    # the cam was seen leaving home this turn
        self.turn_from_home = True  # this turn began at home: its end stacks a tile
        self.glitches = 0           # impossible home edges seen (a flaky sensor)
        self.glitch_times: deque[float] = deque(maxlen=FLAKY_GLITCHES)
        self.whole_turn = False     # this turn started at home and was not interrupted
        self.turn_began = 0.0       # when this turn began (a home edge's own time if chained)
        self.chained_at: float | None = None   # the home this turn was started from
        self.unseen_reads = 0       # tiles the reader saw since the last counted arrival
        self.ghosts = 0             # counts this build gone before a tile could be taken
        # The side counted against its own reader: a count no read came with (a tile
        # counted that was not there), and reads no count came with (a tile missed).
        self.unread = 0
        self.uncounted = 0
        self.dark_since: float | None = None    # the count sensor went dark at
        self.count_flickers: deque[float] = deque(maxlen=FLAKY_GLITCHES)
        self.home_opened = 0        # home edges that opened: a stopped cam's never do
        # The home sensor went dark with the head's motor off, and has not lit since:
        # a cam at rest does not leave home by itself.
        self.dark_at_rest = False
        self.confirming: Timer | None = None    # the side's last home, until it has held
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ports.on_error)
        # The two steps every tile takes, as declared but without the generic dispatch.
        self._arrived = Quick(self.machine, "tile_arrived", SideState.FEEDING)
        self._turned = Quick(self.machine, "turn_done", SideState.STACKING)

    def status(self) -> dict[str, Any]:
        """This side's builder as the status picture shows it."""
        return {"state": self.state, "counted": self.counted, "stacked": self.stacked,
                "target": self.target}

    @property
    def busy(self) -> bool:
        """Building its wall: feeding or stacking."""
        return self.state in BUSY

    @property
    def full(self) -> bool:
        return self.state == _FULL

    def complete(self, *_: object) -> bool:
        return self.stacked >= self.target

    def tiles_waiting(self, *_: object) -> bool:
        return self.counted > self.stacked

    def ghost_counts(self) -> int:
        """Counts of tiles that were not there, by this side's own evidence: counts gone
        too soon for a tile, and counts no read came with (believed only while most
        counts came with a read: a reader that reads after the count says nothing)."""
        unread = self.unread if 2 * self.unread < max(self.counted, 1) else 0
        return self.ghosts + unread

    def stacks(self) -> list[list[str | None]]:
        """The built wall as [top, bottom] per stack, k = 0 at the owner's right end."""
        return [[self.tiles[i + 1], self.tiles[i]] for i in range(0, len(self.tiles) - 1, 2)]

    def feed(self, on: bool) -> None:
        """Run the conveyor while this side still needs tiles and the build may feed
        (the lid at its lower stop: `Build.may_feed`)."""
        self.hal.write(self.conveyor, on and self.counted < self.target
                           and self.state in BUSY
                           and self.build.may_feed())

    # -- callbacks ------------------------------------------------------------------

    def _start_conveyor(self, *_: object) -> None:
        self.feed(True)

    def on_exit_idle(self, *_: object) -> None:
        self.counted = self.stacked = self.ghosts = 0
        self.unread = self.uncounted = 0
        self.tiles = []
        self.last_arrival = None

    def on_enter_feeding(self, event: EventData) -> None:
        if from_fault(event):
            self.feed(True)

    def on_enter_stacking(self, event: EventData) -> None:
        if from_fault(event):
            # After a fault is cleared: finish the interrupted turn, and feed again.
            self.feed(True)
            self._turn(resumed=True)
            return
        self._turn()

    def on_enter_full(self, event: EventData) -> None:
        self.hal.write(self.head, False)
        if not from_fault(event):
            self.build.side_full()

    def rehome(self) -> None:
        """Turn the cam until it is home again (found off home)."""
        self._turn()

    def _turn(self, resumed: bool = False, began: float | None = None) -> None:
        # A turn chained from a home edge began when the cam passed home, not when the
        # loop got to it: a late edge must not make the next home look impossibly early.
        self.turn_began = self.clock.now() if began is None else began
        if self.confirming is not None:     # a new turn: that home was not the last
            self.confirming.cancel()
            self.confirming = None
        self.chained_at = self.turn_began
        home = bool(self.hal.read(self.home_sensor))
        if not resumed:
            # A cam found off home finishes a part turn first: that one stacks nothing.
            self.turn_from_home = home
        self.left_home = not home
        self.whole_turn = home and not resumed
        # Stopped where the pin is, at the home edge: a late loop cannot let the cam
        # coast past home. A chained turn starts again from home when the loop sees it.
        self.motions.run(
            self.key, self.head, True, self.home_sensor, True, "head.jam",
            where=self.head_where, side=self.side,
            evidence={"counted": self.counted, "stacked": self.stacked,
                      "count_active": bool(self.hal.read(self.count_sensor)),
                      "home_dark_at_rest": self.dark_at_rest},
            moved=lambda: self.left_home, timed_stop=self.on_home, learn=self.whole_turn)

    # -- sensor edges -----------------------------------------------------------------

    def on_reader(self, tile: object) -> None:
        """The head's reader saw a tile: evidence that tiles reach the head."""
        if tile is not None:
            self.unseen_reads += 1

    def on_count_edge(self, active: bool) -> None:
        if not active:
            self.dark_since = self.edge_time(self.count_sensor)
            self._gone()
            return
        now = self.edge_time(self.count_sensor)
        timing = self.timing
        gap = None if self.last_arrival is None else now - self.last_arrival
        if gap is not None and gap < timing.count_debounce_s:
            return      # contact bounce of the same tile
        if self.state == _FULL:
            if not self.hal.read(self.conveyor):
                # Its conveyor is off and the belt's tiles have slid back: no tile can
                # reach the head. The count sensor, not an extra tile.
                self.glitches += 1
                self.emit("sensor.glitch", sensor=self.count_sensor,
                              why=N_("a count at a full side whose conveyor is off"))
                return
            # An extra tile, or this side's own leftover after a ghost count: either
            # way the wall is a tile short or over, never handed off as it is. Told
            # once a tile would still be in front of the sensor: whether it was is
            # evidence (a pulse gone sooner is the sensor flickering).
            wait = GHOST_TURNS * self.supervisor.learned(self.key)
            self.clock.call_at(now + wait, lambda: self.build.extra_tile(
                self, lit=bool(self.hal.read(self.count_sensor))))
            return
        if self.state not in BUSY:
            self.emit("tile.unexpected", side=self.side, state=self.state)
            return
        if gap is not None and gap < timing.count_min_gap_s:
            self.fault("count.double", f"side.{self.side}.count", self.side,
                           {"gap_s": round(gap, 4), "min_gap_s": timing.count_min_gap_s,
                            "counted": self.counted})
            return
        dark = self.dark_since
        ghost_s = GHOST_TURNS * self.supervisor.learned(self.key)
        if (dark is not None and self.last_arrival is not None
                and now - dark < timing.count_min_gap_s
                and dark - self.last_arrival >= ghost_s):
            # Dark for less than any gap between two tiles, then lit again: the same
            # tile, the sensor flickering. Counted, it would finish this side a tile
            # short and send its last tile to another side as "extra".
            self._count_flicker(now, round(now - dark, 4))
            return
        self.last_arrival = now
        if self.has_reader:
            if self.unseen_reads == 0:
                self.unread += 1
            self.uncounted += max(0, self.unseen_reads - 1)
        self.unseen_reads = 0
        self.build.arrival(self)
        index = self.counted
        self.counted += 1
        tile = self.hal.read(self.reader) if self.has_reader else None
        self.tiles.append(tile)   # type: ignore[arg-type]
        if self.counted >= self.target:
            self.hal.write(self.conveyor, False)
        if self.has_face_up and self.hal.read(self.face_up):
            self.on_face_up(self, index, tile)    # type: ignore[arg-type]
        if self.state == _FEEDING:     # hot path: while stacking, nothing changes state
            self._arrived(self)

    def _count_flicker(self, at: float, dark_s: float) -> None:
        """The count sensor flickered on a tile: not counted, held against this side's
        sensor; repeated, the technician is told which sensor (W95, play goes on)."""
        self.glitches += 1
        self.ghosts += 1
        self.emit("sensor.glitch", sensor=self.count_sensor, dark_s=dark_s,
                      why=N_("the count sensor flickered on one tile"))
        self.count_flickers.append(at)
        if (len(self.count_flickers) == FLAKY_GLITCHES
                and at - self.count_flickers[0] <= FLAKY_WINDOW_S):
            self.fault("sensor.flaky", self.count_sensor, self.side,
                           {"sensor": self.count_sensor, "glitches": self.glitches,
                            "dark_s": dark_s})

    def _gone(self) -> None:
        """The count sensor went dark: too soon after the arrival it counted, and still
        dark a moment later (not a bounce), that count was a ghost: evidence for the
        diagnosis of a tile that later turns up extra at another side."""
        arrival = self.last_arrival
        if arrival is None or self.state not in BUSY:
            return
        now = self.edge_time(self.count_sensor)
        if now - arrival >= GHOST_TURNS * self.supervisor.learned(self.key):
            return

        def still_dark() -> None:
            if self.last_arrival == arrival and not self.hal.read(self.count_sensor):
                self.ghosts += 1
                self.emit("sensor.glitch", sensor=self.count_sensor,
                              why=N_("a count gone before the head could take its tile"))

        self.clock.call_later(2 * self.timing.count_debounce_s, still_dark)

    def on_home_edge(self, home: bool) -> None:
        if not home:
            self.left_home = True
            self.home_opened += 1
            self.dark_at_rest = not self.hal.read(self.head)
            if self.state == _IDLE and not self.hal.read(self.head):
                # The cam coasted past home after it was stopped (a slow stop over the
                # board's link). Bring it round now: homing waits for it, and the next
                # build would take its first turn for a part turn that stacks nothing.
                self.rehome()
            return
        self.dark_at_rest = False
        if self.supervisor.elapsed(self.key) is None or self.confirming is not None:
            return
        at = self.edge_time(self.home_sensor)
        elapsed = at - self.turn_began
        learned = self.supervisor.learned(self.key)
        if self.whole_turn and elapsed < 0.7 * learned:
            # Home again so early is impossible (a worn motor is slower, never faster):
            # a glitch on the sensor.
            self.glitches += 1
            self.emit("sensor.glitch", sensor=f"side.{self.side}.head_home",
                          after_s=round(elapsed, 4))
            # Filtered, the table rides through; the technician is still told once
            # they repeat. One warning per sensor: while it is active, each glitch
            # only counts on it.
            self.glitch_times.append(at)
            if len(self.glitch_times) == FLAKY_GLITCHES and \
                    at - self.glitch_times[0] <= FLAKY_WINDOW_S:
                self.fault("sensor.flaky", f"side.{self.side}.head_home", self.side,
                               {"sensor": f"side.{self.side}.head_home",
                                "glitches": self.glitches, "after_s": round(elapsed, 4)})
            self.supervisor.unlearned(self.key)    # a turn with a glitch times nothing
            if self.chained_at is not None and at - self.chained_at < REANCHOR * learned:
                # Soon after the home this turn started from (an edge it was chained
                # from, or the sensor read at the start): either may be the glitch, so
                # the turn counts from the later one. Counted from a glitch, the next
                # home could be taken before the head took its tile, and the side stop
                # one stack short.
                self.turn_began = at
            return
        if elapsed < LEARN_TURNS * learned:
            # Short of a whole turn: home, or a glitch taken for it. Either way it must
            # not teach a shorter turn (glitches taken for home would ratchet it down).
            self.supervisor.unlearned(self.key)
        self.on_home(at)

    def on_home(self, at: float | None = None) -> None:
        """The cam is home (`at`: its edge's own time; None when a timer stands in)."""
        self.supervisor.reached(self.key)
        if self.state != _STACKING:
            # Re-homing: the cam was found off home and has come round.
            self.hal.write(self.head, False)
            self.rehomed()
            return
        if at is not None and self.turn_from_home and self.stacked + 1 >= self.target:
            self._confirm_last(at)
            return
        self._counted_home(at)

    def _confirm_last(self, at: float) -> None:
        """The side's last home counts once it has held CONFIRM_S, the motor off: a
        glitch the pin stopped the cam at opens again within it (a stopped cam cannot
        leave home), and that turn, short of its tile, is not the side's last stack."""
        self.hal.write(self.head, False)
        opened = self.home_opened

        def held() -> None:
            if self.state != _STACKING:
                return      # a fault ended the build; the next build's first turn clears it
            self.confirming = None
            sensor = f"side.{self.side}.head_home"
            if self.home_opened == opened and self.hal.read(sensor):
                self._counted_home(at)
                return
            self.glitches += 1
            self.emit("sensor.glitch", sensor=sensor,
                          why=N_("a cam stopped at home that left it with its motor off"))
            self._turn(resumed=True)     # finish the turn: it stacks its tile at home

        self.confirming = self.clock.call_later(CONFIRM_S, held)

    def _counted_home(self, at: float | None) -> None:
        if self.turn_from_home:
            self.stacked += 1
        if self.tiles_waiting():
            self._turn(began=at)
        else:
            self.hal.write(self.head, False)
        if self.complete() or not self.tiles_waiting():   # hot path: skip no-op triggers
            self._turned(self)
