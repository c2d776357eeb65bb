"""The fault tables of docs/faults.md and docs/mechanics.md, generated from the kinds.

`make docs` (`python -m firmware.faults.tables docs`) rewrites the tables between their
markers; a test fails when a document is stale. A fault kind is written once, in its
family's module (firmware/faults/kinds/), and the documents follow it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from firmware.faults.kinds import (
    BUILD,
    CASE_CLOSED,
    CATALOGUE,
    ERROR,
    RELINK,
    WARNING,
    FaultKind,
)

BEGIN = "<!-- generated from firmware/faults/kinds/ by `make docs`: edit the kinds -->"
END = "<!-- end of the generated table -->"


def motors_off(kind: FaultKind) -> str:
    if kind.severity != ERROR:
        return "none (warning)"
    return "build motors" if kind.scope == BUILD else "every motor"


def how_it_clears(kind: FaultKind) -> str:
    if kind.clears:
        return kind.clears
    if kind.severity == WARNING:
        return "warning: play goes on; inactive once cleared"
    if kind.answer == CASE_CLOSED:
        return ("technician clears once the case reads closed; the interrupted motion "
                "is issued again")
    if kind.answer == RELINK:
        return "clears by itself when the board answers again"
    if kind.untrusts_count:
        return "technician clears; the set is built again from the start"
    return "technician clears; the interrupted motion is issued again"


def _causes_and_remedy(kind: FaultKind) -> str:
    def side(text: str) -> str:
        return text.replace("{side}", "N")
    return f"{', '.join(map(side, kind.causes))} → {'; '.join(map(side, kind.remedy))}"


def clearing_table() -> str:
    """docs/faults.md: what stops and how each fault clears."""
    rows = ["| id | code | what | motors off | how it clears |", "|---|---|---|---|---|"]
    rows += [f"| `{k.id}` | {k.code} | {k.summary} | {motors_off(k)} | {how_it_clears(k)} |"
             for k in CATALOGUE.values()]
    return "\n".join(rows)


def catalogue_table() -> str:
    """docs/mechanics.md: what the firmware sees, the likely causes and the remedy."""
    rows = ["| id | code | what the firmware sees | likely causes → remedy |",
            "|---|---|---|---|"]
    rows += [f"| `{k.id}` | {k.code} | {k.sees} | {_causes_and_remedy(k)} |"
             for k in CATALOGUE.values()]
    return "\n".join(rows)


TABLES = {"faults.md": clearing_table, "mechanics.md": catalogue_table}


def rewritten(text: str, table: str, name: str) -> str:
    """`text` with the part between the markers replaced by `table`."""
    try:
        head, rest = text.split(BEGIN, 1)
        _old, tail = rest.split(END, 1)
    except ValueError:
        raise SystemExit(f"{name}: the generated table's markers are missing") from None
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def main(argv: list[str]) -> int:
    docs = Path(argv[0]) if argv else Path("docs")
    for name, table in TABLES.items():
        path = docs / name
        text = path.read_text(encoding="utf-8")
        new = rewritten(text, table(), name)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
