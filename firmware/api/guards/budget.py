"""What clients may make the daemon do (firmware/api/server.py), as token buckets.

A bucket (mjtable_core/limits.py) holds up to `burst` tokens and gains `rate` a second
on the loop's clock. Work is charged after the fact and may run the balance below
zero; whoever charged then waits until it is back at zero. So a client is slowed to
the rate it was given, whatever it sends, and the table's loop keeps the rest of the
processor.
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
