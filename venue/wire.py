"""What the table's agent and the venue's desk share on the wire: the broker's address,
the topics and the payloads, versioned, under `mjt/v1/{table}/` (docs/venue.md).

The agent and the desk never import each other: both speak this.
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import urlsplit

ROOT = "mjt/v1"
SCHEMA = "mjtable.venue/1"
ONLINE, OFFLINE = b"online", b"offline"


def broker_address(url: str) -> tuple[str, int, bool]:
    """Host, port and whether TLS, from a broker URL (mqtt://, mqtts://)."""
    parts = urlsplit(url)
    tls = parts.scheme == "mqtts"
    return parts.hostname or "127.0.0.1", parts.port or (8883 if tls else 1883), tls


def one_level(table: str) -> bool:
    """Whether `table` is one MQTT topic level: no `/` (another tree), no wildcard
    (paho refuses the topic), not empty."""
    return bool(table) and not any(c in table for c in "/+#\0")


class Topics:
    def __init__(self, table: str) -> None:
        base = f"{ROOT}/{table}"
        self.avail = f"{base}/avail"
        self.info = f"{base}/info"
        self.status = f"{base}/status"
        self.faults = f"{base}/faults"
        self.event_fault = f"{base}/event/fault"
        self.event_hand = f"{base}/event/hand"
        self.usage = f"{base}/usage"
        self.cmd = f"{base}/cmd"
        self.cmd_ack = f"{base}/cmd/ack"


def payload(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False,
                      default=str).encode()


# What the agent publishes, built here once: the agent from its daemon's replies, the
# demo's made-up tables from the same shapes (venue/desk/demo.py), so the venue, Home
# Assistant and a chain's broker see one protocol, never a copy that drifts.


def birth(table: str, firmware: str, model: str, variant: str, console_url: str | None,
          protocol: Any) -> dict[str, Any]:
    """The retained `info` message."""
    return {"schema": SCHEMA, "table": table, "firmware": firmware, "model": model,
            "variant": variant, "console_url": console_url or None, "protocol": protocol}


def status_message(table: str, status: dict[str, Any], wall: float) -> dict[str, Any]:
    """The retained `status` message of a daemon's status."""
    return {**status_view(status), "table": table, "wall": round(wall, 3)}


def faults_message(table: str, faults: list[dict[str, Any]]) -> dict[str, Any]:
    """The retained `faults` message of the daemon's active faults."""
    return {"table": table, "active": [fault_view(f) for f in faults]}


def fault_event(table: str, event: dict[str, Any], wall: float) -> dict[str, Any]:
    """An `event/fault` message of a daemon's fault event, heard at `wall`."""
    wall = round(wall, 3)
    return {"table": table, "t": event.get("t"), "wall": wall, **fault_view(event),
            "since": wall}


def status_view(status: dict[str, Any]) -> dict[str, Any]:
    """What the venue sees of the status: no tiles, no signals, no walls."""
    return {"state": status.get("state"), "hand": status.get("cycle"),
            "hand_in_play": status.get("hand_in_play"), "build": status.get("build"),
            "estopped": status.get("estopped"), "held_by": status.get("held_by"),
            "faults_active": (status.get("counters") or {}).get("faults_active"),
            "display": status.get("display"), "lamps": status.get("lamps"),
            "test_mode": (status.get("service") or {}).get("test_mode"),
            "gate": gate_view(status)}


def gate_view(status: dict[str, Any]) -> dict[str, Any] | None:
    """The booking gate, with the minutes left (rounded up) rather than seconds: the
    status is published on change, and a countdown in seconds would change every time."""
    gate = status.get("gate")
    if not isinstance(gate, dict):
        return None
    until, now = gate.get("until_t"), status.get("t")
    left = (max(0, math.ceil((until - now) / 60)) if isinstance(until, int | float)
            and isinstance(now, int | float) else None)
    return {"enforced": gate.get("enforced"), "open": gate.get("open"),
            "booking_id": gate.get("booking_id"), "reason": gate.get("reason"),
            "held": gate.get("held"), "left_min": left}


def fault_view(fault: dict[str, Any]) -> dict[str, Any]:
    """A fault as the venue reads it: code, cause and remedy in the venue's language,
    and `since`, the wall time the table raised it (its age on the venue's screens)."""
    diagnosis = fault.get("diagnosis") or {}
    return {"code": fault.get("code"), "id": fault.get("id"), "where": fault.get("where"),
            "active": fault.get("active"), "since": fault.get("raised_wall"),
            "summary": diagnosis.get("summary"),
            "cause": diagnosis.get("causes"), "remedy": diagnosis.get("remedy"),
            "severity": diagnosis.get("severity")}
