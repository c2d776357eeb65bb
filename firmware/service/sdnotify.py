"""systemd's notify protocol, spoken directly: one datagram per message.

`NOTIFY_SOCKET` names a Unix datagram socket (a path, or `@name` for the abstract
namespace); each message is `KEY=value` lines. Without `NOTIFY_SOCKET` (not started
by systemd, or `Type=` is not notify) every call is a no-op. A send that fails or
would block is dropped: the daemon must never stop or stall for its supervisor.
"""

from __future__ import annotations

import asyncio
import os
import socket
from typing import Any


class Notifier:
    """READY / STATUS / WATCHDOG / STOPPING for the service manager."""

    def __init__(self, address: str | None = None) -> None:
        address = os.environ.get("NOTIFY_SOCKET") if address is None else address
        self._address: str | bytes | None = None
        self._sock: socket.socket | None = None
        if address:
            # "@name" is the abstract namespace: a leading NUL byte on the wire.
            self._address = "\0" + address[1:] if address.startswith("@") else address
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            # Never block the loop: a datagram queue holds ~10 messages
            # (net.unix.max_dgram_qlen); when the manager lags, drop rather than wait.
            self._sock.setblocking(False)

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def send(self, message: str) -> bool:
        """Send one message; True when the datagram went out."""
        if self._sock is None or self._address is None:
            return False
        try:
            self._sock.sendto(message.encode(), self._address)
        except OSError:
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text.replace(chr(10), ' ')}")

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        return self.send("STOPPING=1" + (f"\nSTATUS={status}" if status else ""))

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_period_s() -> float | None:
    """Half of WatchdogSec when systemd asked this process for keep-alives, else None."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 2e6
    except ValueError:
        return None


def attach_systemd(ctl: Any, loop: asyncio.AbstractEventLoop) -> Notifier:
    """Wire a controller to systemd: STATUS from its events, WATCHDOG from a loop timer.

    The keep-alive runs on the asyncio loop in real seconds (never the scaled table
    clock), so a loop that hangs stops it and systemd restarts the service. READY is
    the daemon's to send, once the table is up.
    """
    notify = Notifier()
    if not notify.enabled:
        return notify

    def on_event(event: dict[str, Any]) -> None:
        if event["kind"] == "phase":
            notify.status(f"hand {event.get('cycle', '?')}: {event.get('state')}")
        elif event["kind"] == "fault":
            notify.status(f"fault {event.get('code')} {event.get('id')} at "
                          f"{event.get('where')}")

    ctl.subscribers.append(on_event)
    period = watchdog_period_s()
    if period is not None:
        def keepalive() -> None:
            notify.watchdog()
            loop.call_later(period, keepalive)

        keepalive()
    return notify
