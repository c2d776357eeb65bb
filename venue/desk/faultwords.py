"""A fault's words in the reader's language, from the tables' own fault catalogue.

A table sends its summary, causes and remedy in the venue's language; a page read in
the other language takes them from the catalogue by the fault's id (the id and code
never change with the language). A fault the catalogue does not know (a newer table)
keeps the words the table sent.
"""

from __future__ import annotations

import re
from typing import Any

from firmware.faults.kinds import CATALOGUE
from firmware.i18n import _

SIDE = re.compile(r"side\.(\d+)")


def side_of(where: Any) -> str | None:
    found = SIDE.match(where) if isinstance(where, str) else None
    return found.group(1) if found else None


def texts(fault_id: Any, where: Any) -> dict[str, Any] | None:
    """{"summary", "causes", "remedy"} in the current language, or None if unknown."""
    kind = CATALOGUE.get(fault_id) if isinstance(fault_id, str) else None
    return kind.texts(side_of(where)) if kind is not None else None


def summaries() -> dict[str, str]:
    """Every fault id's summary in the current language (the dashboard's tiles)."""
    return {fault_id: _(kind.summary) for fault_id, kind in CATALOGUE.items()}


def of_incident(incident: dict[str, Any]) -> dict[str, Any]:
    """An incident's fault words: by its key `id@where`, else what the table sent."""
    fault_id, _sep, where = str(incident.get("fault_id") or "").partition("@")
    found = texts(fault_id, where)
    if found is not None:
        return found
    return {"summary": incident.get("summary") or "", "causes": [], "remedy": []}
