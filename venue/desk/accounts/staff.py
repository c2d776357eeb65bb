"""Staff accounts: argon2id password hashes, and a lockout after wrong passwords.

A name is locked after `lockout_failures` wrong passwords in a row, for `lockout_s`,
whether or not the account exists (a locked name says nothing about who works here),
and a locked name is refused even with the right password. Checks of unknown names
cost as much as real ones.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from firmware.i18n import N_, _
from mjtable_core.names import check_name
from mjtable_core.printable import printable
from venue.desk.office import Office
from venue.desk.sections import StaffSection

MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 256

# Why a login was refused: said to the person at the login page.
WRONG = N_("wrong name or password")
LOCKED = N_("too many wrong passwords: this name is locked for a while")


@dataclass(frozen=True)
class Cost:
    """argon2id cost: the OWASP minimum (19 MiB, 2 passes, 1 lane) unless a test asks
    for less."""

    memory_kib: int = 19456
    passes: int = 2
    lanes: int = 1

    def hasher(self) -> PasswordHasher:
        return PasswordHasher(time_cost=self.passes, memory_cost=self.memory_kib,
                              parallelism=self.lanes, type=Type.ID)


class LoginRefused(Exception):
    """`why` is one of WRONG, LOCKED."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def check_staff_name(name: str) -> str:
    """A name as stored: the technicians' rules (firmware/api/auth.py), said of staff."""
    try:
        return check_name(name)
    except ValueError:
        raise ValueError(_("staff name “{name}” is not valid: use 1–32 letters of one "
                           "script (Latin may go with Chinese, as 王姐 or li), digits, '.', "
                           "'_', '-' or '·', starting with a letter or digit").format(
                               name=printable(name[:64]))) from None


def check_password(password: str) -> str:
    if not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise ValueError(_("the password must be {least} to {most} characters long").format(
            least=MIN_PASSWORD_CHARS, most=MAX_PASSWORD_CHARS))
    return password


class Staff:
    def __init__(self, office: Office, section: StaffSection, cost: Cost = Cost(),
                 wall: Callable[[], float] = time.time) -> None:
        self.office = office
        self.section = section
        self.hasher = cost.hasher()
        self.wall = wall
        self._dummy = self.hasher.hash("not a password of anyone")
        # Guesses being checked now, per name (logins run on worker threads).
        self._counting = threading.Lock()
        self._trying: dict[str, int] = {}

    def add(self, name: str, password: str) -> str:
        """Add or reset a staff account; ValueError says what is wrong with the input."""
        name = check_staff_name(name)
        check_password(password)
        self.office.db.execute(
            "INSERT INTO staff (name, hash, created) VALUES (?, ?, ?) ON CONFLICT(name) "
            "DO UPDATE SET hash = excluded.hash", (name, self.hasher.hash(password),
                                                   self.wall()))
        self.office.db.execute("DELETE FROM lockout WHERE name = ?", (name,))
        # A new password (a leaked one replaced) ends every session of the old one.
        self.office.db.execute("DELETE FROM sessions WHERE name = ?", (name,))
        self.office.log("staff.added", who=name)
        return name

    def remove(self, name: str) -> bool:
        gone = self.office.db.execute("DELETE FROM staff WHERE name = ?", (name,)).rowcount
        self.office.db.execute("DELETE FROM sessions WHERE name = ?", (name,))
        if gone:
            self.office.log("staff.removed", who=name)
        return bool(gone)

    def names(self) -> list[str]:
        return [r[0] for r in self.office.db.execute("SELECT name FROM staff ORDER BY name")]

    def locked(self, name: str) -> bool:
        row = self.office.db.execute("SELECT locked_until FROM lockout WHERE name = ?",
                                    (name,)).fetchone()
        return row is not None and row[0] > self.wall()

    def verify(self, name: str, password: str) -> str:
        """The stored name, or LoginRefused. Slow (argon2id): call it off the event loop.

        Each guess is counted before it is checked: guesses sent at once (one per
        worker thread) cannot all pass the lock before the first is counted, so a name
        gets at most `lockout_failures` guesses per lockout, however they are sent."""
        try:
            name = check_name(name)
        except ValueError:
            name = name[:64]
        with self._counting:
            if self.locked(name) or self._failures(name) + self._trying.get(name, 0) \
                    >= self.section.lockout_failures:
                raise LoginRefused(LOCKED)
            self._trying[name] = self._trying.get(name, 0) + 1
        row = None
        good = False
        try:
            row = self.office.db.execute("SELECT hash FROM staff WHERE name = ?",
                                        (name,)).fetchone()
            try:
                self.hasher.verify(row[0] if row else self._dummy,
                                   password[:MAX_PASSWORD_CHARS])
                good = row is not None
            except (VerificationError, InvalidHashError):
                good = False
        finally:
            with self._counting:
                left = self._trying.pop(name, 1) - 1
                if left:
                    self._trying[name] = left
                if good:
                    self.office.db.execute("DELETE FROM lockout WHERE name = ?", (name,))
                else:
                    self._failed(name)
        if not good:
            raise LoginRefused(LOCKED if self.locked(name) else WRONG)
        assert row is not None
        if self.hasher.check_needs_rehash(row[0]):
            self.office.db.execute("UPDATE staff SET hash = ? WHERE name = ?",
                                  (self.hasher.hash(password), name))
        return name

    def _failures(self, name: str) -> int:
        """Wrong passwords counted against `name` (none once a lockout ran out)."""
        row = self.office.db.execute("SELECT failures, locked_until FROM lockout WHERE name = ?",
                                    (name,)).fetchone()
        if row is None or (row[1] and row[1] <= self.wall()):
            return 0
        return int(row[0])

    def sweep(self) -> None:
        """Forget spent lockouts and counts of wrong passwords that never locked (the
        table of names tried cannot grow for ever)."""
        self.office.db.execute("DELETE FROM lockout WHERE locked_until < ?", (self.wall(),))

    def _failed(self, name: str) -> None:
        row = self.office.db.execute("SELECT failures, locked_until FROM lockout WHERE name = ?",
                                    (name,)).fetchone()
        # A lockout that ran out starts the count again.
        failures = 1 if row is None or (row[1] and row[1] <= self.wall()) else row[0] + 1
        until = self.wall() + self.section.lockout_s \
            if failures >= self.section.lockout_failures else 0.0
        self.office.db.execute(
            "INSERT INTO lockout (name, failures, locked_until) VALUES (?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET failures = excluded.failures, "
            "locked_until = excluded.locked_until", (name, failures, until))
        if until:
            self.office.log("staff.locked", who=name, for_s=self.section.lockout_s)
