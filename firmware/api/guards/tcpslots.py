"""Who gets a TCP slot (`[api] tcp = true`): counted per network and per technician.

An address is cheap: a local user has 127.0.0.2…, a LAN has many, so slots are counted
per network (the address's /24, `[api] tcp_net_prefix`; /64 for IPv6). A connection
that has not logged in holds a small share: at most UNAUTHENTICATED over every address,
and a newcomer takes the slot of the oldest of them (from the network that holds the
most), as it would be dropped at TCP_LOGIN_S anyway. A session's slot is counted by
its technician, the uid of TCP. Four addresses holding every slot they can leave room
for a fifth, which logs in in milliseconds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from firmware.i18n import _

TCP_MAX = 16                # TCP connections at once
PER_NET = 8                 # from one network (its /24), logged in or not
UNAUTHENTICATED = 4         # not logged in, over every address
PER_TECHNICIAN = 4          # sessions of one technician over TCP


@dataclass
class Slot:
    """One TCP connection as the slots see it."""

    client: Any
    net: str
    logged_in: bool
    evictable: bool         # not logged in, and no e-stop panel


def place(slots: Sequence[Slot], net: str) -> tuple[str | None, Slot | None]:
    """For a new connection from `net`: why it is refused (None: admitted), and the
    connection whose slot it takes, if any (`slots` oldest first)."""
    waiting = [s for s in slots if s.evictable]
    full_net = sum(1 for s in slots if s.net == net) >= PER_NET
    if full_net:
        ours = [s for s in waiting if s.net == net]
        if not ours:
            return _("too many TCP connections from {net} ({most}); close some").format(
                net=net, most=PER_NET), None
        return None, ours[0]
    if len(slots) >= TCP_MAX or len(waiting) >= UNAUTHENTICATED:
        if not waiting:
            return _("too many TCP connections ({most}); try again later").format(
                most=TCP_MAX), None
        most = Counter(s.net for s in waiting).most_common(1)[0][0]
        return None, next(s for s in waiting if s.net == most)
    return None, None


def technician_full(sessions: Sequence[str | None], technician: str) -> bool:
    """Whether `technician` holds PER_TECHNICIAN TCP sessions already (`sessions`: the
    technician of each TCP connection, None when not logged in)."""
    return sum(1 for who in sessions if who == technician) >= PER_TECHNICIAN
