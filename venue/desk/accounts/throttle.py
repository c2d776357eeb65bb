"""What one address or one session may make the desk do, before the work is done.

- Staff logins: a login under any name costs an argon2id hash (19 MiB, tens of
  milliseconds). Logins under made-up names were never limited (each name has its own
  lockout) and took the dashboard's p50 from 1.5 to 61 ms. Each address now has
  LOGINS_BURST logins at once and LOGINS_PER_MIN a minute, counted before the hash,
  and at most HASHES_AT_ONCE hashes run at a time over every address. An address is
  counted by its network (its /24, /64 for IPv6, as the daemon's TCP slots are): a
  local user has every address of 127.0.0.0/8, and 40 of them had 40 hashes where
  one had 10.
- Live streams (`/events`): each held one connection and one file descriptor for as
  long as the page was open; 1,000 from one session were 1,000 fds. At most
  STREAMS_PER_SESSION per staff session and STREAMS_PER_ADDRESS per address.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from mjtable_core.limits import Bucket, network

LOGINS_BURST = 10           # logins from one address at once...
LOGINS_PER_MIN = 10.0       # ...and then this many a minute
HASHES_AT_ONCE = 2          # argon2id hashes running at a time, every address together
ADDRESSES_KEPT = 4096       # addresses remembered (a full bucket is forgotten first)
STREAMS_PER_SESSION = 8     # a person's tabs
STREAMS_PER_ADDRESS = 32    # the counter's PC, several people's


class LoginThrottle:
    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self._buckets: dict[str, Bucket] = {}
        self._hashes: asyncio.Semaphore | None = None

    def wait_s(self, address: str) -> float:
        """0 when a login from `address` may be checked now (it is counted), else the
        seconds until one may."""
        now = self.now()
        address = network(address)
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= ADDRESSES_KEPT:
                self._forget_full(now)
            bucket = self._buckets[address] = Bucket(LOGINS_PER_MIN / 60.0, LOGINS_BURST)
        bucket.charge(1, now)
        wait = bucket.wait_s(now)
        if wait > 0:
            bucket.charge(-1, now)      # a refused login costs nothing more
            return wait
        return 0.0

    def _forget_full(self, now: float) -> None:
        del now
        while len(self._buckets) >= ADDRESSES_KEPT:     # the first seen go first
            del self._buckets[next(iter(self._buckets))]

    @property
    def hashes(self) -> asyncio.Semaphore:
        """The hashes running at once (made in the running loop)."""
        if self._hashes is None:
            self._hashes = asyncio.Semaphore(HASHES_AT_ONCE)
        return self._hashes


class StreamSlots:
    def __init__(self) -> None:
        self._held: dict[str, int] = {}

    @contextmanager
    def slot(self, session: str, address: str) -> Iterator[bool]:
        """True (and a slot held until the block ends) when the session and the
        address have room for one more stream."""
        keys = (f"s:{session}", f"a:{address}")
        if self._held.get(keys[0], 0) >= STREAMS_PER_SESSION or \
                self._held.get(keys[1], 0) >= STREAMS_PER_ADDRESS:
            yield False
            return
        for key in keys:
            self._held[key] = self._held.get(key, 0) + 1
        try:
            yield True
        finally:
            for key in keys:
                left = self._held.pop(key) - 1
                if left:
                    self._held[key] = left
