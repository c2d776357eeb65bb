"""Signed commands from the venue: the only things the network may ask of a table.

A command is {"cmd": {...}, "sig": base64}, the signature Ed25519 over the canonical
JSON of "cmd" (sorted keys, no spaces, UTF-8). "cmd" holds its id, the table it is
for, its name, its args, the key id, and when it was issued and expires (wall time,
Unix seconds). The daemon checks each one here, in this order, and refuses it (the
refusal is logged and answered) for: a malformed envelope, a name not in COMMANDS
(jog, clear, test, test mode are never accepted from the network), an unknown key
id, a bad signature, another table's command, an expired or not yet valid one, one
valid for longer than `[venue] command_max_s`, or an id already seen. Seen ids are
kept on disk for a day after they expire, so neither a restart nor the clock set back
reopens a replay.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from firmware.i18n import N_

FILE_NAME = "commands.sqlite"
# None of these moves a motor, except the e-stop, which only stops them.
COMMANDS = ("enable", "disable", "identify", "rebirth", "usage_ack", "estop")
SEEN_KEPT_S = 86400.0  # a used id is remembered this long after its command expired
SKEW_S = 30.0       # a command issued this far in the future is still taken (clock skew)

# Why a command was refused: the words a venue's operator reads in cmd/ack.
MALFORMED = N_("malformed command")
NOT_ALLOWED = N_("command not allowed from the network")
UNKNOWN_KEY = N_("unknown key id")
BAD_SIGNATURE = N_("bad signature")
OTHER_TABLE = N_("command for another table")
EXPIRED = N_("command expired")
NOT_YET = N_("command issued in the future")
TOO_LONG = N_("command valid for too long")
REPLAYED = N_("command id already used")
BAD_ARGS = N_("bad arguments")


class Refused(Exception):
    """A command the table will not run; `why` is one of the constants above."""

    def __init__(self, why: str, detail: str = "") -> None:
        super().__init__(why)
        self.why = why
        self.detail = detail


@dataclass(frozen=True)
class Command:
    id: str
    name: str
    args: dict[str, Any]
    key: str
    issued: float
    expires: float


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:       # an integer past a float
        return False


def canonical(cmd: dict[str, Any]) -> bytes:
    return json.dumps(cmd, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()


def load_keys(keys: dict[str, Any]) -> dict[str, Ed25519PublicKey]:
    """`[venue] keys`: key id → base64 raw public key; ValueError names a bad one."""
    loaded = {}
    for key_id, text in keys.items():
        try:
            loaded[str(key_id)] = Ed25519PublicKey.from_public_bytes(
                base64.b64decode(str(text), validate=True))
        except (ValueError, binascii.Error):
            raise ValueError(f"[venue] keys: {key_id} is not a base64 Ed25519 public key "
                             "(32 bytes)") from None
    return loaded


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
        for this table, else Refused: the stateless part of `check`, which the agent
        runs on every `cmd` message to tell the venue's commands from junk."""
        if not isinstance(envelope, dict) or not isinstance(envelope.get("cmd"), dict) \
                or not isinstance(envelope.get("sig"), str):
            raise Refused(MALFORMED, "needs {\"cmd\": {...}, \"sig\": base64}")
        cmd = envelope["cmd"]
        fields = {"id": str, "table": str, "name": str, "key": str}
        for name, kind in fields.items():
            if not isinstance(cmd.get(name), kind) or not cmd[name]:
                raise Refused(MALFORMED, f"cmd.{name} missing")
        for name in ("issued", "expires"):
            # NaN passes every comparison below: a command valid forever.
            if not isinstance(cmd.get(name), int | float) or isinstance(cmd[name], bool) \
                    or not _finite(cmd[name]):
                raise Refused(MALFORMED, f"cmd.{name} missing")
        args = cmd.get("args", {})
        if not isinstance(args, dict):
            raise Refused(MALFORMED, "cmd.args must be an object")
        if cmd["name"] not in COMMANDS:
            raise Refused(NOT_ALLOWED, cmd["name"][:32])
        key = self.keys.get(cmd["key"])
        if key is None:
            raise Refused(UNKNOWN_KEY, cmd["key"][:64])
        try:
            key.verify(base64.b64decode(envelope["sig"], validate=True), canonical(cmd))
        except (InvalidSignature, ValueError, binascii.Error):
            raise Refused(BAD_SIGNATURE) from None
        if cmd["table"] != self.table:
            raise Refused(OTHER_TABLE, cmd["table"][:64])
        return cmd

    def close(self) -> None:
        self.db.close()


def sign(private_key: Any, cmd: dict[str, Any]) -> dict[str, Any]:
    """The envelope for `cmd`, signed with an Ed25519PrivateKey (the venue's side)."""
    return {"cmd": cmd, "sig": base64.b64encode(private_key.sign(canonical(cmd))).decode()}
