"""The phone console's sessions: a visitor's (read-only, for its CSRF token) and a
technician's, which owns its own connection to the daemon.

A technician logs in with the daemon's own `login` on that connection: the daemon
checks the token and counts the lockout; nothing here stores a name or a token. The
session ends with its connection (logout, the daemon's session expiring, the daemon
going away), and its cookie then opens nothing: a cookie replayed after logout
finds no session.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware.api.client import JOG_STOP, LOGIN, LOGOUT, SUBSCRIBE, AsyncClient, ClientError

MAX_VISITORS = 256          # read-only sessions kept; the oldest is forgotten first
PER_ADDRESS = 16            # ...and one address's: a device loading the page again and
                            # again forgets its own, not the players' pages
MAX_TECHNICIANS = 4         # technician sessions at once (each holds a daemon connection)
IDLE_S = 300.0              # a technician's page silent this long: logged out
SILENT_S = 30.0             # ...and this long, when a new login needs its place (an
                            # open page asks every 0.7 s: this one's tab is gone)
LONGEST_S = 900.0           # the daemon's own session length (firmware/api/server.py)
LOGINS = 2                  # logins waiting for the daemon's verdict at once, each on a
                            # connection of its own: a burst of guesses queues here, not
                            # in the few connections the daemon allows the agent's uid


@dataclass
class Session:
    sid: str
    csrf: str
    started: float
    seen: float
    technician: str | None = None
    link: AsyncClient | None = None
    hold: int | None = None             # the hold-to-run jog this session started
    remote: str = ""                    # the address that opened it
    drain: asyncio.Task[None] | None = field(default=None, repr=False)


class TooMany(Exception):
    pass


class Sessions:
    def __init__(self, socket: Path) -> None:
        self.socket = socket
        self._by_id: dict[str, Session] = {}
        self._logins = asyncio.Semaphore(LOGINS)

    def _new(self) -> Session:
        now = time.monotonic()
        return Session(secrets.token_urlsafe(24), secrets.token_urlsafe(24), now, now)

    def visitor(self, remote: str = "") -> Session:
        visitors = [s for s in self._by_id.values() if s.technician is None]
        its_own = [s for s in visitors if s.remote == remote]
        if len(its_own) >= PER_ADDRESS or len(visitors) >= MAX_VISITORS:
            oldest = min(its_own if len(its_own) >= PER_ADDRESS else visitors,
                         key=lambda s: s.seen)
            del self._by_id[oldest.sid]
        session = self._new()
        session.remote = remote
        self._by_id[session.sid] = session
        return session

    def get(self, sid: str | None) -> Session | None:
        session = self._by_id.get(sid or "")
        if session is None:
            return None
        if session.technician is not None and (session.link is None or self._stale(session)):
            self._forget(session)
            return None
        session.seen = time.monotonic()
        return session

    def _stale(self, session: Session) -> bool:
        now = time.monotonic()
        return now - session.seen > IDLE_S or now - session.started > LONGEST_S or (
            session.drain is not None and session.drain.done())

    async def login(self, old: Session, name: str, token: str) -> Session:
        """A new session (new id and token: a cookie seen before login opens nothing)
        with its own daemon connection, logged in there; ClientError if refused."""
        self._place()                   # refused at once when the table is full
        async with self._logins:
            link = AsyncClient(self.socket)
            await link.open()
            try:
                result = await link.request(LOGIN, auth={"name": name, "token": token})
                # A connection that sends nothing is dropped by the daemon: take its events.
                await link.request(SUBSCRIBE, {"streams": ["events"]})
            except ClientError:
                await link.aclose()
                raise
        # Only a technician the daemon let in takes the quietest one's place (a wrong
        # guess from the LAN logs nobody out), counted again now: other logins may have
        # finished meanwhile. No await from here until the session is in.
        try:
            quietest = self._place()
        except TooMany:
            await link.aclose()
            raise
        if quietest is not None:
            self._forget(quietest)      # its connection closes: its jog stops
        session = self._new()
        session.technician = result["technician"]
        session.link = link
        session.drain = asyncio.get_running_loop().create_task(self._drain(link))
        # A technician's page logging in again: its old connection closes with it.
        self._forget(old)
        self._by_id[session.sid] = session
        return session

    def _place(self) -> Session | None:
        """The technician to log out for a new one (the quietest, when the table is full
        and that page has been silent SILENT_S), None when there is room; TooMany."""
        logged = [s for s in self._by_id.values() if s.technician is not None]
        if len(logged) < MAX_TECHNICIANS:
            return None
        quietest = min(logged, key=lambda s: s.seen)
        if time.monotonic() - quietest.seen < SILENT_S:
            raise TooMany
        return quietest

    @staticmethod
    async def _drain(link: AsyncClient) -> None:
        while await link.stream.get() is not None:
            pass

    async def logout(self, session: Session) -> None:
        link = session.link
        self._forget(session)
        if link is not None:
            with contextlib.suppress(ClientError):
                if session.hold is not None:
                    await link.request(JOG_STOP, {"hold": session.hold}, timeout=2.0)
                await link.request(LOGOUT, timeout=2.0)
            await link.aclose()

    def _forget(self, session: Session) -> None:
        self._by_id.pop(session.sid, None)
        if session.drain is not None:
            session.drain.cancel()
        if session.link is not None:
            # Closing the connection stops its hold-to-run jog in the daemon at once.
            asyncio.get_running_loop().create_task(session.link.aclose())

    def sweep(self) -> None:
        for session in list(self._by_id.values()):
            if session.technician is not None and self._stale(session):
                self._forget(session)

    async def close(self) -> None:
        for session in list(self._by_id.values()):
            if session.technician is not None:
                await self.logout(session)
        self._by_id.clear()

    def technicians(self) -> list[dict[str, Any]]:
        return [{"technician": s.technician} for s in self._by_id.values() if s.technician]
