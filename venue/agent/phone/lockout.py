"""Wrong tokens counted per phone, below the daemon's lockout of a name.

Every phone reaches the daemon as the agent's one uid, so the daemon's lockout (5
wrong tokens per name and uid) counted every phone as one: five wrong guesses from any
phone kept 李师傅 out of every phone. The console now counts wrong tokens per phone,
by its address and by its session (a page's cookie), each guess before it is checked:
a phone past PER_SESSION or PER_ADDRESS wrong tokens in LOCK_S is refused here without
asking the daemon, so one phone never reaches the daemon's limit for a name, and the
other phones (another address) keep logging in.
"""

from __future__ import annotations

import time
from collections.abc import Callable

PER_SESSION = 3         # wrong tokens from one page's session in LOCK_S
PER_ADDRESS = 4         # from one address (below the daemon's 5 per name and uid)
LOCK_S = 300.0
KEYS_KEPT = 4096        # phones remembered; the quietest are forgotten first


class PhoneLockout:
    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self._failed: dict[str, list[float]] = {}
        self._trying: dict[str, int] = {}

    def begin(self, address: str, session: str) -> float:
        """A guess from this phone: 0 when it may be checked (it is counted now), else
        the seconds until it may guess again."""
        keys = (f"a:{address}", f"s:{session}")
        wait = max(self._wait(key, limit) for key, limit in zip(
            keys, (PER_ADDRESS, PER_SESSION), strict=True))
        if wait > 0:
            return wait
        for key in keys:
            self._trying[key] = self._trying.get(key, 0) + 1
        return 0.0

    def end(self, address: str, session: str, wrong: bool) -> None:
        """The daemon's verdict on a guess `begin` let through."""
        for key in (f"a:{address}", f"s:{session}"):
            left = self._trying.pop(key, 1) - 1
            if left:
                self._trying[key] = left
            if wrong:
                self._failed.setdefault(key, []).append(self.now())
            elif key.startswith("s:"):
                self._failed.pop(key, None)     # logged in: its page starts afresh
        if len(self._failed) > KEYS_KEPT:
            quietest = sorted(self._failed, key=lambda k: self._failed[k][-1])
            for key in quietest[:len(self._failed) - KEYS_KEPT]:
                del self._failed[key]

    def _wait(self, key: str, limit: int) -> float:
        now = self.now()
        recent = [t for t in self._failed.get(key, ()) if now - t < LOCK_S]
        if recent:
            self._failed[key] = recent
        else:
            self._failed.pop(key, None)
        if len(recent) + self._trying.get(key, 0) < limit:
            return 0.0
        # Past the limit with guesses still out: wait for them, then their count.
        return LOCK_S - (now - recent[0]) if len(recent) >= limit else 1.0
