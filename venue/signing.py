"""The venue's side of signed commands: the desk signs what it sends, the table's agent
checks what arrives before it reaches the daemon.

The envelope and its stateless check are mjtable_core/signed.py, the same the daemon
runs (firmware/service/signed.py, which checks each command whole: expiry and replay
too). Each side holds its own keys and does its own Ed25519.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from mjtable_core.signed import canonical, envelope, raw_keys, signed_cmd


def load_keys(keys: dict[str, Any]) -> dict[str, Ed25519PublicKey]:
    """`[venue] keys`: key id → base64 raw public key; ValueError names a bad one."""
    return {key_id: Ed25519PublicKey.from_public_bytes(raw)
            for key_id, raw in raw_keys(keys).items()}


def sign(private_key: Ed25519PrivateKey, cmd: dict[str, Any]) -> dict[str, Any]:
    """The envelope for `cmd`, signed with the venue's key."""
    return envelope(cmd, private_key.sign(canonical(cmd)))


class Checker:
    """The stateless half of the daemon's check, for one table: which `cmd` messages are
    the venue's. `wall` is the wall clock (seconds since 1970), `max_s` the longest
    validity a command may claim (`[venue] command_max_s`)."""

    def __init__(self, table: str, keys: dict[str, Ed25519PublicKey],
                 wall: Callable[[], float], max_s: float) -> None:
        self.table = table
        self.keys = keys
        self.wall = wall
        self.max_s = max_s

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
