"""Staff sessions: a random id in an HttpOnly, SameSite=Strict cookie, and a CSRF token.

Only a hash of the session id is stored, so the desk's file does not hand out
sessions. A session expires when unused for `session_idle_s` or `session_max_s` after
login, whichever comes first. Its CSRF token goes with every POST (a form field or the
`X-CSRF-Token` header): a page of another site can make the browser send the cookie
(not with SameSite=Strict, but an old browser may), never the token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from venue.desk.office import Office
from venue.desk.sections import StaffSection

COOKIE = "mjt_session"
CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"


@dataclass(frozen=True)
class Session:
    name: str
    csrf: str

    def csrf_ok(self, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf.encode(),
                                                   str(token).encode())


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class Sessions:
    def __init__(self, office: Office, section: StaffSection,
                 wall: Callable[[], float] = time.time) -> None:
        self.office = office
        self.section = section
        self.wall = wall

    def open(self, name: str) -> tuple[str, Session]:
        """A new session for `name`: its id (for the cookie) and the session."""
        session_id, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = self.wall()
        self.office.db.execute("INSERT INTO sessions (id_hash, name, csrf, created, used) "
                              "VALUES (?, ?, ?, ?, ?)", (_hash(session_id), name, csrf, now, now))
        return session_id, Session(name, csrf)

    def find(self, session_id: str | None) -> tuple[Session | None, bool]:
        """The live session of a cookie, and whether the cookie named an expired one."""
        if not session_id or len(session_id) > 128:
            return None, False
        key = _hash(session_id)
        row = self.office.one("SELECT name, csrf, created, used FROM sessions "
                              "WHERE id_hash = ?", (key,))
        if row is None:
            return None, False
        now = self.wall()
        if now - row["used"] > self.section.session_idle_s or \
                now - row["created"] > self.section.session_max_s:
            self.office.db.execute("DELETE FROM sessions WHERE id_hash = ?", (key,))
            return None, True
        self.office.db.execute("UPDATE sessions SET used = ? WHERE id_hash = ?", (now, key))
        return Session(row["name"], row["csrf"]), False

    def close(self, session_id: str | None) -> None:
        if session_id:
            self.office.db.execute("DELETE FROM sessions WHERE id_hash = ?", (_hash(session_id),))

    def sweep(self) -> None:
        """Forget sessions past their time (the desk does it now and then)."""
        now = self.wall()
        self.office.db.execute("DELETE FROM sessions WHERE used < ? OR created < ?",
                              (now - self.section.session_idle_s,
                               now - self.section.session_max_s))
