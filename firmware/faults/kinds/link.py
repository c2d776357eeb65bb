"""The I/O board's link: no frame within its heartbeat, or another protocol version.

The catalogue's causes say it all: no evidence rule.
"""

from __future__ import annotations

from firmware.faults.kinds.kind import ERROR, RELINK, FaultKind
from firmware.i18n import N_

# The kinds other modules name: the silent board a table starts without.
LINK_LOST = "link.lost"
LINK_VERSION = "link.version"

KINDS = (
    FaultKind(LINK_LOST, "E80", ERROR, N_("no frame from the I/O board within its heartbeat"),
              (N_("cable"), N_("board power")),
              (N_("check the cable and board power"),),
              # A tile that passed a counter while the link was down was never reported.
              short=N_("board link lost"), untrusts_count=True, answer=RELINK,
              sees="no frame from the I/O board within the link timeout",
              clears=("clears by itself when the board answers again (the host says HELLO until it"
                      " does; a clear is refused while the link is still lost); the interrupted "
                      "motion is issued again, a half-built set is held for a refeed (I94)")),
    FaultKind(LINK_VERSION, "E81", ERROR, N_("the I/O board speaks another protocol version"),
              (N_("board firmware out of date"),),
              (N_("reflash the board"),),
              # A board of another protocol answered while the link was lost: the link is
              # there, its protocol is not, which no cable check would mend.
              short=N_("board program mismatch"), answer=RELINK, supersedes=(LINK_LOST,),
              sees="protocol version mismatch at the handshake",
              clears="technician clears; the interrupted motion is issued again"),
)
