"""Going on after a technician clears the last error fault.

Each machine returns to the state it was in when the fault stopped it, reads its
sensors and re-issues the motion that was interrupted: a lid that was closing closes
again, plates that had not come home turn again, a jammed head finishes its turn, the
build feeds again, an interrupted dice throw is thrown again. A set whose counting
cannot be trusted any more is never resumed: it is marked for refeeding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware.controller import Controller

# Faults after which the counts of the set being built cannot be trusted.
UNTRUSTED_COUNT = {"count.double", "count.blind", "build.extra_tiles"}


def machines(ctl: Controller) -> dict[str, Any]:
    named: dict[str, Any] = {"cycle": ctl.cycle, "build": ctl.build, "lid": ctl.lid,
                             "dice": ctl.dice}
    named.update({f"side.{s.side}": s for s in ctl.sides})
    named.update({f"plate.{p.side}": p for p in ctl.plates})
    return named


def remember(ctl: Controller) -> None:
    """Before a fault parks the machines: note where each one was (first fault wins)."""
    for name, machine in machines(ctl).items():
        if machine.state != "fault":
            ctl.before_fault.setdefault(name, machine.state)


def resume(ctl: Controller) -> None:
    """Continue the interrupted work; the caller has checked nothing holds the table."""
    before = dict(ctl.before_fault)
    ctl.before_fault.clear()
    ctl.hal.write("display", "")
    ctl.emit("resume", states=before)
    cycle_was = before.get("cycle", ctl.cycle.state)
    ctl.lid.settle()
    for plate in ctl.plates:
        plate.machine.set_state(before.get(f"plate.{plate.side}", plate.state)
                                if plate.state == "fault" else plate.state, model=plate)
    if ctl.dice.state == "fault":
        ctl.dice.machine.set_state("idle", model=ctl.dice)
    _resume_build(ctl, before)
    _resume_cycle(ctl, cycle_was)


def _resume_build(ctl: Controller, before: dict[str, str]) -> None:
    build_was = before.get("build", ctl.build.state)
    if ctl.build.state != "fault":
        return
    building = ("building", "paused_full", "paused_top_up", "sweeping")
    if build_was in building and ctl.build.untrusted:
        # Counting went wrong: never finish this set as if it were right.
        ctl.build.machine.set_state("idle", model=ctl.build)
        for side in ctl.sides:
            side.machine.set_state("idle", model=side)
        ctl.request_refeed("the count of the set being built cannot be trusted")
        return
    for side in ctl.sides:
        was = before.get(f"side.{side.side}", side.state)
        side.machine.set_state(was if side.state == "fault" else side.state, model=side)
    ctl.build.machine.set_state("paused_top_up" if build_was == "paused_top_up"
                                else build_was, model=ctl.build)
    if build_was in ("building", "paused_full"):
        ctl.build.resume_after_fault()
    elif build_was == "sweeping":
        ctl.build.swept()


def _resume_cycle(ctl: Controller, was: str) -> None:
    cycle = ctl.cycle
    if cycle.state != "fault":
        return
    target = "dealing" if was == "rolling" else was
    cycle.machine.set_state(target, model=cycle)
    ctl.emit("phase", state=target, cycle=cycle.number)
    if target == "homing":
        ctl.start()
    elif target in ("opening", "top_up_opening"):
        if ctl.lid.state == "open":
            cycle.lid_opened()
        else:
            ctl.lid.open()
    elif target in ("closing", "top_up_closing"):
        if ctl.lid.state == "closed":
            cycle.lid_closed()
        else:
            ctl.lid.close()
    elif target == "raising":
        cycle.finish_raising()
    elif target == "dealing" and was == "rolling":
        ctl.emit("dice.again", thrower=cycle.pending_thrower())
