"""A fault's words in the reader's language, from the tables' own fault catalogue.

A table sends its summary, causes and remedy in the venue's language; a page read in
the other language takes them from the catalogue by the fault's id (the id and code
never change with the language). A fault the catalogue does not know (a newer table)
keeps the words the table sent. The catalogue's words come as data
(faultwords.json, generated from the firmware's fault kinds by `make docs`): their
English is the msgid of their translation, so the desk needs no firmware to say them.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from firmware.i18n import _
from venue.desk.faults.incidents import CONDITION_SUMMARIES

WORDS = Path(__file__).resolve().parent / "faultwords.json"

SIDE = re.compile(r"side\.(\d+)")


def side_of(where: Any) -> str | None:
    found = SIDE.match(where) if isinstance(where, str) else None
    return found.group(1) if found else None


@cache
def catalogue() -> dict[str, dict[str, Any]]:
    """Every fault id: its code, severity, family, summary, causes and remedy (English)."""
    loaded: dict[str, dict[str, Any]] = json.loads(WORDS.read_text(encoding="utf-8"))
    return loaded


def kind_texts(kind: dict[str, Any], side: str | None = None) -> dict[str, Any]:
    """A kind's summary, causes and remedy in the current language, for `side`."""
    where = "" if side is None else side
    return {"summary": _(kind["summary"]), "causes": [_(cause) for cause in kind["causes"]],
            # "side N" is the older spelling of the placeholder, as the kinds keep it.
            "remedy": [_(step).replace("{side}", where).replace("side N", f"side {where}")
                       for step in kind["remedy"]]}


def texts(fault_id: Any, where: Any) -> dict[str, Any] | None:
    """{"summary", "causes", "remedy"} in the current language, or None if unknown."""
    kind = catalogue().get(fault_id) if isinstance(fault_id, str) else None
    return kind_texts(kind, side_of(where)) if kind is not None else None


def summaries() -> dict[str, str]:
    """Every fault id's summary in the current language (the dashboard's tiles)."""
    return {fault_id: _(kind["summary"]) for fault_id, kind in catalogue().items()}


def of_incident(incident: dict[str, Any]) -> dict[str, Any]:
    """An incident's fault words: by its key `id@where`, else what the table sent."""
    fault_id, _sep, where = str(incident.get("fault_id") or "").partition("@")
    found = texts(fault_id, where)
    if found is None and where == "table" and fault_id in CONDITION_SUMMARIES:
        found = {"summary": _(CONDITION_SUMMARIES[fault_id]), "causes": [], "remedy": []}
    if found is not None:
        return found
    return {"summary": incident.get("summary") or "", "causes": [], "remedy": []}
