"""What people do about a stop: halt, e-stop and its release, clearing a fault, and
going on afterwards.

A clear is refused while a sensor still shows the cause; going on re-reads every
sensor and resumes through the machines' declared transitions (recovery.py), or
builds a set that cannot be trusted again from the start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware import words
from firmware.faults import recovery
from firmware.faults.kinds import CASE_CLOSED, ERROR, RELINK, Fault
from firmware.faults.kinds.kind import FACE_UP_BELIEVED, SENSOR_BELIEVED, TAMPER_RESET
from firmware.faults.shutdown import BUILD, TABLE
from firmware.i18n import _
from firmware.service.identify import SHOWN as IDENTIFY_SHOWN

if TYPE_CHECKING:
    from firmware.faults.table import Table


class ClearRefused(ValueError):
    """A fault may not be cleared yet; `str()` says what to do first."""


class Clearing:
    def __init__(self, ctl: Table) -> None:
        self.ctl = ctl

    def halt(self, reason: str, held_by: str | None = None) -> None:
        """Stop all work through the shutdown path: every machine parked in its fault
        state. `held_by` (words.TEST_MODE, words.ESTOP) names the stop in the events,
        never a fault."""
        ctl = self.ctl
        ctl.halted_by = held_by
        try:
            ctl.fault_path.shut_down(TABLE, None)
        finally:
            ctl.halted_by = None
        ctl.emit("halted", reason=reason, **({"held_by": held_by} if held_by else {}))

    def estop(self, by: str | None = None) -> None:
        """Emergency stop: everything off until a technician releases it."""
        ctl = self.ctl
        self.halt("estop", words.ESTOP)
        ctl.estopped = True
        ctl.hal.write("display", "ES")
        ctl.emit("estop", by=by)

    def release_estop(self, by: str) -> None:
        ctl = self.ctl
        ctl.estopped = False
        ctl.hal.write("display", "")
        ctl.emit("estop.released", by=by)

    def clear_fault(self, fault: Fault, by: str, refed: bool = False) -> None:
        """A technician says the cause of `fault` is dealt with.

        Refused (ClearRefused) while a sensor still shows the cause (the case still
        open outside service mode; the board's link still lost), and for the refeed
        hold unless the operator says the set was refed (`refed`): nothing senses
        stacks left on the tracks, and a build over them mixes two sets."""
        ctl = self.ctl
        answer = fault.kind.answer
        if answer == CASE_CLOSED and ctl.hal.read("case_open") and not ctl.service_mode:
            raise ClearRefused(_("case_open still reads open: close the case first, or "
                                 "enter test mode to service it"))
        if answer == RELINK and ctl.hal.capabilities.link and ctl.hal.link_lost:
            # Cleared while lost, the table would sit silent: the link clears it by
            # itself once the board answers a HELLO again (firmware/faults/relink.py).
            raise ClearRefused(_("the I/O board's link is still lost: check the cable; "
                                 "the table connects again by itself"))
        if fault is ctl.refeed_hold and not refed:
            raise ClearRefused(_("the set half built at the stop must be refed first: "
                                 "empty belts, heads and tracks onto the disc, then clear "
                                 "it as refed (console: clear ID --refed)"))
        fault.active = False
        self._show_after_clear(fault)
        believed = fault.kind.on_clear      # what the technician's clear vouches for
        if believed == FACE_UP_BELIEVED:
            ctl.face_up.suspected.discard(fault.side)      # the sensor seen to again
        elif believed == SENSOR_BELIEVED:
            # Replaced or repaired: the sensor is believed again.
            ctl.supervisor.restore_sensor(fault.where)
        ctl.fault_path.repeat_rows.close((fault.id, fault.where, fault.side))
        ctl.emit("fault.cleared", id=fault.id, code=fault.code, where=fault.where, by=by)
        if fault is ctl.refeed_hold:
            # The operator has refed the set that was half built at the power cut.
            ctl.refeed_hold = None
            if ctl.hal.read("display") == "rF":
                # Refed: stop asking for it; an error still held shows its code.
                held = self._active_errors()
                ctl.hal.write("display", held[-1].code if held
                              else ctl.cycle.faces_display())
            if not ctl.cycle.holds_builds and ctl.build.idle:
                ctl.request_refeed("refed after an unclean stop")
        if believed == TAMPER_RESET:
            ctl.tampered = False

    def top_up_done(self) -> None:
        """Players topped up after tiles went missing: the build goes on."""
        ctl = self.ctl
        for fault in ctl.faults:
            if fault.active and fault.kind.topped_up and (
                    fault is not ctl.refeed_hold):
                self.clear_fault(fault, by="players (top-up)")
        if self.may_resume():
            self.resume_after_fault()

    def _active_errors(self) -> list[Fault]:
        return [f for f in self.ctl.faults if f.active and f.kind.severity == ERROR]

    def _show_after_clear(self, fault: Fault) -> None:
        """The display never shows a cleared fault: the most severe active error (the
        newest of them), else what the table shows without one."""
        ctl = self.ctl
        # Over identify's "Id" too: its blink would put the cleared code back.
        if ctl.hal.read("display") not in (fault.code, IDENTIFY_SHOWN) or any(
                f.active and f.code == fault.code for f in ctl.faults):
            return
        held = self._active_errors()
        ctl.hal.write("display", held[-1].code if held else
                      "rF" if ctl.refeed_hold is not None else
                      ctl.cycle.faces_display() or "")

    def may_resume(self) -> bool:
        """No e-stop and no active error fault: the table may start again."""
        return not self.ctl.estopped and not self._active_errors()

    def needs_resume(self) -> bool:
        """Some machine was stopped by a fault or a halt and waits to go on."""
        return bool(self.ctl.shutdown.scopes) or any(
            m.faulted for m in self.ctl.machines())

    def resume_after_fault(self) -> None:
        """Go on after a halt: every mechanism re-reads its sensors and the interrupted
        motion is issued again through the machines' declared resume transitions
        (firmware/faults/recovery.py). A set whose counts cannot be trusted is built
        again from the start, never resumed (docs/mechanics.md, step 10)."""
        self.ctl.emit("resume_after_fault")
        held = self._build_held()
        if held is not None:
            recovery.resume_table(self.ctl, held)
            return
        recovery.resume(self.ctl)

    def _build_held(self) -> list[str] | None:
        """With only build faults active and the table latched too: the build machines
        they hold (the rest of the table may go on), else None."""
        active = self._active_errors()
        if TABLE not in self.ctl.shutdown.scopes or not active or self.ctl.estopped or any(
                f.kind.scope != BUILD for f in active):
            return None
        return [name for f in active for name in f.parked]

    def may_resume_table(self) -> bool:
        """Only build faults hold: the cycle, lid, plates and dice may go on."""
        return self._build_held() is not None
