"""The event log as the anchor of the deal history (`mjtable verify-deals --log`).

Reads the commitments the firmware logged when each hand's walls rose, and each
handoff's, after checking the log's own hash chain (and, when given, that it reaches
a chain head noted elsewhere: a log recomputed from the middle no longer does).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from firmware.i18n import _
from firmware.state.eventlog import LogReader
from rules.anchor import AnchorError, LogAnchors

_HEAD = re.compile(r"(\d{1,18}):([0-9a-f]{64})")


def read_anchors(path: str, head: str | None = None) -> LogAnchors:
    """The log's deal anchors; AnchorError when it cannot be read or is not intact."""
    if head is not None and not _HEAD.fullmatch(head):
        raise AnchorError(_("--head: {head} is not ID:SHA256 (as `console export-log` "
                            "prints it)").format(head=repr(head)))
    if not Path(path).is_file():
        raise AnchorError(_("{path}: no event log there").format(path=path))
    try:
        reader = LogReader(path)
        intact, found = reader.verify_chain()
        if not intact:
            raise AnchorError(_("the event log {path} is not intact: {found}").format(
                path=path, found=found), broken=True)
        described = found
        if head is not None:
            id_, chain = head.split(":")
            if reader.chain_at(int(id_)) != chain:
                raise AnchorError(_("the event log {path} does not reach the chain head "
                                    "{head} you noted: its history was rewritten, or rows "
                                    "after it removed").format(path=path, head=head),
                                  broken=True)
            described += "; " + _("reaches the head {head}").format(head=head)
        anchors = LogAnchors(described=described)
        for row in reader.each("walls.committed"):
            if row["kind"] == "walls.committed" and isinstance(row.get("commitment"), str):
                anchors.committed.setdefault(row["commitment"], row["seq"])
        for row in reader.each("handoff"):
            if row["kind"] == "handoff" and isinstance(row.get("commitment"), str):
                anchors.handoffs.append((row["seq"], row["commitment"]))
    except (sqlite3.Error, ValueError, TypeError, OverflowError) as exc:
        raise AnchorError(_("{path}: not an event log: {error}").format(
            path=path, error=exc)) from None
    return anchors
