"""The table's state in its journal: what is written after each journaled event, and
the one place machines are put straight into a saved state (at boot).

A power cut at any instant loses nothing the journal held: the staged set, a raise or
deal under way, the active faults, the learned timings and the session. Any build not
complete at the stop left tiles in belts and heads: it is never built over, always
refed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.faults import recovery
from firmware.faults.kinds import CATALOGUE, INFO, REFEED, Fault
from firmware.faults.kinds.table import BUILD_INTERRUPTED, POWER_RECOVERED, STORAGE_FAILED
from firmware.machines.build import AT_REST, BuildState
from firmware.machines.cycle import CycleState

if TYPE_CHECKING:
    from firmware.state.table import Journaled

# The cycle's part of the status picture the journal keeps as it is (recovery reads
# them back); the build's and cycle's states are journaled as recovery would restore
# them (recovery.journaled), which a fault's parking can make differ from the picture.
JOURNALED_STATUS = ("cycle", "set_in_play", "set_building")
# A build that was not complete at a stop: its stacks are not trusted after a restart.
NOT_INCOMPLETE = (None, *AT_REST)


class TableState:
    def __init__(self, ctl: Journaled) -> None:
        self.ctl = ctl
        self.read = False
        self._storage_error: str | None = None     # a journal write failed: fault pending

    def journal_state(self, clean: bool) -> dict[str, Any]:
        ctl = self.ctl
        # The recent history, and every fault still active however old, in the order
        # raised (times restart at every boot, so they do not order a history).
        recent = {id(f) for f in ctl.faults[-50:]}
        cycle_status = ctl.cycle.status()
        kept = [f for f in ctl.faults if f.active or id(f) in recent]
        # What a fault parked is journaled as where recovery puts it back: a cut while
        # the fault holds the table must not lose the staged set, raise or deal.
        states = recovery.journaled(ctl, {"build": ctl.build, "cycle": ctl.cycle})
        build, cycle = states["build"], states["cycle"]
        staged = build == BuildState.STAGED
        return {
            "clean": clean,
            "table": ctl.config.table.id,
            **{key: cycle_status[key] for key in JOURNALED_STATUS},
            "build": build,
            "staged_walls": ctl.build.walls if staged else None,
            "staged_set": ctl.build.set_name if staged else None,
            "timings": ctl.supervisor.export(),
            "faults": [{**f.as_dict(), "side": f.side} for f in kept],
            "fault_counts": dict(ctl.fault_counts),
            "face_up": ctl.face_up.export(),
            "wear": ctl.wear.export(),
            "commitment": ctl.handoff.commitment,
            # The last hand's nonce and the next hand's dice seed, in play too: a cut
            # must not lose them, or the next record reveals nothing and the chain
            # breaks (the file is 0600; the API never serves it).
            "handoff": ctl.handoff.secret(),
            "tampered": ctl.tampered,
            "session": ctl.scoring.export(),
            # A hand being dealt survives a power cut: walls up, dice partly thrown.
            "deal": ctl.cycle.deal_state(cycle),
            "raising": ctl.cycle.raise_in_progress(cycle),
            "shown_faces": ctl.cycle.shown_faces if cycle == CycleState.PLAY else None,
            # Still waiting for the operator's refeed: a restart must hold again, or it
            # would build over the half-built set's tiles left in belts and heads.
            "refeed_pending": ctl.refeed_hold is not None,
        }

    def save(self, clean: bool = False) -> None:
        """Write the journal now (also at the end of a resume, recovery.py)."""
        # Never before `recover` has read it: a fault raised earlier (the board's
        # handshake failing) would write a blank machine over the one to recover.
        if self.read and not self._storage_failed():
            try:
                self.ctl.journal.save(self.journal_state(clean))
            except OSError as exc:
                # Never a silent stall inside emit: the fault path stops the table.
                # Saving is tried again once a technician clears the fault. Outputs go
                # safe now; the fault follows at once, outside the machine callback that
                # emitted (a fault inside it would leave that callback half done).
                self.ctl.hal.safe_state()
                self._storage_error = f"{type(exc).__name__}: {exc.strerror or exc}"
                self.ctl.clock.post(self._storage_fault)

    def _storage_failed(self) -> bool:
        return self._storage_error is not None or any(
            f.active and f.id == STORAGE_FAILED for f in self.ctl.faults)

    def _storage_fault(self) -> None:
        error, self._storage_error = self._storage_error, None
        if error is not None:
            self.ctl.fault(STORAGE_FAILED, "journal", None, {"error": error})

    def recover(self) -> None:
        """The one place machines are put straight into a saved state (at boot)."""
        ctl = self.ctl
        saved = ctl.journal.load()
        self.read = True
        if saved:
            ctl.supervisor.restore(saved.get("timings", {}))
            ctl.face_up.restore(saved.get("face_up", {}))
            ctl.wear.restore(saved.get("wear") or {})
            ctl.scoring.restore(saved.get("session"))
            ctl.cycle.number = int(saved.get("cycle", 0))
            ctl.cycle.set_in_play = saved.get("set_in_play")
            ctl.cycle.set_building = saved.get("set_building") or ctl.geometry.first_set
            ctl.tampered = bool(saved.get("tampered", False))
            ctl.fault_counts.update(saved.get("fault_counts", {}))
            # Faults still active at the stop stay active (a jam freed with the power off
            # is still cleared by a technician); the rest come back as history. A note
            # (severity I) is never active of itself.
            ctl.faults[:] = [
                Fault(f["id"], f["where"], f.get("side"), f["cycle"], f["sim_time_s"],
                      f.get("evidence", {}),
                      active=bool(f.get("active")) and CATALOGUE[f["id"]].severity != INFO)
                for f in saved.get("faults", []) if f.get("id") in CATALOGUE]
            if saved.get("staged_walls"):
                ctl.build.restore_staged(saved["staged_set"], saved["staged_walls"])
            if isinstance(saved.get("handoff"), dict):
                ctl.handoff.restore_secret(saved["handoff"])
            if saved.get("deal"):
                ctl.cycle.restore_deal(saved["deal"])
            elif saved.get("shown_faces"):
                ctl.cycle.shown_faces = [int(f) for f in saved["shown_faces"]]
            if saved.get("raising") and ctl.build.staged:
                ctl.cycle.restore_raise()
            self._hold_half_built(saved)
        self.save(clean=False)

    def _hold_half_built(self, saved: dict[str, Any]) -> None:
        """Any build not complete — building, paused, sweeping, stopped by a fault —
        left tiles in belts and heads: never built over, always refed."""
        ctl = self.ctl
        building = saved.get("build") not in NOT_INCOMPLETE or bool(
            saved.get("refeed_pending"))
        evidence = {"build_in_progress": building, "set": saved.get("set_building"),
                    "cycle": saved.get("cycle"), "build_state": saved.get("build")}
        if not saved.get("clean", False):
            fault = ctl.fault(POWER_RECOVERED, "power", None, evidence)
        elif building:
            fault = ctl.fault(BUILD_INTERRUPTED, "build", None, evidence)
        if building:
            # The half-built set is declared invalid: hold until it is refed. The
            # refeed also answers a count that came out short or long (the whole set
            # goes in again), so those are history: the display asks for the refeed,
            # not for a top-up the table would refuse.
            fault.active = True
            ctl.refeed_hold = fault
            for old in ctl.faults:
                if old.active and old.kind.answer == REFEED:
                    old.active = False
                    # Kept: foreign tiles are not the players' to refeed away.
                    fault.evidence.setdefault("took_the_place_of", []).append(old.id)
