"""What a fault kind is: its severity, what its safe state stops, what answers it, its
words for the technician and the docs, and the evidence rule that ranks its causes.

The kinds themselves are written in their family's module (lid.py, head.py...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware.i18n import _

if TYPE_CHECKING:
    from firmware.faults.kinds.evidence import Rule, Verdict

ERROR, WARNING, INFO = "E", "W", "I"
# What a fault's safe state stops (the names firmware/faults/shutdown.py uses).
TABLE, BUILD = "table", "build"
# What answers a fault besides a technician's clear (`FaultKind.answer`).
CLEAR = "clear"          # a technician clears it once the cause is dealt with
REFEED = "refeed"        # the whole set goes in again, counted from zero
CASE_CLOSED = "case_closed"  # refused while the case switch still reads open
RELINK = "relink"        # the board's link clears it by itself; refused while lost
# What a technician's clear makes the table believe again (`FaultKind.on_clear`,
# firmware/faults/clearing.py).
SENSOR_BELIEVED = "sensor_believed"    # the supervised sensor at its `where`: repaired
FACE_UP_BELIEVED = "face_up_believed"  # the face-up sensor of its side: no longer suspected
TAMPER_RESET = "tamper_reset"          # the case: a technician inspected it


@dataclass(frozen=True)
class FaultKind:
    id: str
    code: str
    severity: str
    summary: str
    causes: tuple[str, ...]
    remedy: tuple[str, ...]
    # What a technician calls it at the table (the fault card), shorter than `summary`.
    short: str = ""
    # BUILD: its safe state is the build's motors only (players may finish the hand and
    # top up); TABLE: every output.
    scope: str = TABLE
    # After it the counts of the set being built cannot be trusted: built again.
    untrusts_count: bool = False
    answer: str = CLEAR
    # Players topping up answer it too: while it is active the build still counts as
    # running (firmware/machines/cycle.py), and a top-up clears it (clearing.py).
    topped_up: bool = False
    # Active faults of these kinds are over once it is raised: it names their cause
    # better (firmware/faults/relink.py).
    supersedes: tuple[str, ...] = ()
    # What its clear makes the table believe again (SENSOR_BELIEVED...), or None.
    on_clear: str | None = None
    # The evidence rule that ranks its suspects (firmware/diagnosis/differential.py asks
    # the kind for it), written beside the kind in its family's module; None: the
    # catalogue's causes say it all.
    rule: Rule | None = None
    # Where two causes look alike, the one its evidence decides, with the verdict and
    # remedy a technician reads (firmware/faults/path.py adds it to the diagnosis);
    # written beside the rule. None: the ranked suspects say it all.
    verdict: Verdict | None = None
    # The symptoms (firmware/diagnosis/guided.py) whose diagnosis shows it.
    symptoms: tuple[str, ...] = ()
    # For the docs' fault tables (firmware/faults/tables.py), English: what the firmware
    # sees that raises it, and how it clears where the answer alone does not say it.
    sees: str = ""
    clears: str = ""

    @property
    def family(self) -> str:
        """The mechanism its id names first (`lid`, `link`, `count`...)."""
        return self.id.partition(".")[0]

    def display_code(self, side: int | None) -> str:
        return self.code.replace("N", str(side if side is not None else 0))

    def texts(self, side: int | str | None = None) -> dict[str, Any]:
        """Summary, causes and remedy in the current language, for `side` (the fault
        card passes "N", standing for any side)."""
        where = "" if side is None else str(side)
        return {"summary": _(self.summary),
                "causes": [_(cause) for cause in self.causes],
                "remedy": [side_step(step, where) for step in self.remedy]}


def side_step(step: str, side: str) -> str:
    """A remedy step translated, with its side filled in."""
    # "side N" is the older spelling of the placeholder: keep it working.
    return _(step).replace("{side}", side).replace("side N", f"side {side}")
