"""Signed commands from the venue, checked whole in the daemon.

The envelope, the commands the network may ask for and the stateless part of the check
are mjtable_core/signed.py (the table's agent runs that part too); here the daemon
holds the venue's public keys and adds what needs its state, in this order after the
stateless part: an expired or not yet valid command, one valid for longer than
`[venue] command_max_s`, or an id already seen is refused (the refusal is logged and
answered). Seen ids are kept on disk for a day after they expire, so neither a restart
nor the clock set back reopens a replay.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from mjtable_core.signed import (
    BAD_ARGS,
    BAD_SIGNATURE,
    COMMANDS,
    EXPIRED,
    MALFORMED,
    NOT_ALLOWED,
    NOT_YET,
    OTHER_TABLE,
    REPLAYED,
    TOO_LONG,
    UNKNOWN_KEY,
    Command,
    Refused,
    raw_keys,
    signed_cmd,
)

__all__ = ["BAD_ARGS", "BAD_SIGNATURE", "COMMANDS", "EXPIRED", "FILE_NAME", "MALFORMED",
           "NOT_ALLOWED", "NOT_YET", "OTHER_TABLE", "REPLAYED", "TOO_LONG", "UNKNOWN_KEY",
           "Command", "Refused", "Verifier", "load_keys"]

FILE_NAME = "commands.sqlite"
SEEN_KEPT_S = 86400.0  # a used id is remembered this long after its command expired
SKEW_S = 30.0       # a command issued this far in the future is still taken (clock skew)


def load_keys(keys: dict[str, Any]) -> dict[str, Ed25519PublicKey]:
    """`[venue] keys`: key id → base64 raw public key; ValueError names a bad one."""
    return {key_id: Ed25519PublicKey.from_public_bytes(raw)
            for key_id, raw in raw_keys(keys).items()}


class Verifier:
    """Checks envelopes for one table; `wall` is the wall clock (seconds since 1970)."""

    def __init__(self, table: str, keys: dict[str, Ed25519PublicKey],
                 wall: Callable[[], float], max_s: float, path: Path | None = None) -> None:
        self.table = table
        self.keys = keys
        self.wall = wall
        self.max_s = max_s
        self.db = sqlite3.connect(":memory:" if path is None else path, isolation_level=None,
                                  check_same_thread=False)
        if path is not None:
            self.db.execute("PRAGMA journal_mode=WAL")
            # FULL: each used id is on the disk before its command runs, so a power
            # cut just after cannot reopen its replay. Only a command that passed its
            # signature gets here: a few writes an hour, never a flood's.
            self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS seen (id TEXT PRIMARY KEY, expires REAL)")

    def check(self, envelope: Any) -> Command:
        """The command, or Refused. Marks its id as used."""
        cmd = self.signed(envelope)
        args = cmd.get("args", {})
        now = self.wall()
        if cmd["expires"] - cmd["issued"] > self.max_s:
            raise Refused(TOO_LONG)
        if now > cmd["expires"]:
            raise Refused(EXPIRED)
        if cmd["issued"] > now + SKEW_S:
            raise Refused(NOT_YET)
        # Kept a day past their expiry: NTP setting a fast clock back must not reopen
        # the replay of commands already forgotten.
        self.db.execute("DELETE FROM seen WHERE expires < ?", (now - SEEN_KEPT_S,))
        try:
            self.db.execute("INSERT INTO seen (id, expires) VALUES (?, ?)",
                            (cmd["id"], cmd["expires"]))
        except sqlite3.IntegrityError:
            raise Refused(REPLAYED, cmd["id"][:64]) from None
        return Command(cmd["id"], cmd["name"], args, cmd["key"], float(cmd["issued"]),
                       float(cmd["expires"]))

    def signed(self, envelope: Any) -> dict[str, Any]:
        """The envelope's `cmd` if it is well formed, allowed, signed by a known key and
        for this table, else Refused (mjtable_core/signed.py)."""
        return signed_cmd(envelope, self.table, self.keys, self._verify)

    def _verify(self, key_id: str, signature: bytes, message: bytes) -> bool:
        try:
            self.keys[key_id].verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True

    def close(self) -> None:
        self.db.close()
