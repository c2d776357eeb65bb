"""Refused credentials in the event log: one row per name, reason and action per window.

The first refusal of a key in a window is logged at once; the ones after it are only
counted, and one `technician.refused.repeated` row with the count closes the window.
Unknown names share one key (with a few of them as a sample), so neither a flood on
one name nor a spray of names can rotate the event history away.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mjtable_core.clock import Clock

WINDOW_S = 60.0
SAMPLE_NAMES = 5

Key = tuple[str | None, str, str]      # (name or UNKNOWN, reason, action)


@dataclass
class _Window:
    started: float
    count: int = 0
    names: list[str] = field(default_factory=list)
    peers: set[str] = field(default_factory=set)


class RefusalLog:
    """Aggregates refusals; `emit` is the controller's."""

    def __init__(self, clock: Clock, emit: Callable[..., None],
                 window_s: float = WINDOW_S) -> None:
        self.clock = clock
        self.emit = emit
        self.window_s = window_s
        self._open: dict[Key, _Window] = {}

    def refused(self, key_name: str | None, name: str | None, reason: str, action: str,
                peer: dict[str, Any], **extra: Any) -> None:
        """Log a refusal (first in its window) or count it (the rest)."""
        self.flush()
        key = (key_name, reason, action)
        window = self._open.get(key)
        if window is None:
            self._open[key] = _Window(self.clock.now())
            self.emit("technician.refused", name=name, action=action, reason=reason,
                      **peer, **extra)
            return
        window.count += 1
        window.peers.add(str(peer.get("uid", peer.get("peer"))))
        if name is not None and name not in window.names and len(window.names) < SAMPLE_NAMES:
            window.names.append(name)

    def flush(self, everything: bool = False) -> None:
        """Close the windows that have ended (all of them when `everything`)."""
        now = self.clock.now()
        for key, window in list(self._open.items()):
            if everything or now - window.started >= self.window_s:
                del self._open[key]
                if window.count:
                    self.emit("technician.refused.repeated", name=key[0], reason=key[1],
                              action=key[2], count=window.count,
                              window_s=round(now - window.started, 3),
                              names=window.names, peers=sorted(window.peers))


class OpenDiagnoses:
    """Diagnoses asked without a login, in the event log: one row per window.

    They need no credential, so one row per request let anyone rotate the history
    away. The first in a window is logged with the count of those before it that were
    only counted (and a few of their symptoms)."""

    def __init__(self, clock: Clock, emit: Callable[..., None],
                 window_s: float = WINDOW_S) -> None:
        self.clock = clock
        self.emit = emit
        self.window_s = window_s
        self._started: float | None = None
        self._skipped = 0
        self._symptoms: list[str] = []

    def asked(self, symptom: str, result: Any) -> None:
        now = self.clock.now()
        if self._started is not None and now - self._started < self.window_s:
            self._skipped += 1
            if symptom not in self._symptoms and len(self._symptoms) < SAMPLE_NAMES:
                self._symptoms.append(symptom)
            return
        extra = ({"unlogged_before": self._skipped, "unlogged_symptoms": self._symptoms}
                 if self._skipped else {})
        self._started, self._skipped, self._symptoms = now, 0, []
        self.emit("diagnosis", symptom=symptom, by=None, result=result, **extra)


class DroppedConnections:
    """Dropped connections in the event log: one row per peer and cause per window.

    Connecting needs no credential, so a loop of connect-and-stall would otherwise
    write a row per connection and rotate the event history away. The first drop of
    a (peer, cause) in a window is logged at once; the rest are counted, and one
    `api.client.dropped.repeated` row with the count closes the window."""

    def __init__(self, clock: Clock, emit: Callable[..., None],
                 window_s: float = WINDOW_S) -> None:
        self.clock = clock
        self.emit = emit
        self.window_s = window_s
        self._open: dict[tuple[str, str], _Window] = {}

    def dropped(self, peer_key: str, cause: str, why: str, peer: dict[str, Any]) -> None:
        """Log a drop (first of its kind in the window) or count it."""
        self.flush()
        window = self._open.get((peer_key, cause))
        if window is None:
            self._open[(peer_key, cause)] = _Window(self.clock.now())
            self.emit("api.client.dropped", why=why, **peer)
            return
        window.count += 1

    def flush(self, everything: bool = False) -> None:
        """Close the windows that have ended (all of them when `everything`)."""
        now = self.clock.now()
        for (peer_key, cause), window in list(self._open.items()):
            if everything or now - window.started >= self.window_s:
                del self._open[(peer_key, cause)]
                if window.count:
                    self.emit("api.client.dropped.repeated", peer=peer_key, cause=cause,
                              count=window.count, window_s=round(now - window.started, 3))
