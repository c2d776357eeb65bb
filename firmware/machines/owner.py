"""One owner per mechanism: who may move the lid, a plate, a head, the disc or the dice.

The table's own work (the cycle and the build) uses a mechanism while its machines
say so; a technician's self-test, jog or guided-diagnosis check holds it explicitly.
Whoever asks second is refused with the reason, so two users never drive one motor
(a diagnosis moving the lid while the cycle closes it would leave the lid's machine
in error, or worse, lower it onto a player's hand).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from firmware.machines.protocols import Machine, noop
from firmware.why import HELD_BY

if TYPE_CHECKING:
    from firmware.machines.supervisor import Supervisor

CYCLE, BUILD = "cycle", "build"


def motors_of(mechanism: str) -> tuple[str, ...]:
    """The motor signals of a mechanism (`lid`, `disc`, `dice`, `head.2`, …)."""
    part, _, side = mechanism.partition(".")
    if part == "disc":
        return ("motor.disc", "motor.ring")
    if side:
        return (f"motor.side.{side}.{part}",)
    return (f"motor.{part}",)


def mechanism_of(motor: str) -> str:
    """The mechanism a motor signal belongs to (`motor.side.2.head` -> `head.2`)."""
    parts = motor.split(".")
    if parts[1] == "side":
        return f"{parts[3]}.{parts[2]}"
    return "disc" if parts[1] in ("disc", "ring") else parts[1]


class Busy(Exception):
    """The mechanism is in use by someone else; `str()` says who and why."""

    def __init__(self, mechanism: str, user: str) -> None:
        super().__init__(f"{mechanism} is in use by {user}")
        self.mechanism, self.user = mechanism, user


class Owner:
    """Grants mechanisms to one holder at a time; the table's own use counts."""

    # The table's machines, bound once they are built (`bind`): the owner is built
    # first, as the latch and the lid ask it.
    cycle: Machine
    build: Any                      # Build: its state, and whether it runs
    lid: Machine
    dice: Machine
    sides: Sequence[Any]            # SideBuilder: its state and its head's key
    plates: Sequence[Machine]
    supervisor: Supervisor

    def __init__(self) -> None:
        self.held: dict[str, tuple[str, str]] = {}     # mechanism -> (holder, why)
        # Mechanisms released: a build that waited for them goes on (the cycle's).
        self.on_release: Callable[[], None] = noop

    def bind(self, *, cycle: Machine, build: Any, lid: Machine, dice: Machine,
             sides: Sequence[Any], plates: Sequence[Machine], supervisor: Supervisor,
             on_release: Callable[[], None]) -> None:
        """The machines whose work is the table's own use of a mechanism, and what
        runs when a holder lets go (the cycle's `start_next_build`)."""
        self.cycle, self.build, self.lid, self.dice = cycle, build, lid, dice
        self.sides, self.plates, self.supervisor = sides, plates, supervisor
        self.on_release = on_release

    def table_use(self, mechanism: str) -> str | None:
        """Whether the cycle or the build is using `mechanism` now."""
        cycle, lid, build = self.cycle, self.lid, self.build
        part, _, side = mechanism.partition(".")
        if part == "lid":
            if cycle.uses_lid or lid.moving:
                return f"{CYCLE} ({cycle.state}, lid {lid.state})"
        elif part == "plate":
            plate = self.plates[int(side)]
            if cycle.raising or plate.moving:
                return f"{CYCLE} (raising the walls)"
        elif part in ("head", "conveyor"):
            builder = self.sides[int(side)]
            if builder.busy or self.supervisor.is_supervised(
                    builder.key):
                return f"{BUILD} (side {side} {builder.state})"
        elif part == "disc":
            if build.part_built:
                return f"{BUILD} ({build.state})"
        elif part == "dice" and (self.dice.spinning or cycle.rolling):
            return f"{CYCLE} (rolling the dice)"
        return None

    def user(self, mechanism: str) -> str | None:
        """Who uses `mechanism` now, with what for; None when it is free."""
        if mechanism in self.held:
            holder, why = self.held[mechanism]
            return f"{holder} ({why})"
        return self.table_use(mechanism)

    def acquire(self, holder: str, mechanisms: list[str], why: str) -> None:
        """Hold every one of `mechanisms` for `holder`, or none of them (raises Busy)."""
        for mechanism in mechanisms:
            held = self.held.get(mechanism)
            if held is not None and held[0] == holder:
                continue
            user = self.user(mechanism)
            if user is not None:
                raise Busy(mechanism, user)
        for mechanism in mechanisms:
            self.held[mechanism] = (holder, why)

    def release(self, holder: str) -> None:
        released = [m for m, (h, _) in self.held.items() if h == holder]
        for mechanism in released:
            del self.held[mechanism]
        if released:
            self.on_release()     # a build that waited for them goes on

    def holds(self, holder: str, motor: str) -> bool:
        """Whether `holder` holds the mechanism motor signal `motor` belongs to."""
        held = self.held.get(mechanism_of(motor))
        return held is not None and held[0] == holder

    def refuses(self, mechanisms: list[str]) -> str | None:
        """Why the table's own work may not use `mechanisms` now (someone holds one)."""
        for mechanism in mechanisms:
            if mechanism in self.held:
                holder, why = self.held[mechanism]
                return HELD_BY.format(mechanism=mechanism, holder=holder, use=why)
        return None
