"""A plate found off home: when it may be turned round, and when it is a fault.

One turn of a plate lifts whatever stands on its track. A plate at rest that settles
off home (the cam coasted past home, it was moved by hand, or its sensor reads off
home) is never believed home: homing brings it round, a turn that lifts nothing comes
now with the lid down, or at the next raise with the lid up; where its track may hold
stacks it is plate.stuck, a technician's job, never a turn that lifts them onto the
table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from firmware.i18n import N_
from firmware.machines.build import BuildState
from firmware.machines.cycle import CycleState
from firmware.machines.lid import LidState
from firmware.machines.plate import PlateState

if TYPE_CHECKING:
    from firmware.machines.cycle import Cycle
    from firmware.machines.lid import Lid
    from firmware.machines.owner import Owner
    from firmware.machines.plate import Plate
    from firmware.machines.ports import Ports

# Each machine's state as the journal keeps it (a parked machine: where it was),
# from faults/recovery.py: where recovery would put it back.
Journaled = Callable[[], dict[str, str]]


class OffHome:
    def __init__(self, ports: Ports, cycle: Cycle, lid: Lid, plates: Sequence[Plate],
                 owner: Owner, journaled: Journaled) -> None:
        self.hal = ports.outputs
        self.clock = ports.clock
        self.fault = ports.fault
        self.marks = ports.marks
        self.cycle, self.lid, self.plates, self.owner = cycle, lid, plates, owner
        self.journaled = journaled
        cycle.rehome_plates = self.rehome_plates
        for plate in plates:
            plate.found_off_home = self.plate_off_home

    def rehome_plates(self) -> None:
        """Turn round every plate found off home; only with the lid at its lower stop,
        and only where a turn lifts nothing (`turn_refused`): else plate.stuck."""
        if self.lid.state != LidState.CLOSED:
            return
        for plate in self.plates:
            if plate.settled_off_home() and not plate.moving:
                if self.turn_refused() is None:
                    plate.rehome()
                else:
                    # Outside the machine callback that asked (homing): see save_journal.
                    self.clock.post(lambda p=plate: self._off_home_fault(p))

    def turn_refused(self) -> str | None:
        """Why a plate found off home may not be turned round now, or None.

        During a raise (or one still to finish after a restart) a turn lifts the staged
        wall it was lifting. Otherwise a plate should be at home: its track may hold
        stacks of the set staged or being built (or left by a build a refeed must
        empty), and the hand in play stands on the table, so a turn would lift those
        stacks onto it. A plate that moved by hand, or a home sensor that reads off
        home at rest, is a technician's job."""
        states = self.journaled()        # parked machines: where they were
        if self.cycle.raise_in_progress(states["cycle"]):
            return None
        if states["build"] == BuildState.IDLE and self.marks.refeed_hold is None:
            return None         # nothing stacked since the last raise
        return N_("its track may hold stacks: a turn would lift them onto the table")

    def _off_home_fault(self, plate: Plate) -> None:
        if self.cycle.state != CycleState.HOMING or not plate.settled_off_home():
            return
        why = self.turn_refused()
        if why is None:
            return
        self._found_off_home(plate, why)

    def _found_off_home(self, plate: Plate, why: str) -> None:
        # Whether anything drove it: a plate off home with its motor off and no turn
        # commanded was not taken there by its motor.
        self.fault("plate.stuck", f"side.{plate.side}.plate", plate.side,
                       {"sensor": plate.sensor, "found_off_home": True, "raising": False,
                        "motor_on": bool(self.hal.read(f"motor.side.{plate.side}.plate")),
                        "commanded": plate.moving,
                        "cycle_state": self.cycle.state, "why": why})

    def plate_off_home(self, plate: Plate) -> None:
        """A plate at rest (its machine home) settled off home: see the module's doc."""
        if self.owner.refuses([plate.key]) is not None:
            return          # a technician's jog or test moves it
        if self.cycle.state == CycleState.HOMING:
            self.cycle.check_homed()
            return
        why = self.turn_refused()
        if why is not None:
            self._found_off_home(plate, why)
        elif self.lid.state == LidState.CLOSED:
            plate.rehome()
        else:
            plate.stale = True

    def check_plates_at_rest(self) -> None:
        """After a resume: a plate put back home while it still reads off home is
        judged as if just found so (a clear without a fix is refused again)."""
        for plate in self.plates:
            if plate.state == PlateState.HOME and plate.settled_off_home():
                self.plate_off_home(plate)
