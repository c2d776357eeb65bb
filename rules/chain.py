"""Checking a deal history: every reveal against its commitment, and the chain.

A history is the handoff records in order (one JSON object per line). Record i+1
reveals the nonce of record i (`revealed`), so record i's walls can be checked against
the commitment published when they rose; and record i+1 names record i's commitment
(`previous_commitment`), which is bound into record i+1's own commitment. So no record
can be rewritten, removed or reordered without breaking a commitment the players saw
before the deal, or the chain at the next record. `revealed` itself is bound in no
commitment, so a record the next one reveals no nonce for is a break too: otherwise
walls changed under an unchanged commitment would pass unchecked.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .commit import commitment
from .errors import RulesError


@dataclass
class Verdict:
    """The outcome: `ok`, how many reveals were checked, and the first break."""

    ok: bool
    records: int
    reveals_checked: int
    problem: str | None = None
    line: int | None = None


def read_records(lines: Iterable[str]) -> list[tuple[int, dict[str, Any] | None]]:
    """(line number, record or None for a line that is not a JSON object)."""
    out: list[tuple[int, dict[str, Any] | None]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        out.append((number, record if isinstance(record, dict) else None))
    return out


def _name(record: dict[str, Any], line: int) -> str:
    table = record.get("table") or {}
    return f"line {line} (hand {table.get('cycle')} set {table.get('set')})"


def verify_file(path: str) -> Verdict:
    """`verify_history` of a JSON-lines file."""
    with open(path, encoding="utf-8") as fh:
        return verify_history(read_records(fh))


def verify_history(records: list[tuple[int, dict[str, Any] | None]]) -> Verdict:
    """Check every reveal and every chain link; stop at the first break."""
    checked = 0
    previous: tuple[int, dict[str, Any]] | None = None
    for line, record in records:
        if record is None:
            return Verdict(False, checked, checked, f"line {line} is not a JSON record", line)
        if not isinstance(record.get("commitment"), str):
            return Verdict(False, checked, checked, f"line {line} has no commitment", line)
        if previous is not None:
            prev_line, prev = previous
            link = record.get("previous_commitment")
            if link != prev["commitment"]:
                return Verdict(False, len(records), checked,
                               f"{_name(record, line)} does not chain to the record before "
                               f"it: previous_commitment {link} but {_name(prev, prev_line)} "
                               f"committed {prev['commitment']} (a record was changed, "
                               "removed or reordered)", line)
            revealed = record.get("revealed")
            prev_cycle = (prev.get("table") or {}).get("cycle")
            if not (isinstance(revealed, dict) and isinstance(revealed.get("nonce"), str)
                    and revealed.get("cycle") == prev_cycle):
                # `revealed` is bound in no commitment: a skipped reveal would let walls
                # changed under an unchanged commitment pass.
                return Verdict(False, len(records), checked,
                               f"{_name(prev, prev_line)}: its walls cannot be checked: "
                               f"the next record ({_name(record, line)}) reveals no nonce "
                               "for that hand (a reveal removed or changed)", prev_line)
            try:
                recomputed = commitment(prev.get("walls"), revealed["nonce"],
                                        prev.get("previous_commitment"))
            except RulesError as exc:
                return Verdict(False, len(records), checked,
                               f"{_name(prev, prev_line)} cannot be checked: {exc}",
                               prev_line)
            if recomputed != prev["commitment"]:
                return Verdict(False, len(records), checked,
                               f"{_name(prev, prev_line)}: its walls with the nonce "
                               f"revealed at line {line} give {recomputed}, not the "
                               f"commitment {prev['commitment']} published before the "
                               "deal", prev_line)
            checked += 1
        previous = (line, record)
    return Verdict(True, len(records), checked)
