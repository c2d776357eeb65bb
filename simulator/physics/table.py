"""Discrete-event physical model of a four-mouth, two-set table.

The model owns every tile and knows at every instant where it is (`where`). Outputs
arrive through `command` (from the sim HAL backend); inputs change by physics and are
reported to the firmware's listener. Nothing here knows the firmware's states.

Modelling choices (our inference where docs/mechanics.md is silent):
- The ring lifts a tile onto side N's conveyor as a Poisson process while disc, ring
  and that conveyor turn and the belt has room; each side picks a random tile still on
  the disc (a worn "under_mixed" disc picks near the order the tiles were pushed in).
- A belt is inclined: when its conveyor stops, the tiles still riding it slide back
  onto the disc. The tile waiting at the head (under the count sensor) stays.
- The head cam takes the waiting tile 30 % into its turn; the first tile of a pair is
  the bottom of the stack, the second the top. Stacks enter the track from the
  owner's right end, so the i-th stack of a side is stack k = i of that wall.
- A plate cam lifts the staged wall to the table halfway round.
- Realistic noise: every motion differs from nominal by a few percent, and some count
  edges bounce for a millisecond or two.

Faults are injected through the `inject`/`repair` methods used by simulator/faults.py:
stuck and dirty sensors, dead, slow and jammed mechanisms, magnets, obstructions.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

from mjtable_core.clock import Clock, Timer
from mjtable_core.config import Config
from mjtable_core.signals import LID_DOWN, LID_UP, Kind, Value, motors_off
from simulator.physics.mechanisms import Cam, Travel
from simulator.physics.tiles import Tile, make_sets

HEAD_TAKE_AT = 0.3
HEAD_LEAVE_HOME_AT = 0.05
PLATE_LEAVE_HOME_AT = 0.04
PLATE_RAISE_AT = 0.5
SLOT_REFILL_S = 0.08     # a tile moves from the belt end under the count sensor
DICE_START_S = 0.05
LID_OBSTRUCTION_AT = 0.4  # where something under the lid stops it

Listener = Callable[[str, Value], None]


@dataclass
class SideModel:
    n: int
    belt: deque[tuple[Tile, float]] = field(default_factory=deque)
    slot: Tile | None = None
    half_stack: Tile | None = None
    track: list[tuple[Tile, Tile]] = field(default_factory=list)   # (top, bottom)
    arrival: Timer | None = None
    feed: Timer | None = None
    head: Cam | None = None
    plate: Cam | None = None
    belt_jammed: bool = False
    # When each tile went onto the belt, for the build's lower bound.
    loaded_at: list[float] = field(default_factory=list)
    conveyor: str = ""      # its conveyor's motor, named once
    # Its sensors, named once: set at every tile.
    count: str = ""
    full: str = ""
    tile_id: str = ""
    face_up: str = ""
    head_home: str = ""
    plate_home: str = ""
    # Its places in `where`, named once: set at every tile.
    on_belt: str = ""
    in_slot: str = ""

    def __post_init__(self) -> None:
        self.conveyor = f"motor.side.{self.n}.conveyor"
        self.count = f"side.{self.n}.count"
        self.full = f"side.{self.n}.full"
        self.tile_id = f"side.{self.n}.tile_id"
        self.face_up = f"side.{self.n}.face_up"
        self.head_home = f"side.{self.n}.head_home"
        self.plate_home = f"side.{self.n}.plate_home"
        self.on_belt = f"belt.{self.n}"
        self.in_slot = f"slot.{self.n}"


@dataclass
class DirtySensor:
    miss: float = 0.0        # chance a tile passes unseen
    double: float = 0.0      # chance one tile gives two pulses


class SimTable:
    def __init__(self, config: Config, clock: Clock, seed: int | None = None, *,
                 head_home_window: float = HEAD_LEAVE_HOME_AT,
                 plate_home_window: float = PLATE_LEAVE_HOME_AT) -> None:
        """`*_home_window`: the part of a cam's turn its home switch stays closed. A
        rig on the real clock at --speed widens them (simulator/rigs/ioboard_emulator.py):
        there a host's round trip is table-time too, and a stop arriving after the
        window is a cam coasting past home, which a table's own controller never sees."""
        if not 0 < head_home_window < HEAD_TAKE_AT or not 0 < plate_home_window < PLATE_RAISE_AT:
            raise ValueError(f"home windows must end before the head takes a tile "
                             f"({HEAD_TAKE_AT}) and the plate raises its wall ({PLATE_RAISE_AT})")
        self.config = config
        self.sim = config.simulator
        self.clock = clock
        self.seed = self.sim.seed if seed is None else seed
        self.rng = random.Random(self.seed)
        self.noise = random.Random(f"noise-{self.seed}")   # apart, so faults shift no picks
        self.signals = config.signals()
        self.values: dict[str, Value] = {s.name: s.rest_value
                                         for s in self.signals.values()}
        self.physical: dict[str, Value] = dict(self.values)
        # Asked on every command and edge: the outputs, and the readers (which report
        # every read, a repeat too), named once.
        self._outputs = frozenset(s.name for s in self.signals.values() if s.is_output)
        self._readers = frozenset(s.name for s in self.signals.values()
                                  if s.kind is Kind.READER)
        self.listener: Listener | None = None
        # What the firmware's sensors report (a console, the I/O-board emulator, the
        # referee), added with `observe` ...
        self.observers: tuple[Callable[[str, Value], None], ...] = ()
        self._reads: dict[int, frozenset[str]] = {}     # the names an observer gave
        # ... and what really happens, as people at the table see it, added with `heed`.
        self.witnesses: tuple[Callable[[str, Value], None], ...] = ()
        self._heeds: dict[int, frozenset[str]] = {}     # the names a witness gave
        # Who is told of each name, in the order added: worked out by `observe` and
        # `heed`, not asked at every reading and change (tuples, so that none is added
        # past them).
        self._observers_of: dict[str, tuple[Callable[[str, Value], None], ...]] = \
            dict.fromkeys(self.values, ())
        self._witnesses_of = dict(self._observers_of)
        # ... and what the mechanics do with tiles (a wall rising, a stack laid), for
        # a referee that judges physics (simulator/harness/referee.py).
        self.happenings: list[Callable[[str, int], None]] = []
        self.geometry = geometry = config.geometry
        self.tiles = make_sets(config.table.tiles, geometry.sets)
        self.where: dict[int, str] = {}
        # The set each tile went into the hole with (a tile of the other set forgotten
        # on the table rides in with the next set): a stray, like a foreign tile, that
        # only the count can tell (build.extra_tiles), not a second set on a track.
        self.came_with: dict[int, str] = {t.id: t.set_name for t in self.tiles}
        self.disc: list[Tile] = []
        self.on_table: list[Tile] = []            # loose, in the players' hands
        self.walls: list[list[tuple[Tile, Tile]]] = [[] for _ in geometry.sides]  # risen walls
        self.sides = [SideModel(n) for n in geometry.sides]
        # Injected faults.
        self.stuck: dict[str, Value] = {}
        self.dirty: dict[str, DirtySensor] = {}
        self.dead_motors: set[str] = set()
        self.slow_motors: dict[str, float] = {}
        self.dice_jammed = False
        self.dead_tiles = False     # set when a tile's magnet is made dead
        self.powered = True
        jitter = self.sim.timing_jitter
        # The cams' marks and the timers of every tile are partials made once: called
        # from C, not through a lambda's frame of ours (a few at every tile).
        self._arrivals = [partial(self._arrive, side) for side in self.sides]
        self._feeds = [partial(self._feed, side) for side in self.sides]
        for side in self.sides:
            side.head = Cam(clock, self.sim.head_turn_s,
                            [(head_home_window, partial(self._set, side.head_home, False)),
                             (HEAD_TAKE_AT, partial(self._head_take, side))],
                            partial(self._set, side.head_home, True),
                            jitter, self.noise)
            side.plate = Cam(clock, self.sim.plate_turn_s,
                             [(plate_home_window, partial(self._set, side.plate_home, False)),
                              (PLATE_RAISE_AT, partial(self._raise_wall, side))],
                             partial(self._set, side.plate_home, True),
                             jitter, self.noise)
        self.lid = Travel(clock, self.sim.lid_travel_s, self._lid_moved, jitter, self.noise)
        self._appliers = self._motors_physics()
        self._dice_timer: Timer | None = None
        self._place_first_use()
        for side in self.sides:
            self.values[side.head_home] = True
            self.values[side.plate_home] = True
        self.values["lid.lower"] = True
        self.physical.update(self.values)

    # -- tiles -------------------------------------------------------------------

    def _place_first_use(self) -> None:
        """First use: the first set poured onto the disc, the others with the players."""
        for tile in self.tiles:
            if tile.set_name == self.geometry.first_set:
                self._to_disc(tile)
            else:
                self.on_table.append(tile)
                self.where[tile.id] = "table"
        self.rng.shuffle(self.disc)

    def _to_disc(self, tile: Tile) -> None:
        self.disc.append(tile)
        self.where[tile.id] = "disc"

    def push_into_hole(self, leave_behind: int = 0) -> list[Tile]:
        """Players push the table's tiles into the open hole; returns the tiles left."""
        pushed = [t for wall in self.walls for stack in wall for t in stack]
        pushed += self.on_table
        self.walls = [[] for _ in self.geometry.sides]
        left = [pushed.pop(self.rng.randrange(len(pushed))) for _ in range(leave_behind)]
        self.on_table = left
        for tile in left:
            self.where[tile.id] = "table"
        batch = Counter(t.set_name for t in pushed if t.set_name != "X").most_common(1)
        for tile in pushed:
            self._to_disc(tile)
        if batch:
            # Tiles left on the disc by the last build (extras its sweep did not
            # reach) are mixed into this set there: strays of it from now on.
            for tile in self.disc:
                if self.came_with.get(tile.id) != "X":
                    self.came_with[tile.id] = batch[0][0]
        return left

    def push_loose(self) -> int:
        """Players top up: they push the loose tiles of the set inside the table (its
        back colour) into the hole; tiles of the other set stay where they are (at
        first use that is the whole set in their hands, not a forgotten tile)."""
        inside = self.set_inside()
        loose = [t for t in self.on_table if t.set_name == inside]
        self.on_table = [t for t in self.on_table if t.set_name != inside]
        for tile in loose:
            self._to_disc(tile)
        return len(loose)

    def set_inside(self) -> str | None:
        """The set whose tiles are inside the table (disc, belts, heads, tracks): the
        colour players see through the open hole. Foreign tiles do not count."""
        places = self.where
        inside = Counter(t.set_name for t in self.tiles
                         if places.get(t.id) not in (None, "table")
                         and not str(places.get(t.id)).startswith("wall."))
        inside.pop("X", None)
        return inside.most_common(1)[0][0] if inside else None

    def add_foreign_tiles(self, count: int) -> list[Tile]:
        """Tiles of another set pushed in with this one."""
        foreign = [Tile(len(self.tiles) + i, self.rng.choice(self.tiles).code, "X")
                   for i in range(count)]
        self.tiles.extend(foreign)
        self.came_with.update((t.id, "X") for t in foreign)
        for tile in foreign:
            self._to_disc(tile)
        return foreign

    def remove_foreign_tiles(self) -> int:
        """A technician takes out every tile that is not of sets A or B."""
        foreign = {t.id for t in self.tiles if t.set_name == "X"}
        for tile in self._take_out(lambda t: t.id in foreign):
            if tile.id not in foreign:
                self._to_disc(tile)     # the other tile of a stack that held a foreign one
        # Foreign tiles in risen walls or loose on the table are taken out too; the
        # other tile of such a stack is left loose on the table.
        self.on_table = [t for t in self.on_table if t.id not in foreign]
        for n, wall in enumerate(self.walls):
            kept = [stack for stack in wall if not any(t.id in foreign for t in stack)]
            for stack in wall:
                if any(t.id in foreign for t in stack):
                    for tile in stack:
                        if tile.id not in foreign:
                            self.on_table.append(tile)
                            self.where[tile.id] = "table"
            self.walls[n] = kept
        self.tiles = [t for t in self.tiles if t.id not in foreign]
        for tile_id in foreign:
            self.where.pop(tile_id, None)
        return len(foreign)

    def refeed(self) -> int:
        """A technician empties belts, heads and tracks back onto the disc."""
        moved = self._take_out(lambda t: True, keep=True)
        for tile in moved:
            self._to_disc(tile)
        for side in self.sides:
            self._set(side.full, False)
            self._set(side.count, False)
        return len(moved)

    def _take_out(self, match: Callable[[Tile], bool], keep: bool = False) -> list[Tile]:
        taken: list[Tile] = []
        self.disc[:] = [t for t in self.disc if not (match(t) and not keep) or taken.append(t)]
        for side in self.sides:
            kept_belt = deque((t, r) for t, r in side.belt if not match(t))
            taken += [t for t, _ in side.belt if match(t)]
            side.belt = kept_belt
            side.loaded_at = side.loaded_at[:len(kept_belt)] if keep else side.loaded_at
            if side.slot is not None and match(side.slot):
                taken.append(side.slot)
                side.slot = None
                self._set(side.count, False)
            if side.half_stack is not None and match(side.half_stack):
                taken.append(side.half_stack)
                side.half_stack = None
            stacks = [s for s in side.track if not any(match(t) for t in s)]
            for stack in side.track:
                if any(match(t) for t in stack):
                    taken += list(stack)
            side.track = stacks
        return taken

    def tiles_accounted(self) -> bool:
        """Every tile is in exactly one place, and `where` agrees with the containers."""
        seen: dict[int, str] = {}

        def put(tile: Tile, place: str) -> bool:
            if tile.id in seen:
                return False
            seen[tile.id] = place
            return True

        places = [(t, "disc") for t in self.disc] + [(t, "table") for t in self.on_table]
        for n, wall in enumerate(self.walls):
            places += [(t, f"wall.{n}") for stack in wall for t in stack]
        for s in self.sides:
            places += [(t, s.on_belt) for t, _ in s.belt]
            places += [(t, s.in_slot) for t in [s.slot] if t]
            places += [(t, f"head.{s.n}") for t in [s.half_stack] if t]
            places += [(t, f"track.{s.n}") for stack in s.track for t in stack]
        if not all(put(tile, place) for tile, place in places):
            return False
        return seen == self.where and len(seen) == len(self.tiles)

    def raised_walls(self) -> list[list[tuple[Tile, Tile]]]:
        return self.walls

    def walls_up(self) -> bool:
        full = self.config.table.stacks_per_wall
        return (all(len(w) == full for w in self.walls)
                and all(self.physical[side.plate_home] for side in self.sides))

    # -- signals -----------------------------------------------------------------

    def _set(self, name: str, value: Value) -> None:
        """Physics moved an input to `value`; a stuck sensor still reads its stuck value."""
        physical = self.physical
        changed = physical[name] != value
        physical[name] = value
        if changed:
            for witness in self._witnesses_of[name]:
                witness(name, value)
        if name in self.stuck:      # asked, not got: most sensors are not stuck
            value = self.stuck[name]
        # _deliver, spelled out: every edge of the table comes through here.
        values = self.values
        if not self.powered or (values[name] == value and name not in self._readers):
            return
        values[name] = value
        if self.listener is not None:
            self.listener(name, value)
        for observer in self._observers_of[name]:
            observer(name, value)

    def heed(self, witness: Callable[[str, Value], None],
             names: Iterable[str] | None = None) -> None:
        """Add `witness`, to be told of the changes of `names` only (None: of every
        change)."""
        if names is not None:
            self._heeds[id(witness)] = frozenset(names)
        self.witnesses += (witness,)
        self._witnesses_of = _told_of(self.witnesses, self._heeds, self.values)

    def observe(self, observer: Callable[[str, Value], None],
                names: Iterable[str] | None = None) -> None:
        """From now on tell `observer` of the readings of `names` only (None: of every
        reading). Added to `observers` unless it is there already, where it keeps its
        place (an observer that reads other names from some moment on)."""
        for kept in self.observers:
            if kept == observer:
                observer = kept     # the same bound method: the one whose id is the key
                break
        else:
            self.observers += (observer,)
        if names is None:
            self._reads.pop(id(observer), None)
        else:
            self._reads[id(observer)] = frozenset(names)
        self._observers_of = _told_of(self.observers, self._reads, self.values)

    def _deliver(self, name: str, value: Value) -> None:
        # A tile reader reports every read, the same code again too: a reader silent
        # on a repeat would tell "the same tile as the last one" (docs/console.md).
        if not self.powered or (self.values[name] == value and name not in self._readers):
            return
        self.values[name] = value
        if self.listener is not None:
            self.listener(name, value)
        for observer in self._observers_of[name]:
            observer(name, value)

    def _pulse(self, name: str, first_s: float, width_s: float) -> None:
        """A glitch on an input: inverted for `width_s`, starting after `first_s`."""
        def flip() -> None:
            if name not in self.stuck:
                self._deliver(name, not self.physical[name])

        def back() -> None:
            if name not in self.stuck:
                self._deliver(name, self.physical[name])

        self.clock.call_later(first_s, flip)
        self.clock.call_later(first_s + width_s, back)

    def motor_on(self, name: str) -> bool:
        """Whether a motor really turns: commanded on, powered and not dead."""
        value = self.values[name]
        return bool(value) and value != "off" and self.powered and name not in self.dead_motors

    def command(self, name: str, value: Value) -> None:
        """An output driven by the firmware (through the sim HAL)."""
        if name not in self._outputs:
            raise KeyError(f"not an output: {name}")
        values = self.values
        if values[name] == value or not self.powered:
            return
        values[name] = value
        for observer in self._observers_of[name]:
            observer(name, value)
        for witness in self._witnesses_of[name]:
            witness(name, value)
        # _apply, spelled out (`powered` was asked above): at every command.
        apply = self._appliers.get(name)
        if apply is not None:
            value = values[name]
            apply(bool(value) and value != "off" and name not in self.dead_motors)

    def _apply(self, name: str) -> None:
        """Let the physics follow motor `name`'s current command."""
        apply = self._appliers.get(name)
        if apply is not None:       # an output that moves nothing (display, lamps)
            apply(self.motor_on(name))

    def _motors_physics(self) -> dict[str, Callable[[bool], None]]:
        """What each motor moves, given whether it turns: looked up once per command
        instead of taking its name apart."""
        def lid(on: bool) -> None:
            value = self.values["motor.lid"] if on else "off"
            self.lid.drive({LID_UP: 1, LID_DOWN: -1}.get(str(value), 0))

        def conveyor(side: SideModel, on: bool) -> None:
            if not on:
                self._belt_slides_back(side)
            self._update_arrivals()
            self._schedule_feed(side)

        def feed(_on: bool) -> None:
            self._update_arrivals()

        appliers: dict[str, Callable[[bool], None]] = {
            "motor.lid": lid,
            "motor.disc": feed,
            "motor.ring": feed,
            "motor.dice": self._dice,
        }
        for side in self.sides:
            assert side.head is not None and side.plate is not None
            appliers[side.conveyor] = partial(conveyor, side)
            appliers[f"motor.side.{side.n}.head"] = side.head.set_motor
            appliers[f"motor.side.{side.n}.plate"] = side.plate.set_motor
        return appliers

    def press(self, key: str, hold_s: float = 0.2) -> None:
        """A player presses a panel key."""
        self._set(key, True)
        self.clock.call_later(hold_s, lambda: self._set(key, False))

    # -- injected faults ------------------------------------------------------------

    def stick(self, name: str, value: Value) -> None:
        self.stuck[name] = value
        self._deliver(name, value)

    def unstick(self, name: str) -> None:
        self.stuck.pop(name, None)
        self.dirty.pop(name, None)
        self._deliver(name, self.physical[name])

    def kill_motor(self, name: str) -> None:
        self.dead_motors.add(name)
        self._apply(name)

    def slow_motor(self, name: str, factor: float) -> None:
        self.slow_motors[name] = factor
        self._set_slow(name, factor)

    def repair_motor(self, name: str) -> None:
        self.dead_motors.discard(name)
        if self.slow_motors.pop(name, None) is not None:
            self._set_slow(name, 1.0)
        self._apply(name)

    def _set_slow(self, name: str, factor: float) -> None:
        parts = name.split(".")
        # At once, mid-turn too: a motor replaced mid-turn turns at its new speed.
        if name == "motor.lid":
            self.lid.set_slow(factor)
        elif parts[:2] == ["motor", "side"] and parts[3] in ("head", "plate"):
            getattr(self.sides[int(parts[2])], parts[3]).set_slow(factor)

    def jam(self, where: str, jammed: bool) -> None:
        """A tile jammed in a head or on a conveyor (or cleared)."""
        parts = where.split(".")
        side = self.sides[int(parts[1])]
        if parts[2] == "head":
            side.head.set_blocked(jammed)
        elif parts[2] == "plate":
            side.plate.set_blocked(jammed)
        else:
            side.belt_jammed = jammed
            self._schedule_feed(side)

    def block_lid(self, blocked: bool) -> None:
        self.lid.blocked_below = LID_OBSTRUCTION_AT if blocked else -1.0
        self.lid.drive(self.lid.direction)

    def jam_dice(self, jammed: bool) -> None:
        self.dice_jammed = jammed

    def power(self, on: bool) -> None:
        """A power cut stops every motor; inputs read again when power returns."""
        if not on:
            for signal in self.signals.values():
                if signal.is_output:
                    self.values[signal.name] = signal.safe_value
            self.powered = False
            for name in self.signals:
                if self.signals[name].is_motor:
                    self._apply(name)
            return
        self.powered = True
        for name, value in self.physical.items():
            if not self.signals[name].is_output:
                self.values[name] = self.stuck.get(name, value)

    # -- disc, ring, belts ---------------------------------------------------------

    def _feeding(self, side: SideModel) -> bool:
        # motor_on of the disc, the ring and the conveyor, spelled out: at every tile.
        if not self.powered:
            return False
        values, dead = self.values, self.dead_motors
        for motor in ("motor.disc", "motor.ring", side.conveyor):
            value = values[motor]
            if not value or value == "off" or motor in dead:
                return False
        return True

    def _update_arrivals(self) -> None:
        # The disc and ring once for all four sides (_feeding, side by side, motor_on
        # spelled out); most runs have no dead tile (_pickable, spelled out).
        values, dead = self.values, self.dead_motors
        disc, ring = values["motor.disc"], values["motor.ring"]
        turning = (bool(disc) and disc != "off" and bool(ring) and ring != "off"
                   and self.powered and "motor.disc" not in dead and "motor.ring" not in dead
                   and (bool(self.disc) if not self.dead_tiles else self._pickable()))
        capacity = self.sim.belt_capacity
        for side in self.sides:
            # motor_on(side.conveyor) spelled out (`turning` holds `powered`): four sides
            # at every command of a feed motor and every tile.
            conveyor = values[side.conveyor] if turning else None
            can = (bool(conveyor) and conveyor != "off" and side.conveyor not in dead
                   and len(side.belt) < capacity)
            if can and side.arrival is None:
                delay = self.rng.expovariate(self._arrival_rate())
                side.arrival = self.clock.call_later(delay, self._arrivals[side.n])
            elif not can and side.arrival is not None:
                side.arrival.cancel()
                side.arrival = None

    def _arrival_rate(self) -> float:
        slow = self.slow_motors
        return self.sim.arrival_rate_per_side / (
            max(slow.get("motor.disc", 1.0), slow.get("motor.ring", 1.0)) if slow else 1.0)

    def _pickable(self) -> bool:
        if self.dead_tiles:
            return any(t.magnet != "dead" for t in self.disc)
        return bool(self.disc)

    def _pick(self) -> Tile | None:
        # Most runs have no dead tile: skip building the index list on the hot path.
        if self.dead_tiles:
            pickable = [i for i, t in enumerate(self.disc) if t.magnet != "dead"]
        else:
            pickable = range(len(self.disc))    # type: ignore[assignment]
        if not pickable:
            return None
        if self.sim.shuffle == "under_mixed":
            # A worn disc barely mixes: tiles come up close to the order they went in.
            index = pickable[min(len(pickable) - 1, int(self.rng.expovariate(1 / 2.0)))]
        else:
            index = self.rng.choice(pickable)
        return self.disc.pop(index)

    def _arrive(self, side: SideModel) -> None:
        side.arrival = None
        if not self._feeding(side):
            return
        tile = self._pick()
        if tile is not None:
            now = self.clock.now()
            side.belt.append((tile, now + self.sim.belt_transit_s))
            side.loaded_at.append(now)
            self.where[tile.id] = side.on_belt
            self._set(side.full, len(side.belt) >= self.sim.belt_capacity)
            self._schedule_feed(side)
        self._update_arrivals()

    def _belt_slides_back(self, side: SideModel) -> None:
        while side.belt:
            tile, _ = side.belt.pop()
            side.loaded_at.pop()
            self._to_disc(tile)
        self._set(side.full, False)

    def _schedule_feed(self, side: SideModel) -> None:
        if side.feed is not None or side.slot is not None or not side.belt:
            return
        if not self.motor_on(side.conveyor) or side.belt_jammed:
            return
        ready = max(side.belt[0][1], self.clock.now())
        side.feed = self.clock.call_at(ready, self._feeds[side.n])

    def _feed(self, side: SideModel) -> None:
        side.feed = None
        if side.slot is not None or not side.belt or side.belt_jammed:
            return
        if not self.motor_on(side.conveyor):
            return
        if side.belt[0][1] > self.clock.now():
            self._schedule_feed(side)     # the front tile is still riding up
            return
        tile, _ = side.belt.popleft()
        side.slot = tile
        self.where[tile.id] = side.in_slot
        n = side.n
        if side.tile_id in self.values:
            self._set(side.tile_id, tile.code)
        if side.face_up in self.values:
            self._set(side.face_up, tile.magnet == "weak")
        self._set(side.full, len(side.belt) >= self.sim.belt_capacity)
        self._count_edge(n)
        self._update_arrivals()

    def _count_edge(self, n: int) -> None:
        name = self.sides[n].count
        dirty = self.dirty.get(name)
        if dirty is not None and self.noise.random() < dirty.miss:
            self.physical[name] = True      # the tile is there; the sensor did not see it
            return
        self._set(name, True)
        if dirty is not None and self.noise.random() < dirty.double:
            self._pulse(name, self.noise.uniform(0.01, 0.03), 0.002)
        elif self.noise.random() < self.sim.count_bounce:
            self._pulse(name, 0.001, self.noise.uniform(0.0005, 0.002))

    def stop_eta(self, where: str) -> float | None:
        """Seconds until `where` (`lid`, `side.N.head`, `side.N.plate`) reaches the stop
        its motion is heading for — a cam's home, the lid's far stop — or None when it
        is not on its way there (stopped, jammed, or still leaving its stop)."""
        if where == "lid":
            return self.lid.time_to_stop()
        parts = where.split(".")
        return getattr(self.sides[int(parts[1])], parts[2]).time_to_home()

    # -- heads and plates ------------------------------------------------------------

    def _head_take(self, side: SideModel) -> None:
        tile = side.slot
        if tile is None:
            return      # an empty turn
        side.slot = None
        self._set(side.count, False)
        if side.half_stack is None:
            side.half_stack = tile
            self.where[tile.id] = f"head.{side.n}"
        else:
            side.track.append((tile, side.half_stack))
            self.where[tile.id] = self.where[side.half_stack.id] = f"track.{side.n}"
            side.half_stack = None
            self._happened("stack.laid", side.n)
        if side.belt and side.feed is None:
            side.feed = self.clock.call_later(SLOT_REFILL_S, self._feeds[side.n])

    def _happened(self, what: str, side: int) -> None:
        for happening in self.happenings:
            happening(what, side)

    def _raise_wall(self, side: SideModel) -> None:
        self._happened("wall.rising", side.n)
        if not side.track:
            return
        for stack in self.walls[side.n]:
            # A wall still standing is knocked over onto the table by the one rising.
            for tile in stack:
                self.on_table.append(tile)
                self.where[tile.id] = "table"
        self.walls[side.n] = side.track
        side.track = []
        for stack in self.walls[side.n]:
            for tile in stack:
                self.where[tile.id] = f"wall.{side.n}"

    # -- lid and dice ---------------------------------------------------------------

    def _lid_moved(self, position: float) -> None:
        self._set("lid.lower", position <= 0.0)
        self._set("lid.upper", position >= 1.0)

    def _dice(self, on: bool) -> None:
        if self._dice_timer is not None:
            self._dice_timer.cancel()
        tumbling = on and not self.dice_jammed
        delay = DICE_START_S if on else self.sim.dice_settle_s
        self._dice_timer = self.clock.call_later(delay,
                                                 lambda: self._set("dice.spin", tumbling))

    # -- figures --------------------------------------------------------------------

    def motors_off(self) -> bool:
        return motors_off(self.signals, self.values)


