"""API keys of the venue's integrators (a mini-program's back end that books tables).

A key is `mjk_<key id>_<secret>`: the key id finds the row, and only a SHA-256 of the
secret is stored. The secret is 32 random bytes, so a fast hash is enough (argon2 is
for passwords people choose). Keys are printed once, when issued; revoking an
integrator revokes all its keys.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from firmware.i18n import _
from venue.desk.office import Office

PREFIX = "mjk"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")     # fullmatch: no trailing newline


@dataclass(frozen=True)
class Integrator:
    name: str
    key_id: str


def check_integrator(name: str) -> str:
    if not NAME.fullmatch(name or ""):
        raise ValueError(_("integrator name “{name}” is not valid: use 1–64 letters, digits, "
                           "'.', '_' or '-', starting with a letter or digit").format(
                               name=(name or "")[:80]))
    return name


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Integrators:
    def __init__(self, office: Office, wall: Callable[[], float] = time.time) -> None:
        self.office = office
        self.wall = wall

    def issue(self, name: str) -> str:
        """A new key for `name`, shown once."""
        name = check_integrator(name)
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        self.office.db.execute("INSERT INTO integrators (key_id, name, secret_hash, created) "
                              "VALUES (?, ?, ?, ?)", (key_id, name, _digest(secret),
                                                      self.wall()))
        self.office.log("integrator.issued", who=name, key_id=key_id)
        return f"{PREFIX}_{key_id}_{secret}"

    def revoke(self, name: str) -> int:
        """Revoke every live key of `name`; how many there were."""
        count = self.office.db.execute(
            "UPDATE integrators SET revoked = ? WHERE name = ? AND revoked IS NULL",
            (self.wall(), name)).rowcount
        if count:
            self.office.log("integrator.revoked", who=name, keys=count)
        return count

    def listed(self) -> list[dict[str, object]]:
        return self.office.all(
            "SELECT name, key_id, created, revoked FROM integrators ORDER BY name, created")

    def check(self, key: str | None) -> Integrator | None:
        """The integrator a presented key belongs to, or None (unknown, forged, revoked)."""
        parts = (key or "").split("_", 2)
        if len(parts) != 3 or parts[0] != PREFIX or len(key or "") > 200:
            return None
        row = self.office.one(
            "SELECT name, secret_hash FROM integrators WHERE key_id = ? AND revoked IS NULL",
            (parts[1],))
        # Compared in constant time even for an unknown key id.
        stored = row["secret_hash"] if row else "0" * 64
        if not hmac.compare_digest(stored, _digest(parts[2])) or row is None:
            return None
        return Integrator(row["name"], parts[1])
