"""The refeed the players do themselves, guided by the panel (no technician).

Where nothing can prove the count of a half-built set (the power was lost, the board
restarted, its record overflowed), the table holds it for a refeed (I94, display rF).
When nothing else holds the table, the players answer it: they push the half-built
set back onto the disc, then hold both lift keys together for CONFIRM_HOLD_S to say
it was refed. The steps show on the panel:

1. display rF, ready lamp off: refeed the set, then hold both lift keys;
2. both keys held: the ready lamp lights while the table waits out the hold;
3. confirmed: the display clears, the building lamp lights and the set is built again
   from zero (never resumed), fed only once the lid is at its lower stop.

A single key, or both pressed briefly, never clears the hold: one press of a lift key
is the everyday key that opens the hole, and a brush of both is a top-up chord.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.faults.kinds import ERROR
from firmware.faults.kinds.build import EXTRA_TILES
from firmware.i18n import N_
from mjtable_core.clock import Timer

if TYPE_CHECKING:
    from firmware.faults.table import Table

CONFIRM_HOLD_S = 2.0    # both lift keys held this long: the players say it was refed
BY = "players (refeed)"
EXTRA = EXTRA_TILES


class GuidedRefeed:
    def __init__(self, ctl: Table) -> None:
        self.ctl = ctl
        self._timer: Timer | None = None

    def refused(self) -> str | None:
        """Why the players' keys cannot answer the hold now; None when they can."""
        ctl = self.ctl
        if ctl.refeed_hold is None:
            return N_("no refeed is asked for")
        if ctl.estopped or any(f.active and f.kind.severity == ERROR for f in ctl.faults):
            return N_("a fault holds the table: it needs a technician first")
        if EXTRA in ctl.refeed_hold.evidence.get("took_the_place_of", ()):
            # Foreign tiles (or the other set's) are in the machine: a refeed by the
            # players would build them in again. A technician takes them out first.
            return N_("extra tiles are in the machine: a technician takes them out first")
        if ctl.service_mode:
            return N_("the table is in test mode")
        # The lid down, nothing of the cycle moving (a hand in play, or walls up
        # waiting for the dice), and no build under way.
        if not ctl.cycle.waiting or not ctl.build.idle:
            return N_("the table is not waiting for a refeed")
        if not ctl.lid.down():
            return N_("the lid is not at its lower stop")
        return None

    def both_keys(self) -> bool:
        """Both lift keys went down together: start waiting out the hold. True when the
        keys belong to the refeed (the caller does nothing else with them)."""
        if self.ctl.refeed_hold is None:
            return False
        why = self.refused()
        if why is not None:
            self.ctl.emit("key.ignored", key="lift", state=self.ctl.cycle.state, why=why)
            return True
        self.cancel()
        self.ctl.hal.write("lamp.ready", True)          # step 2: keep holding
        self.ctl.emit("refeed.confirming", hold_s=CONFIRM_HOLD_S)
        self._timer = self.ctl.clock.call_later(CONFIRM_HOLD_S, self._held_long_enough)
        return True

    def key_released(self) -> None:
        """A lift key let go before the hold was out: nothing is confirmed."""
        if self._timer is None:
            return
        self.cancel()
        self.ctl.emit("refeed.not_confirmed", why=N_("a lift key was let go too soon"))

    def cancel(self) -> None:
        """Stop waiting (a key let go, a stop): step 1 again."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self.ctl.hal.write("lamp.ready", False)

    def _held_long_enough(self) -> None:
        self._timer = None
        ctl = self.ctl
        ctl.hal.write("lamp.ready", False)
        hold = ctl.refeed_hold
        held = all(ctl.hal.read(f"key.lift.{n}") for n in (0, 1))
        if hold is None or not held or self.refused() is not None:
            ctl.emit("refeed.not_confirmed",
                     why=self.refused() or N_("a lift key was let go too soon"))
            return
        ctl.emit("refeed.confirmed", by=BY, hold_s=CONFIRM_HOLD_S)
        # The clear builds the set again from zero (Clearing.clear_fault).
        ctl.clear_fault(hold, by=BY, refed=True)
