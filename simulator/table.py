"""Discrete-event physical model of a four-mouth, two-set table.

The model owns every tile and knows at every instant where it is (`where`). Outputs
arrive through `command` (from the sim HAL backend); inputs change by physics and are
reported to the firmware's listener. Nothing here knows the firmware's states.

Modelling choices (our inference where MECHANICS.md is silent):
- The ring lifts a tile onto side N's conveyor as a Poisson process while disc, ring
  and that conveyor turn and the belt has room; each side picks a random tile still on
  the disc (a worn "under_mixed" disc picks near the order the tiles were pushed in).
- A belt is inclined: when its conveyor stops, the tiles still riding it slide back
  onto the disc. The tile waiting at the head (under the count sensor) stays.
- The head cam takes the waiting tile 30 % into its turn; the first tile of a pair is
  the bottom of the stack, the second the top. Stacks enter the track from the
  owner's right end, so the i-th stack of a side is stack k = i of that wall.
- A plate cam lifts the staged wall to the table halfway round.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware.clock import Clock, Timer
from firmware.config import Config
from hal.signals import LID_DOWN, LID_UP, Kind, Value, catalogue
from simulator.mechanisms import Cam, Travel
from simulator.tiles import Tile, make_sets

HEAD_TAKE_AT = 0.3
HEAD_LEAVE_HOME_AT = 0.05
PLATE_LEAVE_HOME_AT = 0.04
PLATE_RAISE_AT = 0.5
SLOT_REFILL_S = 0.08     # a tile moves from the belt end under the count sensor
DICE_START_S = 0.05

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
    # When each tile went onto the belt, for the build's lower bound.
    loaded_at: list[float] = field(default_factory=list)


class SimTable:
    def __init__(self, config: Config, clock: Clock, seed: int | None = None) -> None:
        self.config = config
        self.sim = config.simulator
        self.clock = clock
        self.seed = self.sim.seed if seed is None else seed
        self.rng = random.Random(self.seed)
        self.signals = catalogue(config.table.tile_reader, config.table.face_up_sensor)
        self.values: dict[str, Value] = {s.name: s.safe_value if s.is_output else
                                         (None if s.kind is Kind.READER else False)
                                         for s in self.signals.values()}
        self.listener: Listener | None = None
        self.observers: list[Callable[[str, Value], None]] = []
        self.tiles = make_sets(config.table.tiles)
        self.where: dict[int, str] = {}
        self.disc: list[Tile] = []
        self.on_table: list[Tile] = []            # loose, in the players' hands
        self.walls: list[list[tuple[Tile, Tile]]] = [[] for _ in range(4)]  # risen walls
        self.sides = [SideModel(n) for n in range(4)]
        for side in self.sides:
            side.head = Cam(clock, self.sim.head_turn_s,
                            [(HEAD_LEAVE_HOME_AT, lambda s=side: self._head_left(s)),
                             (HEAD_TAKE_AT, lambda s=side: self._head_take(s))],
                            lambda s=side: self._set(f"side.{s.n}.head_home", True))
            side.plate = Cam(clock, self.sim.plate_turn_s,
                             [(PLATE_LEAVE_HOME_AT,
                               lambda s=side: self._set(f"side.{s.n}.plate_home", False)),
                              (PLATE_RAISE_AT, lambda s=side: self._raise_wall(s))],
                             lambda s=side: self._set(f"side.{s.n}.plate_home", True))
        self.lid = Travel(clock, self.sim.lid_travel_s, self._lid_moved)
        self._dice_timer: Timer | None = None
        self._place_first_use()
        for n in range(4):
            self.values[f"side.{n}.head_home"] = True
            self.values[f"side.{n}.plate_home"] = True
        self.values["lid.lower"] = True

    # -- tiles -------------------------------------------------------------------

    def _place_first_use(self) -> None:
        """First use: set A poured onto the disc, set B with the players."""
        for tile in self.tiles:
            if tile.set_name == "A":
                self._to_disc(tile)
            else:
                self.on_table.append(tile)
                self.where[tile.id] = "table"
        self.rng.shuffle(self.disc)

    def _to_disc(self, tile: Tile) -> None:
        self.disc.append(tile)
        self.where[tile.id] = "disc"

    def push_into_hole(self) -> int:
        """Players push everything on the table into the open hole; returns how many."""
        pushed = [t for wall in self.walls for stack in wall for t in stack]
        pushed += self.on_table
        self.walls = [[] for _ in range(4)]
        self.on_table = []
        for tile in pushed:
            self._to_disc(tile)
        return len(pushed)

    def tiles_accounted(self) -> bool:
        """Every tile is in exactly one place, and `where` agrees with the containers."""
        seen: dict[int, str] = {}

        def put(tile: Tile, place: str) -> None:
            if tile.id in seen:
                raise AssertionError(f"tile {tile.id} in {seen[tile.id]} and {place}")
            seen[tile.id] = place

        try:
            for t in self.disc:
                put(t, "disc")
            for t in self.on_table:
                put(t, "table")
            for n, wall in enumerate(self.walls):
                for stack in wall:
                    for t in stack:
                        put(t, f"wall.{n}")
            for s in self.sides:
                for t, _ in s.belt:
                    put(t, f"belt.{s.n}")
                if s.slot:
                    put(s.slot, f"slot.{s.n}")
                if s.half_stack:
                    put(s.half_stack, f"head.{s.n}")
                for stack in s.track:
                    for t in stack:
                        put(t, f"track.{s.n}")
        except AssertionError:
            return False
        return seen == self.where and len(seen) == len(self.tiles)

    def raised_walls(self) -> list[list[tuple[Tile, Tile]]]:
        return self.walls

    def walls_up(self) -> bool:
        full = self.config.table.stacks_per_wall
        return (all(len(w) == full for w in self.walls)
                and all(self.values[f"side.{n}.plate_home"] for n in range(4)))

    # -- signals -----------------------------------------------------------------

    def _set(self, name: str, value: Value) -> None:
        if self.values[name] == value:
            return
        self.values[name] = value
        if self.listener is not None:
            self.listener(name, value)
        for observer in self.observers:
            observer(name, value)

    def command(self, name: str, value: Value) -> None:
        """An output driven by the firmware (through the sim HAL)."""
        if name not in self.signals or not self.signals[name].is_output:
            raise KeyError(f"not an output: {name}")
        if self.values[name] == value:
            return
        self.values[name] = value
        for observer in self.observers:
            observer(name, value)
        parts = name.split(".")
        if name == "motor.lid":
            self.lid.drive({LID_UP: 1, LID_DOWN: -1}.get(str(value), 0))
        elif name in ("motor.disc", "motor.ring"):
            self._update_arrivals()
        elif name == "motor.dice":
            self._dice(bool(value))
        elif parts[:2] == ["motor", "side"]:
            side = self.sides[int(parts[2])]
            if parts[3] == "conveyor":
                if not value:
                    self._belt_slides_back(side)
                self._update_arrivals()
                self._schedule_feed(side)
            elif parts[3] == "head":
                side.head.set_motor(bool(value))
            elif parts[3] == "plate":
                side.plate.set_motor(bool(value))

    def press(self, key: str, hold_s: float = 0.2) -> None:
        """A player presses a panel key."""
        self._set(key, True)
        self.clock.call_later(hold_s, lambda: self._set(key, False))

    # -- disc, ring, belts ---------------------------------------------------------

    def _feeding(self, side: SideModel) -> bool:
        v = self.values
        return bool(v["motor.disc"] and v["motor.ring"] and v[f"motor.side.{side.n}.conveyor"])

    def _update_arrivals(self) -> None:
        for side in self.sides:
            can = (self._feeding(side) and len(side.belt) < self.sim.belt_capacity
                   and any(t.magnet != "dead" for t in self.disc))
            if can and side.arrival is None:
                delay = self.rng.expovariate(self.sim.arrival_rate_per_side)
                side.arrival = self.clock.call_later(delay, lambda s=side: self._arrive(s))
            elif not can and side.arrival is not None:
                side.arrival.cancel()
                side.arrival = None

    def _pick(self) -> Tile | None:
        pickable = [i for i, t in enumerate(self.disc) if t.magnet != "dead"]
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
            side.belt.append((tile, self.clock.now() + self.sim.belt_transit_s))
            side.loaded_at.append(self.clock.now())
            self.where[tile.id] = f"belt.{side.n}"
            self._set(f"side.{side.n}.full", len(side.belt) >= self.sim.belt_capacity)
            self._schedule_feed(side)
        self._update_arrivals()

    def _belt_slides_back(self, side: SideModel) -> None:
        while side.belt:
            tile, _ = side.belt.pop()
            side.loaded_at.pop()
            self._to_disc(tile)
        self._set(f"side.{side.n}.full", False)

    def _schedule_feed(self, side: SideModel) -> None:
        if side.feed is not None or side.slot is not None or not side.belt:
            return
        if not self.values[f"motor.side.{side.n}.conveyor"]:
            return
        ready = max(side.belt[0][1], self.clock.now())
        side.feed = self.clock.call_at(ready, lambda: self._feed(side))

    def _feed(self, side: SideModel) -> None:
        side.feed = None
        if side.slot is not None or not side.belt:
            return
        if not self.values[f"motor.side.{side.n}.conveyor"]:
            return
        if side.belt[0][1] > self.clock.now():
            self._schedule_feed(side)     # the front tile is still riding up
            return
        tile, _ = side.belt.popleft()
        side.slot = tile
        self.where[tile.id] = f"slot.{side.n}"
        n = side.n
        if f"side.{n}.tile_id" in self.values:
            self._set(f"side.{n}.tile_id", tile.code)
        if f"side.{n}.face_up" in self.values:
            self._set(f"side.{n}.face_up", tile.magnet == "weak")
        self._set(f"side.{n}.full", len(side.belt) >= self.sim.belt_capacity)
        self._set(f"side.{n}.count", True)
        self._update_arrivals()

    # -- heads and plates ------------------------------------------------------------

    def _head_left(self, side: SideModel) -> None:
        self._set(f"side.{side.n}.head_home", False)

    def _head_take(self, side: SideModel) -> None:
        tile = side.slot
        if tile is None:
            return      # an empty turn
        side.slot = None
        self._set(f"side.{side.n}.count", False)
        if side.half_stack is None:
            side.half_stack = tile
            self.where[tile.id] = f"head.{side.n}"
        else:
            side.track.append((tile, side.half_stack))
            self.where[tile.id] = self.where[side.half_stack.id] = f"track.{side.n}"
            side.half_stack = None
        if side.belt and side.feed is None:
            side.feed = self.clock.call_later(SLOT_REFILL_S, lambda: self._feed(side))

    def _raise_wall(self, side: SideModel) -> None:
        if not side.track:
            return
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
        delay = DICE_START_S if on else self.sim.dice_settle_s
        self._dice_timer = self.clock.call_later(delay, lambda: self._set("dice.spin", on))

    # -- figures --------------------------------------------------------------------

    def motors_off(self) -> bool:
        return all(not self.values[s.name] or self.values[s.name] == "off"
                   for s in self.signals.values() if s.is_motor)
