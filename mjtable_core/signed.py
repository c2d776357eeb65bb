"""Signed commands from the venue: the envelope, and its check up to the signature.

A command is {"cmd": {...}, "sig": base64}, the signature Ed25519 over the canonical
JSON of "cmd" (sorted keys, no spaces, UTF-8). "cmd" holds its id, the table it is
for, its name, its args, the key id, and when it was issued and expires (wall time,
Unix seconds). The table's daemon checks each one whole (firmware/service/signed.py:
expiry and replay too), the table's agent runs the stateless part on every message
to tell the venue's commands from junk, and the venue's desk signs them.

Both sides hold their own keys and do their own Ed25519 (core imports no third-party
package): `signed_cmd` is handed a `verify(key_id, signature, message)` that says
whether the signature is that key's. Checked in this order, refused for: a malformed
envelope, a name not in COMMANDS (jog, clear, test, test mode are never accepted from
the network), an unknown key id, a bad signature, another table's command.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from typing import Any

from mjtable_core.i18n import N_

# None of these moves a motor, except the e-stop, which only stops them.
COMMANDS = ("enable", "disable", "identify", "rebirth", "usage_ack", "estop")
KEY_BYTES = 32      # an Ed25519 public key

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

# (key id, signature, message) -> whether the signature is that key's.
Verify = Callable[[str, bytes, bytes], bool]


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


def raw_keys(keys: Mapping[str, Any]) -> dict[str, bytes]:
    """`[venue] keys`: key id → base64 raw public key, decoded; ValueError names a bad
    one."""
    loaded = {}
    for key_id, text in keys.items():
        try:
            raw = base64.b64decode(str(text), validate=True)
        except (ValueError, binascii.Error):
            raw = b""
        if len(raw) != KEY_BYTES:
            raise ValueError(f"[venue] keys: {key_id} is not a base64 Ed25519 public key "
                             "(32 bytes)")
        loaded[str(key_id)] = raw
    return loaded


def signed_cmd(envelope: Any, table: str, known: Container[str],
               verify: Verify) -> dict[str, Any]:
    """The envelope's `cmd` if it is well formed, allowed, signed by a known key and
    for `table`, else Refused: the stateless part of the daemon's check."""
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
    if cmd["key"] not in known:
        raise Refused(UNKNOWN_KEY, cmd["key"][:64])
    try:
        signature = base64.b64decode(envelope["sig"], validate=True)
    except (ValueError, binascii.Error):
        raise Refused(BAD_SIGNATURE) from None
    if not verify(cmd["key"], signature, canonical(cmd)):
        raise Refused(BAD_SIGNATURE)
    if cmd["table"] != table:
        raise Refused(OTHER_TABLE, cmd["table"][:64])
    return cmd


def envelope(cmd: dict[str, Any], signature: bytes) -> dict[str, Any]:
    """The envelope for `cmd` and its signature over `canonical(cmd)`."""
    return {"cmd": cmd, "sig": base64.b64encode(signature).decode()}