def _told_of(told: tuple[Callable[[str, Value], None], ...], names_of: dict[int, frozenset[str]],
             names: Iterable[str]) -> dict[str, tuple[Callable[[str, Value], None], ...]]:
    """Who of `told` is told of each of `names`, in their order: those that gave no
    names (`names_of`, by id), and those whose names hold it."""
    return {name: tuple(t for t in told if id(t) not in names_of or name in names_of[id(t)])
            for name in names}


def build_bound(table: SimTable, started_at: float, target: int) -> float:
    """The shortest build the mechanics allow for the arrivals that happened.

    For each side, replay its tiles' loading times through an ideal head that reacts
    instantly: a tile reaches the head `belt_transit_s` after loading, enters the slot
    no sooner than `SLOT_REFILL_S` after the previous tile was taken, and each cam turn
    starts no sooner than the previous one ends and takes the shortest time the
    simulated motor's noise allows. The set is built when the slowest
    side's last turn ends.
    """
    sim = table.sim
    turn = sim.head_turn_s * (1 - sim.timing_jitter)   # the fastest turn the noise allows
    finish = started_at
    for side in table.sides:
        taken = turn_start = float("-inf")
        for loaded in side.loaded_at[:target]:
            enters = max(loaded + sim.belt_transit_s, taken + SLOT_REFILL_S)
            turn_start = max(enters, turn_start + turn)
            taken = turn_start + HEAD_TAKE_AT * turn
        finish = max(finish, turn_start + turn)
    return finish - started_at
