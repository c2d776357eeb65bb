"""Named technicians: who may move motors, clear faults and release an e-stop.

Tokens are never stored: only an argon2id hash with a per-name random salt, in
`technicians.json` in the state directory (mode 0600). Checks compare in constant
time. A hash made with weaker parameters (an older scrypt entry, or a cheaper cost
set for tests) is replaced by one at the current cost at the next good login.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argon2.low_level import Type, hash_secret_raw

from firmware.api.lookalike import skeleton
from firmware.i18n import _
from firmware.printable import printable
from mjtable_core.names import check_name, technician_name

KEY_BYTES = 32
SALT_BYTES = 16
MIN_TOKEN_CHARS = 12
MAX_TOKEN_CHARS = 1024


@dataclass(frozen=True)
class Cost:
    """argon2id cost: the OWASP minimum by default (19 MiB, 2 passes, 1 lane):
    ~50 ms per check on a laptop, a few times that on a Pi."""

    memory_kib: int = 19456
    passes: int = 2
    lanes: int = 1

    def as_dict(self) -> dict[str, int]:
        return {"m": self.memory_kib, "t": self.passes, "p": self.lanes}

    def weaker_than(self, entry: dict[str, Any]) -> bool:
        """True when `entry` was hashed with less work than this cost asks for."""
        if entry.get("kdf") != "argon2id":
            return True
        return int(entry.get("m", 0)) < self.memory_kib or int(entry.get("t", 0)) < self.passes


DEFAULT_COST = Cost()


class AuthError(Exception):
    """A refused credential; `str()` is what the technician is told."""


def _argon2(token: str, salt: bytes, m: int, t: int, p: int) -> bytes:
    return hash_secret_raw(token.encode("utf-8", "surrogatepass"), salt, time_cost=t,
                           memory_cost=m, parallelism=p, hash_len=KEY_BYTES, type=Type.ID)


def _scrypt(token: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    # Only to check entries written before argon2id; they are upgraded on success.
    return hashlib.scrypt(token.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p,
                          maxmem=256 * 1024 * 1024, dklen=KEY_BYTES)


def _derive(token: str, salt: bytes, entry: dict[str, Any]) -> bytes:
    if entry.get("kdf") == "scrypt":
        return _scrypt(token, salt, int(entry["n"]), int(entry["r"]), int(entry["p"]))
    return _argon2(token, salt, int(entry["m"]), int(entry["t"]), int(entry["p"]))


def check_token(token: str) -> str:
    if not MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS:
        raise ValueError(_("the token must be {least} to {most} characters long").format(
            least=MIN_TOKEN_CHARS, most=MAX_TOKEN_CHARS))
    return token


class Technicians:
    """The technicians file: add, remove, verify (and upgrade weak hashes)."""

    def __init__(self, path: str | Path, cost: Cost = DEFAULT_COST) -> None:
        self.path = Path(path)
        self.cost = cost

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        return data.get("technicians", {}) if isinstance(data, dict) else {}

    def _save(self, table: dict[str, dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)      # whatever the umask, and whatever a stale tmp had
        with os.fdopen(fd, "w") as fh:
            json.dump({"technicians": table}, fh, indent=1, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def names(self) -> list[str]:
        return sorted(self._load())

    def known(self, name: str) -> bool:
        return technician_name(name) in self._load()

    def _entry(self, token: str) -> dict[str, Any]:
        salt = secrets.token_bytes(SALT_BYTES)
        cost = self.cost.as_dict()
        return {"salt": salt.hex(), "kdf": "argon2id", **cost,
                "hash": _argon2(token, salt, cost["m"], cost["t"], cost["p"]).hex()}

    def add(self, name: str, token: str) -> None:
        """Add or replace `name` with a new token (only its salted hash is kept); a new
        name that reads as another technician's (`ai`, `аі`) is refused."""
        name = check_name(name)
        check_token(token)
        table = self._load()
        if name not in table:
            alike = [other for other in table if skeleton(other) == skeleton(name)]
            if alike:
                raise ValueError(_("technician name “{name}” reads the same as “{other}”, "
                                   "who is already a technician: choose a name that reads "
                                   "differently").format(name=printable(name),
                                                         other=printable(alike[0])))
        table[name] = self._entry(token)
        self._save(table)

    def remove(self, name: str) -> bool:
        name = technician_name(name)
        table = self._load()
        if table.pop(name, None) is None:
            return False
        self._save(table)
        return True

    def verify(self, name: str, token: str) -> bool:
        """Constant-time check; an unknown name costs the same work as a known one.
        A good token whose hash is weaker than the current cost is re-hashed."""
        table = self._load()
        name = technician_name(name)
        entry = table.get(name)
        if entry is None or len(token) > MAX_TOKEN_CHARS:
            cost = self.cost.as_dict()
            _argon2(token[:MAX_TOKEN_CHARS], b"\0" * SALT_BYTES, cost["m"], cost["t"],
                    cost["p"])
            return False
        derived = _derive(token, bytes.fromhex(entry["salt"]), entry)
        ok = hmac.compare_digest(derived, bytes.fromhex(entry["hash"]))
        if ok and self.cost.weaker_than(entry):
            table[name] = self._entry(token)
            # Only a stronger hash is lost on a card gone read-only: the technician
            # who comes to clear that fault must still get in.
            with contextlib.suppress(OSError):
                self._save(table)
        return ok
