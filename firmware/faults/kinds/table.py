"""The table as a whole: a start after an unclean stop (and the set it left half built),
an internal firmware error, its case, and its storage."""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect
from firmware.faults.kinds.kind import CASE_CLOSED, ERROR, INFO, TAMPER_RESET, FaultKind
from firmware.i18n import N_

# The kinds other modules raise or look for by name.
POWER_RECOVERED = "power.recovered"
BUILD_INTERRUPTED = "build.interrupted"
SOFTWARE_ERROR = "software.error"
CASE_CONTACTS = "case.contacts"
STORAGE_FAILED = "storage.failed"

CASE_OPENED: Suspect = ("case", N_("the case was opened"))
CASE_SWITCH: Suspect = ("case_open", N_("the case switch stuck open"))
CASE_NO: Suspect = ("case_open", N_("the case switch's normally-open contact stuck or its "
                                    "wire broken"))
CASE_NC: Suspect = ("case_open_nc", N_("the case switch's normally-closed contact stuck or "
                                       "its wire broken"))


def case_opened(view: EvidenceView) -> Ranked:
    return ([CASE_OPENED, CASE_SWITCH],
            N_("close the case and look at the case switch in the signal view: if it "
               "still reads open, replace the switch"), None)


def contacts(view: EvidenceView) -> Ranked:
    # The contact that reports open while the other says closed is the one a broken
    # wire would show (an open circuit reads open) — or the other is stuck closed.
    first, second = ((CASE_NC, CASE_NO) if view.evidence.get("case_open_nc")
                     else (CASE_NO, CASE_NC))
    return ([first, second],
            N_("open and close the case and watch both contacts in the signal view: the "
               "one that does not follow is the fault"), None)


# How a set half built at a stop is answered: the players' refeed, or the operator's.
_REFEED_CLEARS = ("the players refeed and hold both lift keys 2 s (display `rF`), or an "
                  "operator refeeds and clears with `--refed` (only when a build was in "
                  "progress)")

KINDS = (
    FaultKind(POWER_RECOVERED, "I92", INFO, N_("started after an unclean stop"),
              (N_("power cut or crash"),),
              (N_("refeed the set if a build was in progress"),),
              short=N_("restarted after a power cut"),
              sees="boot after an unclean stop",
              clears=_REFEED_CLEARS),
    FaultKind(BUILD_INTERRUPTED, "I94", INFO,
              N_("a set was half built when the table was stopped"),
              (N_("the table was switched off or restarted during a build"),),
              (N_("refeed that set: its stacks are not trusted"),),
              short=N_("set half built at stop"),
              sees="a set was half built when the table stopped",
              clears=_REFEED_CLEARS),
    FaultKind(SOFTWARE_ERROR, "E99", ERROR,
              N_("an internal firmware error: the table stopped safe"),
              (N_("a firmware bug"),),
              (N_("note the event log entry and report it"), N_("clear the fault to re-home")),
              short=N_("firmware error"),
              sees="a state machine refused a trigger, or a callback failed",
              clears="technician clears; the table re-homes"),
    FaultKind("case.opened", "E93", ERROR, N_("the case was opened outside service mode"),
              (N_("tampering"), N_("service without service mode")),
              (N_("a technician must inspect and clear"),),
              short=N_("case opened"), answer=CASE_CLOSED, on_clear=TAMPER_RESET,
              rule=case_opened,
              sees="`case_open` outside service mode"),
    FaultKind(CASE_CONTACTS, "E98", ERROR,
              N_("two contacts of the case switch disagree"),
              (N_("one contact of the case switch failed (stuck or broken wire)"),),
              (N_("open and close the case and watch both contacts in the signal view; "
                  "replace the switch or its wiring"),),
              short=N_("case contacts disagree"), rule=contacts,
              sees="`case_open` and `case_open_nc` (a two-contact switch) read differently",
              clears="technician clears once both contacts agree"),
    FaultKind(STORAGE_FAILED, "E96", ERROR,
              N_("could not write the journal, handoff file or event log"),
              (N_("storage full"), N_("SD card worn or read-only"),
               N_("out of file descriptors")),
              (N_("free space or replace the SD card"), N_("then clear the fault")),
              short=N_("storage failed"),
              sees="a journal, handoff-file or event-log write failed",
              clears="technician clears once the storage works; saving is tried again"),
)
