"""Lockout after wrong tokens, on the controller's clock.

A guess is counted before its hash is computed, and a key with a check in flight
queues its next guess behind it, so pipelining guesses gains nothing.

Keys (none of them can be pushed out by spraying names):
- a known technician name, per peer (the Unix uid, or "tcp"): `failures` wrong tokens
  lock that name for that peer. A guesser at one uid never locks out the technician
  at another, and never locks out another name.
- unknown names, per peer: they share one bucket, so a thousand sprayed names count
  as a thousand failures of one key.
- a known name, all peers together: a larger limit, so guessers at many uids gain
  no more than UNKNOWN_GLOBAL times the guesses of one (that name is then locked for
  every peer; other names and the e-stop are not). Each peer counts towards it at
  most its own limit, so one uid guessing patiently, lock after lock, never locks the
  name for the others.
- unknown names, all peers together: a global bucket with the same larger limit.
Known names are bounded by the technicians file and peers by the machine's uids, so
every table here stays small without forgetting anything.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from mjtable_core.clock import Clock

LOCKOUT_FAILURES = 5
LOCKOUT_S = 300.0
UNKNOWN_PER_PEER = 4      # times `failures`: unknown-name failures one peer may make
UNKNOWN_GLOBAL = 16       # times `failures`: unknown-name failures all peers may make
UNKNOWN = "<unknown names>"


@dataclass
class _Count:
    count: int = 0
    locked_until: float = 0.0
    # An all-peers key: each peer's failures, counted up to that peer's own limit.
    by_peer: dict[str, int] = field(default_factory=dict)


class Lockout:
    """Counts failures per key on the controller's clock."""

    def __init__(self, clock: Clock, failures: int = LOCKOUT_FAILURES,
                 lock_s: float = LOCKOUT_S) -> None:
        self.clock = clock
        self.failures = failures
        self.lock_s = lock_s
        self._counts: dict[tuple[str, str], _Count] = {}
        self._turns: dict[tuple[str, str], asyncio.Lock] = {}

    def keys(self, name: str, peer: str, known: bool) -> list[tuple[str, str]]:
        """The counters one guess touches."""
        if known:
            return [(name, peer), (name, "*")]
        return [(UNKNOWN, peer), (UNKNOWN, "*")]

    def _limit(self, key: tuple[str, str]) -> int:
        if key[1] == "*":
            return self.failures * UNKNOWN_GLOBAL
        return self.failures * (UNKNOWN_PER_PEER if key[0] == UNKNOWN else 1)

    @contextlib.asynccontextmanager
    async def turn(self, keys: list[tuple[str, str]]) -> AsyncIterator[None]:
        """One check at a time per key: a second guess waits for the first's verdict."""
        lock = self._turns.setdefault(keys[0], asyncio.Lock())
        try:
            async with lock:
                yield
        finally:
            if not lock.locked() and self._turns.get(keys[0]) is lock:
                # Nobody waits on it: forget it, so the table holds only checks in flight.
                del self._turns[keys[0]]

    def locked_for(self, keys: list[tuple[str, str]]) -> float:
        """Seconds (controller time) until a guess on these keys may be tried; 0 now."""
        return self.locked(keys)[0]

    def locked(self, keys: list[tuple[str, str]]) -> tuple[float, bool]:
        """(seconds until a guess may be tried, whether the lock is the all-peers one:
        then it was not this peer's guesses that locked it)."""
        now = self.clock.now()
        left = {k: c.locked_until - now for k in keys
                if (c := self._counts.get(k)) is not None and c.locked_until > now}
        if not left:
            return 0.0, False
        return max(left.values()), keys[0] not in left

    def attempt(self, keys: list[tuple[str, str]]) -> None:
        """Count a guess as failed before checking it; `succeeded` takes it back."""
        now = self.clock.now()
        peer = keys[0]
        for key in keys:
            entry = self._counts.setdefault(key, _Count())
            if entry.locked_until and entry.locked_until <= now:
                entry.count, entry.locked_until = 0, 0.0
                entry.by_peer.clear()
            if key[1] == "*":
                mine = entry.by_peer.get(peer[1], 0)
                entry.by_peer[peer[1]] = mine + 1
                if mine >= self._limit(peer):
                    continue        # this peer gave its share: the rest are its own
            entry.count += 1
            if entry.count >= self._limit(key):
                entry.locked_until = now + self.lock_s

    def succeeded(self, keys: list[tuple[str, str]]) -> None:
        # Both counts are forgiven (or a technician's own typos would add up for ever);
        # a guesser's own per-uid counts stay.
        for key in keys:
            self._counts.pop(key, None)
