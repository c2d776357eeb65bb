"""The venue desk's fault words (venue/desk/faults/faultwords.json), generated from the kinds.

The desk shows a table's fault in the reader's language, which may not be the one the
table sent it in; it takes the words by the fault's id from this file (their English,
the msgids of the one catalogue) and never imports the firmware. `make docs`
(`python -m firmware.faults.deskwords`) rewrites it; a test fails when it is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from firmware.faults.kinds import CATALOGUE

PATH = Path(__file__).resolve().parents[2] / "venue" / "desk" / "faults" / "faultwords.json"


def words() -> dict[str, dict[str, Any]]:
    """Every fault id: its code, severity, family, and summary, causes and remedy in
    English."""
    return {k.id: {"code": k.code, "severity": k.severity, "family": k.family,
                   "summary": k.summary,
                   "causes": list(k.causes), "remedy": list(k.remedy)}
            for k in CATALOGUE.values()}


def text() -> str:
    return json.dumps(words(), ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else PATH
    new = text()
    if not path.is_file() or path.read_text(encoding="utf-8") != new:
        path.write_text(new, encoding="utf-8")
        print(f"rewrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
