"""Incidents: a table's fault, from the moment the venue hears of it to its end.

A fault (from `event/fault`, or a new entry in a table's retained `faults` list)
opens an incident. It is paged only once it has lasted `debounce_s`: a fault the
table clears sooner (gone from `faults`) pages nobody. The same fault back within
FLAP_S of clearing reopens its incident: a flapping fault is paged once, not never
and not at every flap. A paged incident nobody has
acknowledged after `escalate_after_min` is paged again, to the escalation list. Only
what the table holds active opens one: an information-level event never pages.

This module decides; it never sends and never reads a clock: `due(now)` says what
to page, and the notifier sends it (venue/desk/faults/notify.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware.i18n import N_
from venue.desk.office import Office
from venue.desk.sections import NotifySection

OPENED, ESCALATED = "opened", "escalated"
FLAP_S = 60.0       # a fault back within this long of clearing continues its incident
# Conditions of a whole table that are no fault in its `faults` list, kept as incidents
# under these keys: an e-stop pressed, the table gone offline.
ESTOP = {"id": "estop", "where": "table", "code": "E-STOP"}
OFFLINE = {"id": "offline", "where": "table", "code": "OFFLINE"}
CONDITIONS = ("estop@table", "offline@table")
# What the venue itself raises, by fault id: its words are the venue's, not a table's
# catalogue, and a page shows them in its own language (venue/desk/faults/faultwords.py).
CONDITION_SUMMARIES = {
    ESTOP["id"]: N_("the e-stop was pressed"),
    OFFLINE["id"]: N_("the table is offline (no agent on the broker)"),
}
# Apprise's notification types: a chat app shows `failure` as an alarm, `info` as a note.
FAILURE, WARNING, INFO = "failure", "warning", "info"


def severity(incident: dict[str, Any]) -> str:
    """What Apprise is told: an E fault or an e-stop fails, a W fault or an offline
    table warns."""
    key = str(incident.get("fault_id") or "")
    if key == "estop@table":
        return FAILURE
    if key == "offline@table":
        return WARNING
    code = str(incident.get("code") or "")
    return {"E": FAILURE, "W": WARNING}.get(code[:1], INFO)


@dataclass(frozen=True)
class Page:
    """One notification to send: an incident opened or escalated."""

    kind: str
    incident: dict[str, Any]


def fault_key(fault: dict[str, Any]) -> str:
    """A fault as the table names it while it is active: its id at its place."""
    return f"{fault.get('id')}@{fault.get('where')}"


class Incidents:
    def __init__(self, office: Office, section: NotifySection) -> None:
        self.office = office
        self.section = section
        self.db = office.db

    def _open_row(self, table: str, key: str) -> dict[str, Any] | None:
        return self.office.one("SELECT * FROM incidents WHERE table_id = ? AND fault_id = ? "
                               "AND cleared IS NULL", (table, key))

    def raised(self, table: str, fault: dict[str, Any], now: float) -> int | None:
        """A fault the table reports; the incident's id (a new one, or the open one)."""
        if fault.get("active") is False or not fault.get("id"):
            return None
        key = fault_key(fault)
        row = self._open_row(table, key)
        if row is not None:
            if fault.get("summary") and row["paged"] is None:
                # The retained list speaks the venue's language; the first event, the
                # table's: a page not yet sent takes the venue's words.
                self.db.execute("UPDATE incidents SET summary = ? WHERE id = ?",
                                (str(fault["summary"]), row["id"]))
            return int(row["id"])
        back = self.office.one(
            "SELECT id FROM incidents WHERE table_id = ? AND fault_id = ? AND cleared >= ? "
            "ORDER BY id DESC LIMIT 1", (table, key, now - max(self.section.debounce_s,
                                                             FLAP_S)))
        if back is not None:
            # The same fault back soon after it cleared (a flapping sensor): the same
            # incident goes on. Else each flap, cleared within the debounce, would page
            # nobody however often it came; or, without debounce, page every time.
            self.db.execute("UPDATE incidents SET cleared = NULL WHERE id = ?", (back["id"],))
            self.office.log("incident.reopened", table=table, fault=key, incident=back["id"])
            return int(back["id"])
        cursor = self.db.execute(
            "INSERT INTO incidents (table_id, fault_id, code, summary, opened) "
            "VALUES (?, ?, ?, ?, ?)", (table, key, str(fault.get("code") or ""),
                                       str(fault.get("summary") or ""), now))
        self.office.log("incident.opened", table=table, fault=key, code=fault.get("code"),
                       incident=cursor.lastrowid)
        return cursor.lastrowid

    def active(self, table: str, faults: list[dict[str, Any]], now: float) -> None:
        """A table's whole list of active faults: new ones open, missing ones clear."""
        keys = set()
        for fault in faults:
            if isinstance(fault, dict):
                self.raised(table, {**fault, "active": True}, now)
                keys.add(fault_key(fault))
        for row in self.office.all("SELECT id, fault_id, paged FROM incidents WHERE "
                                   "table_id = ? AND cleared IS NULL", (table,)):
            if row["fault_id"] not in keys and row["fault_id"] not in CONDITIONS:
                self.db.execute("UPDATE incidents SET cleared = ? WHERE id = ?",
                                (now, row["id"]))
                self.office.log("incident.cleared", table=table, incident=row["id"],
                               paged=row["paged"] is not None)

    def condition(self, table: str, fault: dict[str, Any], on: bool, summary: str,
                  now: float) -> int | None:
        """A whole table's condition (ESTOP, OFFLINE) begins or ends."""
        if on:
            return self.raised(table, {**fault, "summary": summary, "active": True}, now)
        key = fault_key(fault)
        for row in self.office.all("SELECT id, paged FROM incidents WHERE table_id = ? AND "
                                   "fault_id = ? AND cleared IS NULL", (table, key)):
            self.db.execute("UPDATE incidents SET cleared = ? WHERE id = ?", (now, row["id"]))
            self.office.log("incident.cleared", table=table, incident=row["id"],
                            paged=row["paged"] is not None)
        return None

    def _wait_s(self) -> tuple[str, float, float]:
        """SQL of how long an incident waits before its page: an offline table waits
        `offline_after_min`, anything else the debounce."""
        return ("CASE WHEN fault_id = 'offline@table' THEN ? ELSE ? END",
                self.section.offline_after_min * 60.0, self.section.debounce_s)

    def due(self, now: float) -> list[Page]:
        """What to page now; each incident is paged once and escalated at most once."""
        pages = []
        wait, offline_s, debounce_s = self._wait_s()
        for row in self.office.all(
                "SELECT * FROM incidents WHERE paged IS NULL AND cleared IS NULL "
                f"AND opened + {wait} <= ?", (offline_s, debounce_s, now)):
            self.db.execute("UPDATE incidents SET paged = ? WHERE id = ?", (now, row["id"]))
            pages.append(Page(OPENED, {**row, "paged": now}))
        if self.section.escalate_after_min > 0:
            for row in self.office.all(
                    "SELECT * FROM incidents WHERE paged <= ? AND escalated IS NULL AND "
                    "acked IS NULL AND cleared IS NULL",
                    (now - self.section.escalate_after_min * 60.0,)):
                self.db.execute("UPDATE incidents SET escalated = ? WHERE id = ?",
                                (now, row["id"]))
                pages.append(Page(ESCALATED, {**row, "escalated": now}))
        return pages

    def next_due(self) -> float | None:
        """When `due` may next have something (None: nothing waits)."""
        times = []
        wait, offline_s, debounce_s = self._wait_s()
        row = self.db.execute(f"SELECT MIN(opened + {wait}) FROM incidents WHERE paged IS "
                              "NULL AND cleared IS NULL", (offline_s, debounce_s)).fetchone()
        if row[0] is not None:
            times.append(row[0])
        if self.section.escalate_after_min > 0:
            row = self.db.execute("SELECT MIN(paged) FROM incidents WHERE escalated IS NULL "
                                  "AND acked IS NULL AND cleared IS NULL AND paged IS NOT "
                                  "NULL").fetchone()
            if row[0] is not None:
                times.append(row[0] + self.section.escalate_after_min * 60.0)
        return min(times) if times else None

    def acknowledge(self, incident: int, who: str, now: float) -> bool:
        done = self.db.execute("UPDATE incidents SET acked = ?, acked_by = ? WHERE id = ? "
                               "AND acked IS NULL", (now, who, incident)).rowcount
        if done:
            self.office.log("incident.acknowledged", who=who, incident=incident)
        return bool(done)

    def listed(self, limit: int = 100) -> list[dict[str, Any]]:
        """Open incidents first, then the latest closed ones."""
        return self.office.all(
            "SELECT * FROM incidents ORDER BY (cleared IS NULL AND acked IS NULL) DESC, "
            "id DESC LIMIT ?", (limit,))
