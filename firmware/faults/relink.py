"""A lost board link that comes back by itself.

The I/O board backend says HELLO again and again while its link is lost; when the
board answers (the cable put back, the board powered again) the link is up with fresh
sequence numbers and every output off. The fault it raised is then over without a
technician: E80 clears itself, and the table re-homes through the one resume path,
unless another error still holds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.faults.kinds import CATALOGUE, ERROR, RELINK
from firmware.faults.kinds.link import LINK_LOST
from firmware.faults.kinds.table import BUILD_INTERRUPTED

if TYPE_CHECKING:
    from firmware.faults.table import Table


def link_fault(ctl: Table, fault_id: str, evidence: dict[str, Any]) -> None:
    """The backend's link fault, into the fault path. A board of another protocol met
    while the link was lost (another board on the cable, or one flashed with older
    firmware) answers our HELLO: the link is there, its protocol is not. E81 with the
    reflash message then replaces E80, which no cable check would mend."""
    for fault in ctl.faults:
        if fault.active and fault.id in CATALOGUE[fault_id].supersedes:
            fault.active = False
            ctl.emit("fault.cleared", id=fault.id, code=fault.code, where=fault.where,
                     by="link", superseded_by=fault_id)
    ctl.fault(fault_id, "link", None, evidence)


def link_back(ctl: Table) -> None:
    """The board answered a HELLO again: clear link.lost (and link.version, for a
    board reflashed since), then go on."""
    lost = [f for f in ctl.faults if f.active and CATALOGUE[f.id].answer == RELINK]
    for fault in lost:
        fault.active = False
        ctl.emit("fault.cleared", id=fault.id, code=fault.code, where=fault.where, by="link")
    if lost and ctl.build.untrusted and ctl.refeed_hold is None:
        # A set was being built: tiles that passed a counter while the link was down
        # were never reported, so its stacks are not trusted. Held for a refeed, as
        # after a power cut in a build (the resume below builds nothing over them).
        hold = ctl.fault(BUILD_INTERRUPTED, "build", None,
                         {"build_in_progress": True, "after": LINK_LOST})
        hold.active = True
        ctl.refeed_hold = hold
    if ctl.may_resume() and ctl.needs_resume():
        ctl.resume_after_fault()
        return
    # Held by something else (an e-stop, another error): the panel says what, again:
    # the board's HELLO blanked it.
    held = [f for f in ctl.faults if f.active and f.kind.severity == ERROR]
    if ctl.estopped:
        ctl.hal.write("display", "ES")
    elif held:
        ctl.hal.write("display", held[-1].code)
