"""A venue-side MQTT client for tests: records every message, signs commands."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from typing import Any

import paho.mqtt.client as mqtt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from venue.signing import sign


class Watcher:
    def __init__(self, port: int, user: str, password: str,
                 topic: str | list[tuple[str, int]] = "mjt/v1/#") -> None:
        self.messages: list[tuple[str, bytes, bool, float]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                  client_id=f"watch-{uuid.uuid4().hex[:8]}")
        self.client.username_pw_set(user, password)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        with self.lock:
            self.messages.append((message.topic, message.payload, message.retain,
                                  time.monotonic()))

    def on(self, topic: str) -> list[bytes]:
        with self.lock:
            return [p for t, p, _, _ in self.messages if t == topic]

    def retained(self, prefix: str) -> dict[str, bytes]:
        """The retained payloads the broker gave on subscribing, by topic."""
        with self.lock:
            return {t: p for t, p, retain, _ in self.messages
                    if retain and t.startswith(prefix)}

    def json_on(self, topic: str) -> list[Any]:
        return [json.loads(p) for p in self.on(topic)]

    def publish(self, topic: str, payload: bytes, qos: int = 1) -> None:
        self.client.publish(topic, payload, qos=qos).wait_for_publish(5)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class VenueKey:
    """The venue's signing key, and commands signed with it."""

    def __init__(self, key_id: str = "venue-1") -> None:
        self.key_id = key_id
        self.private = Ed25519PrivateKey.generate()
        self.public_b64 = base64.b64encode(self.private.public_key().public_bytes(
            Encoding.Raw, PublicFormat.Raw)).decode()

    def command(self, table: str, name: str, args: dict[str, Any] | None = None,
                issued: float | None = None, valid_s: float = 60.0,
                cmd_id: str | None = None) -> dict[str, Any]:
        issued = time.time() if issued is None else issued
        return sign(self.private, {"id": cmd_id or uuid.uuid4().hex, "table": table,
                                   "name": name, "args": args or {}, "key": self.key_id,
                                   "issued": issued, "expires": issued + valid_s})
