"""Checking a deal history against commitments kept outside the handoff file.

The handoff file alone proves little against whoever can write it: they can change a
hand's walls and compute every later commitment again from nonces of their choosing
(keeping even the display's 16-bit prefix). The firmware writes each commitment into
the hash-chained event log when the walls rise, before the deal (`walls.committed`),
so the file's records must carry commitments the log saw, in the log's order. Each
commitment binds the one before it (`previous_commitment`), so the last record
anchored anchors every record before it too; records after it must all be anchored,
and every handoff the log saw after the file's first anchored record must be in the
file.

This module works on plain data; reading the log is the firmware's
(firmware/hands/deal_log.py), so the rules engine stays free of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .i18n import _


class AnchorError(Exception):
    """The log cannot anchor anything: `broken` when it fails its own check (exit 1),
    else it could not be read at all (bad input, exit 2)."""

    def __init__(self, message: str, broken: bool = False) -> None:
        super().__init__(message)
        self.broken = broken


@dataclass
class LogAnchors:
    """What an event log says about the deals: each commitment published when walls
    rose (with its row), and each handoff's commitment (with its row), oldest first."""

    committed: dict[str, int] = field(default_factory=dict)
    handoffs: list[tuple[int, str]] = field(default_factory=list)
    described: str = ""     # how the log was checked (its chain, the head given)


def check_anchored(records: list[tuple[int, dict[str, Any]]],
                   anchors: LogAnchors) -> tuple[str | None, int | None, int]:
    """(problem or None, the line it names, records anchored in the log)."""
    rows = [anchors.committed.get(record["commitment"]) for _, record in records]
    anchored = [i for i, row in enumerate(rows) if row is not None]
    if records and not anchored:
        line = records[-1][0]
        return (_("line {line}: no commitment of this file was published in the event log "
                  "when its walls rose (the file was rewritten, or the log is another "
                  "table's)").format(line=line), line, 0)
    if not records:
        return None, None, 0
    first = anchored[0]
    last_row = -1
    for i in range(first, len(records)):
        line, record = records[i]
        row = rows[i]
        if row is None:
            return (_("line {line}: its commitment {commitment} was never published in the "
                      "event log when its walls rose: the record was rewritten after the "
                      "deal").format(line=line, commitment=record["commitment"]),
                    line, len(anchored))
        if row <= last_row:
            return (_("line {line}: its walls rose before those of the record above it "
                      "(event log row {row}): records were reordered").format(
                          line=line, row=row), line, len(anchored))
        last_row = row
    in_file = {record["commitment"] for _, record in records}
    since = rows[first] or 0
    missing = [(row, c) for row, c in anchors.handoffs if row > since and c not in in_file]
    if missing:
        row, commitment = missing[0]
        line = records[-1][0]
        return (_("the event log records {count} handoffs the file does not have, the first "
                  "at row {row} ({commitment}): records were removed").format(
                      count=len(missing), row=row, commitment=commitment), line, len(anchored))
    return None, None, len(anchored)
