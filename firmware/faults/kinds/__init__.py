"""The fault kinds, one module per family, and the Fault record (the docs' fault tables
are generated from them: firmware/faults/tables.py).

Ids are stable: add, never rename. A code with `N` takes the side number.

A fault's behaviour lives on its kind and nowhere else: what its safe state stops
(`scope`), whether the counts of the set being built are trusted after it, what answers
it (a technician, a refeed, a top-up: `topped_up`), the faults it supersedes, what its
clear makes the table believe again (`on_clear`), its short name, causes, remedies, the
evidence rule that ranks its suspects, the verdict of one whose evidence tells two
causes apart (`verdict`) and the symptoms it explains (firmware/diagnosis/guided.py).
The firmware reads these; no module keeps sets of fault ids or branches on one. Code
that raises a kind, or looks for that one kind, names it by the constant its family
module gives its id (`table.STORAGE_FAILED`, `link.LINK_LOST`...). The simulator's
referee judges physics with its own table.

A family module (lid.py, head.py, plate.py, count.py, build.py, tile.py, dice.py, link.py,
timing.py, sensor.py, table.py) holds its kinds (`KINDS`, in catalogue order), the
suspects only it names (parts.py those several name) and its evidence rules, functions of
a read-only view of the evidence (evidence.py). A new fault kind, besides the code that
raises it, is written in three files: its family module, its zh_CN strings
(firmware/locale/zh_CN/LC_MESSAGES/mjtable.po) and its test; `make docs` then regenerates
the fault tables. A new family is a new module
listed in catalogue.py's FAMILIES. The referee judges a stop-fault it does not name as
stopping every motor: a kind that stops only the build is named in its table too
(simulator/harness/stops.py; tests/test_referee_table.py says so).

`FaultKind.family` is the mechanism its id names first, which is its module's name except
for `build.interrupted` (written in table.py, as the table's restart finds it, beside
`power.recovered`).
"""

from firmware.faults.kinds.catalogue import CATALOGUE, FAMILIES
from firmware.faults.kinds.kind import (
    BUILD,
    CASE_CLOSED,
    CLEAR,
    ERROR,
    INFO,
    REFEED,
    RELINK,
    TABLE,
    WARNING,
    FaultKind,
    side_step,
)
from firmware.faults.kinds.record import Fault, ranked

__all__ = ["BUILD", "CASE_CLOSED", "CATALOGUE", "CLEAR", "ERROR", "FAMILIES", "INFO", "REFEED",
           "RELINK", "TABLE", "WARNING", "Fault", "FaultKind", "ranked", "side_step"]
