"""Who is on the other end of the Unix socket, and whether they may be.

The kernel tells us the peer's uid, gid and pid (SO_PEERCRED); they go with every
logged technician request. Besides the socket's own mode (0660 and its group), the
daemon admits only root, its own uid and members of the socket's group.
"""

from __future__ import annotations

import grp
import os
import pwd
import resource
import socket
import struct
from dataclasses import dataclass

RESERVED_FDS = 64       # kept for the table's own files: journal, event log, handoff, board


@dataclass(frozen=True)
class Peer:
    """A connected client: Unix credentials, or a TCP address."""

    uid: int | None = None
    gid: int | None = None
    pid: int | None = None
    address: str | None = None

    @property
    def key(self) -> str:
        """What lockouts and connection limits count by."""
        return f"uid:{self.uid}" if self.uid is not None else "tcp"

    def as_log(self) -> dict[str, int | str | None]:
        if self.uid is not None:
            return {"uid": self.uid, "pid": self.pid}
        return {"peer": f"tcp {self.address}"}


def unix_peer(sock: socket.socket | None) -> Peer:
    """The peer's credentials; an empty Peer when the platform cannot say."""
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return Peer(uid=-1)
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return Peer(uid=uid, gid=gid, pid=pid)


def group_id(name: str) -> int | None:
    """The gid of group `name` ("" = none: the daemon's own group stays)."""
    if not name:
        return None
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        raise ValueError(f"no group {name!r} on this machine: create it (groupadd) or "
                         "set [api] socket_group = \"\"") from None


def admitted(peer: Peer, gid: int) -> bool:
    """Root, the daemon's own uid, or a member of group `gid`."""
    if peer.uid is None or peer.uid < 0:
        return peer.uid is None     # TCP is judged by its own rules (a technician always)
    if peer.uid in (0, os.getuid()) or peer.gid == gid:
        return True
    try:
        user = pwd.getpwuid(peer.uid).pw_name
        return gid in os.getgrouplist(user, peer.gid if peer.gid is not None else gid)
    except (KeyError, OSError):
        return False


def connection_budget(wanted: int) -> int:
    """Connections the daemon may hold without eating the fds its own files need."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        # Ask for what the hard limit allows: more room for the reserve.
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 4096)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - RESERVED_FDS))
