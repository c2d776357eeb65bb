"""Token buckets for what clients may make the daemon do (firmware/api/server.py).

A bucket holds up to `burst` tokens and gains `rate` a second on the loop's clock.
Work is charged after the fact and may run the balance below zero; whoever charged
then waits until it is back at zero. So a client is slowed to the rate it was given,
whatever it sends, and the table's loop keeps the rest of the processor.
"""

from __future__ import annotations

from dataclasses import dataclass

Rate = tuple[float, float]      # a second, at once


@dataclass(frozen=True)
class Budgets:
    """What clients may make the daemon do (docs/console.md, "Limits"): lines (empty
    ones and garbage too) and bytes a second, per connection and over all of them."""

    client_lines: Rate = (50.0, 100.0)
    client_bytes: Rate = (256 * 1024.0, 1024 * 1024.0)
    all_lines: Rate = (100.0, 100.0)
    all_bytes: Rate = (1024 * 1024.0, 1024 * 1024.0)
    # Lines that were no request (empty, not JSON, over-long): past this the connection
    # is dropped.
    junk: Rate = (1.0, 32.0)
    # E-stop presses taken before anything else, per connection.
    estop_lane: Rate = (2.0, 5.0)
    # Lines over every connection of one uid (or of TCP): while it has some left, a
    # connection that asked little of late skips everyone's budget. Per connection
    # alone, sixteen connections each just under their own budget went past it.
    peer_quiet: Rate = (5.0, 20.0)


# For tests that flood on purpose to see something else (lockouts, log rows).
UNLIMITED = Budgets(client_lines=(1e9, 1e9), client_bytes=(1e12, 1e12),
                    all_lines=(1e9, 1e9), all_bytes=(1e12, 1e12), junk=(1e9, 1e9))


class Bucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._balance = burst
        self._at: float | None = None     # full until first used

    def _refill(self, now: float) -> None:
        if self._at is None:
            self._at = now
        self._balance = min(self.burst, self._balance + (now - self._at) * self.rate)
        self._at = now

    def charge(self, amount: float, now: float) -> None:
        self._refill(now)
        self._balance -= amount

    def wait_s(self, now: float) -> float:
        """Seconds until the balance is back at zero (0 when it is there)."""
        self._refill(now)
        return 0.0 if self._balance >= 0 else -self._balance / self.rate

    def spare(self, now: float) -> bool:
        """Over half full: its owner has asked little of late."""
        self._refill(now)
        return self._balance >= self.burst / 2

    def empty(self, now: float) -> bool:
        return self.wait_s(now) > 0
