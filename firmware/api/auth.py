"""Named technicians: who may move motors, clear faults and release an e-stop.

Tokens are never stored: only a scrypt hash with a per-name random salt, in
`technicians.json` in the state directory (mode 0600). Checks compare in constant
time. Repeated failures lock that name out for a while, measured on the
controller's clock (the firmware never reads the wall clock).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware.clock import Clock

# scrypt cost: ~0.1 s and 16 MiB per check on a laptop, a few times that on a Pi —
# slow for a guesser, still quick for a technician. Checks run off the loop.
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}
KEY_BYTES = 32
SALT_BYTES = 16
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
MIN_TOKEN_CHARS = 8
MAX_TOKEN_CHARS = 1024
LOCKOUT_FAILURES = 5
LOCKOUT_S = 300.0
TRACKED_NAMES = 1000   # failure counters kept, oldest forgotten first


class AuthError(Exception):
    """A refused credential; `str()` is what the technician is told."""


def _derive(token: str, salt: bytes, params: dict[str, int]) -> bytes:
    return hashlib.scrypt(token.encode(), salt=salt, n=params["n"], r=params["r"],
                          p=params["p"], maxmem=64 * 1024 * 1024, dklen=KEY_BYTES)


def check_name(name: str) -> str:
    if not NAME_RE.match(name or ""):
        raise ValueError(f"technician name {name!r} is not valid: use 1–32 letters, digits, "
                         "'.', '_' or '-', starting with a letter or digit")
    return name


class Technicians:
    """The technicians file: add, remove, verify."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

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
        with os.fdopen(fd, "w") as fh:
            json.dump({"technicians": table}, fh, indent=1, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def names(self) -> list[str]:
        return sorted(self._load())

    def add(self, name: str, token: str) -> None:
        """Add or replace `name` with a new token (only its salted hash is kept)."""
        check_name(name)
        if not MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS:
            raise ValueError(f"the token must be {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} "
                             "characters long")
        salt = secrets.token_bytes(SALT_BYTES)
        table = self._load()
        table[name] = {"salt": salt.hex(), "hash": _derive(token, salt, SCRYPT).hex(),
                       "kdf": "scrypt", **SCRYPT}
        self._save(table)

    def remove(self, name: str) -> bool:
        table = self._load()
        if table.pop(name, None) is None:
            return False
        self._save(table)
        return True

    def verify(self, name: str, token: str) -> bool:
        """Constant-time check; an unknown name costs the same work as a known one."""
        entry = self._load().get(name)
        if entry is None or len(token) > MAX_TOKEN_CHARS:
            _derive(token[:MAX_TOKEN_CHARS], b"\0" * SALT_BYTES, SCRYPT)
            return False
        params = {k: int(entry[k]) for k in ("n", "r", "p")}
        derived = _derive(token, bytes.fromhex(entry["salt"]), params)
        return hmac.compare_digest(derived, bytes.fromhex(entry["hash"]))


@dataclass
class _Failures:
    count: int = 0
    locked_until: float = 0.0


class Lockout:
    """Counts failures per tried name on the controller's clock."""

    def __init__(self, clock: Clock, failures: int = LOCKOUT_FAILURES,
                 lock_s: float = LOCKOUT_S) -> None:
        self.clock = clock
        self.failures = failures
        self.lock_s = lock_s
        self._by_name: OrderedDict[str, _Failures] = OrderedDict()

    def locked_for(self, name: str) -> float:
        """Seconds (controller time) until `name` may try again; 0 when it may now."""
        entry = self._by_name.get(name)
        if entry is None:
            return 0.0
        return max(0.0, entry.locked_until - self.clock.now())

    def failed(self, name: str) -> bool:
        """Count a failure; True when this one locks the name out."""
        entry = self._by_name.pop(name, None) or _Failures()
        self._by_name[name] = entry
        while len(self._by_name) > TRACKED_NAMES:
            self._by_name.popitem(last=False)
        entry.count += 1
        if entry.count >= self.failures:
            entry.count = 0
            entry.locked_until = self.clock.now() + self.lock_s
            return True
        return False

    def succeeded(self, name: str) -> None:
        self._by_name.pop(name, None)
