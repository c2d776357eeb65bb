"""The dice unit: tumble for a random 3–5 s, never shorter than the minimum spin.

Faces come from the hand's committed dice seed (firmware/hands/handoff.py), drawn from the
HAL's random source: the OS CSPRNG on a table, a seed only in the simulator
(docs/mechanics.md, Cheating and tampering). The spin time is drawn here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from transitions import EventData

from firmware.i18n import N_
from firmware.machines.machine import Parkable, attach
from firmware.machines.protocols import noop
from mjtable_core.clock import Timer

if TYPE_CHECKING:
    from firmware.machines.ports import Ports



class DiceState(StrEnum):
    IDLE = "idle"
    SPINNING = "spinning"
    FAULT = "fault"


STATES = [state.value for state in DiceState]
INITIAL = DiceState.IDLE.value
TRANSITIONS = [
    {"trigger": "roll", "source": "idle", "dest": "spinning"},
    {"trigger": "stop", "source": "spinning", "dest": "idle", "after": "_rolled"},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "reset", "source": "fault", "dest": "idle"},
]
SPIN_SEEN_WITHIN_S = 1.0


class Dice(Parkable):
    FAULT = DiceState.FAULT

    def __init__(self, ports: Ports) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.timing = ports.timing
        self.fault = ports.fault
        self.watch = ports.watch
        # Hooks the cycle sets: the faces of this throw (from the hand's committed
        # seed), and the throw landed.
        self.faces_of: Callable[[int], list[int]] = lambda count: []
        self.landed: Callable[..., None] = noop
        self.rng, self.source = self.hal.entropy()
        self.count = 2
        self.faces: list[int] = []
        self._spin_seen: float | None = None
        self._timer: Timer | None = None
        self.machine = attach(self, STATES, TRANSITIONS, INITIAL, ports.on_error)

    def status(self) -> dict[str, Any]:
        """The dice as the status picture shows them: state and the last faces."""
        return {"state": self.state, "faces": list(self.faces)}

    @property
    def spinning(self) -> bool:
        return self.state == DiceState.SPINNING

    def on_enter_spinning(self, event: EventData) -> None:
        timing = self.timing
        self.count = count = event.kwargs["count"]
        self._spin_seen = None
        self.hal.write("motor.dice", True)
        self.hal.write("display", "-" * count)
        self.watch.expect("dice", SPIN_SEEN_WITHIN_S, "dice.stuck", "motor.dice",
                              {"sensor": "dice.spin", "limit_s": SPIN_SEEN_WITHIN_S})
        spin = self.rng.uniform(timing.dice_min_spin_s, timing.dice_max_spin_s)
        self._timer = self.clock.call_later(spin, self.stop)

    def on_exit_spinning(self, *_: object) -> None:
        self.hal.write("motor.dice", False)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _rolled(self, *_: object) -> None:
        # From the seed committed before the walls were built, never drawn now.
        self.faces = self.faces_of(self.count)
        self.hal.write("display", faces_text(self.faces))
        self.landed(faces=list(self.faces))

    def on_sensor(self, spinning: bool) -> None:
        if spinning:
            self.watch.done("dice")
            self._spin_seen = self.clock.now()
        elif (self.state == DiceState.SPINNING and self._spin_seen is not None
              and self.hal.read("motor.dice")):
            # The dice stopped tumbling while the motor still runs: held or jammed.
            # (Its motor off, as the I/O board holds it while the host is silent,
            # they stop by themselves; driven again, they tumble again.)
            spun = self.clock.now() - self._spin_seen
            self.fault("dice.stuck", "motor.dice", None,
                           {"sensor": "dice.spin", "spun_s": round(spun, 3),
                            "min_spin_s": self.timing.dice_min_spin_s,
                            "why": N_("tumbling stopped while the dice motor ran")})


def faces_text(faces: Sequence[int]) -> str:
    """Dice faces as the display shows them ("3-5")."""
    return "-".join(map(str, faces))
