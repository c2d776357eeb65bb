"""Going on after a technician clears the last error fault.

Recovery state belongs to what stopped the table: each fault (or halt) keeps, for the
machines it parked and only those, the state each one was in. At resume every machine
still parked goes back through its declared `resume` transition (from `fault` to the
state it was in; docs/state-machines.md shows them), whose entry callback re-reads the
sensors and re-issues the interrupted motion: a lid that was closing closes again,
plates that had not come home turn again, a jammed head finishes its turn, the build
feeds again, an interrupted dice throw is asked for again. The snapshots are then
dropped, so none can be applied to a later stop. A set whose counting cannot be
trusted any more is never resumed: it is marked for refeeding.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from firmware.faults.shutdown import TABLE
from firmware.machines.build import BUILDING, BuildState
from firmware.machines.cycle import CycleState
from firmware.machines.lid import LidState
from firmware.machines.side import SideState

if TYPE_CHECKING:
    from firmware.faults.table import Parked, Table

def machines(ctl: Parked) -> dict[str, Any]:
    named: dict[str, Any] = {"cycle": ctl.cycle, "build": ctl.build, "lid": ctl.lid,
                             "dice": ctl.dice}
    named.update({f"side.{s.side}": s for s in ctl.sides})
    named.update({f"plate.{p.side}": p for p in ctl.plates})
    return named


def park(ctl: Parked, parked: Iterable[Any]) -> dict[str, str]:
    """Before a shutdown parks `parked`: where each one not parked already was."""
    wanted = {id(m) for m in parked}
    return {name: m.state for name, m in machines(ctl).items()
            if id(m) in wanted and not m.faulted}


def plan(ctl: Parked) -> dict[str, str]:
    """Where each machine still parked goes back to: the first snapshot that parked it."""
    named = machines(ctl)
    snapshots = [f.parked for f in ctl.faults if f.parked] + [ctl.halt_parked]
    targets: dict[str, str] = {}
    for snapshot in snapshots:
        for name, state in snapshot.items():
            if named[name].faulted:
                targets.setdefault(name, state)
    return targets


def journaled(ctl: Parked, named: dict[str, Any] | None = None) -> dict[str, str]:
    """Each machine's state as the journal keeps it: where recovery would put it back.

    A machine parked by a fault (or a halt) is journaled as the state it was parked
    from, so a power cut while the fault holds the table restores the staged set, the
    raise or the deal that the fault interrupted. During a resume the plan the resume
    started from still counts for the machines not yet back. `named`: only these
    machines (all by default)."""
    named = machines(ctl) if named is None else named
    states = {name: m.state for name, m in named.items()}
    # Saved several times a hand, with nothing parked but after a fault: no plan.
    faulted = [name for name, m in named.items() if m.faulted]
    if faulted:
        targets = {**ctl.resume_plan, **plan(ctl)}
        states.update((name, targets.get(name, states[name])) for name in faulted)
    return states


def _drop_snapshots(ctl: Table) -> None:
    for fault in ctl.faults:
        fault.parked = {}
    ctl.halt_parked = {}


def resume(ctl: Table) -> None:
    """Continue the interrupted work; the caller has checked nothing holds the table."""
    before = plan(ctl)
    _drop_snapshots(ctl)
    ctl.resume_plan = before
    try:
        _resume(ctl, before)
    finally:
        ctl.resume_plan = {}
    # The journal is written by events during the resume, some while machines are
    # still parked: write it again now every machine is back (a staged set journaled).
    ctl.save_journal()


def _resume(ctl: Table, before: dict[str, str]) -> None:
    ctl.shutdown.release()
    ctl.hal.write("display", "rF" if ctl.refeed_hold is not None else "")
    ctl.emit("resume", states=before)
    if ctl.lid.faulted:
        ctl.lid.reset()
    if ctl.lid.state == LidState.UNKNOWN:
        ctl.lid.settle()
    for plate in ctl.plates:
        if plate.faulted:
            # A home sensor glitching at this instant is not a plate off home: only a
            # settled edge is believed (a plate at home sent round is a wall half up).
            off_home = plate.settled_off_home()
            if not off_home or ctl.lid.state != LidState.CLOSED:
                # Off home with the lid not down: it comes round at the next raise or
                # homing, never now (it would lift a wall into the open hole).
                plate.stale = off_home
                plate.reset()
            elif ctl.plate_turn_refused() is None:
                plate.rehome()      # found off home: come round (a raise finishes here)
            else:
                # Off home outside a raise: a turn would lift its track's stacks onto
                # the table. Said so again once the resume is done (plate.stuck).
                plate.reset()
                ctl.clock.post(ctl.check_plates_at_rest)
    if ctl.dice.faulted:
        ctl.dice.reset()
    _resume_build(ctl, before)
    _resume_cycle(ctl, before)


def _resume_build(ctl: Table, before: dict[str, str]) -> None:
    build = ctl.build
    if not build.faulted:
        return
    was = before.get("build", BuildState.IDLE)
    if (was in BUILDING and build.untrusted) or (
            was not in BUILDING and was != BuildState.STAGED):
        # Counting went wrong (or nothing says where it was): never finish this set as
        # if it were right.
        for side in ctl.sides:
            if side.faulted:
                side.reset()
        build.reset()
        # Held for a refeed (tiles moved uncounted): the refeed's clear builds it.
        if was in BUILDING and ctl.refeed_hold is None:
            ctl.request_refeed("the count of the set being built cannot be trusted")
        return
    for side in ctl.sides:
        if side.faulted:
            side.recover(to=before.get(f"side.{side.side}", SideState.IDLE))
    build.recover(to=was)


def _resume_cycle(ctl: Table, before: dict[str, str]) -> None:
    cycle = ctl.cycle
    if cycle.faulted:
        was = before.get("cycle", CycleState.HOMING)
        # A throw interrupted in the air is thrown again by the same seat.
        cycle.recover(to=CycleState.DEALING if was == CycleState.ROLLING else was, was=was)
    elif cycle.state == CycleState.HOMING:
        # Only the build was stopped (a head jammed while homing): home again.
        ctl.home()
    ctl.start_next_build()      # the next set's build, if a build fault held it


def resume_table(ctl: Table, build_held: Iterable[str]) -> None:
    """A table fault cleared while a build fault (`build_held`: the build machines it
    parked) still holds the build: the cycle, the lid, the plates and the dice go on
    where they were (a top-up interrupted goes on); the build stays parked and
    latched, its snapshot kept for its own resume."""
    held = set(build_held)
    before = {name: state for name, state in plan(ctl).items() if name not in held}
    for fault in ctl.faults:
        if not fault.active:
            fault.parked = {}
    ctl.halt_parked = {}
    ctl.shutdown.scopes.discard(TABLE)
    ctl.emit("resume", states=before, build_held=sorted(held))
    if ctl.lid.faulted:
        ctl.lid.reset()
    if ctl.lid.state == LidState.UNKNOWN:
        ctl.lid.settle()
    for plate in ctl.plates:
        if plate.faulted:
            plate.stale = plate.settled_off_home()
            plate.reset()
    if ctl.dice.faulted:
        ctl.dice.reset()
    _resume_cycle(ctl, before)
    ctl.save_journal()
