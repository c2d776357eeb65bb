"""The desk's own session on the venue's broker: signed commands out, answers in.

It publishes on a table's `cmd` topic and hears `cmd/ack`, `event/fault` and the
retained `faults` lists of every table (docs/venue.md, Topics). MQTT 3.1.1, which
both Mosquitto and the embedded broker speak. It reconnects by itself; a command
asked for while the broker is away is refused at once, never queued to go out late.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import sys
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import aiomqtt

from firmware.i18n import _

ROOT = "mjt/v1"
HEARD = (f"{ROOT}/+/cmd/ack", f"{ROOT}/+/event/fault", f"{ROOT}/+/faults")
RETRY_S = 1.0


class NotConnected(Exception):
    """The broker is not reachable now."""


def broker_address(url: str) -> tuple[str, int, bool]:
    parts = urlsplit(url)
    tls = parts.scheme == "mqtts"
    return parts.hostname or "127.0.0.1", parts.port or (8883 if tls else 1883), tls


class Wire:
    def __init__(self, broker: str, username: str, password: str, tls_ca: str = "",
                 on_message: Callable[[str, bytes], None] | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.broker = broker
        self.username = username
        self.password = password
        self.tls_ca = tls_ca
        self.on_message = on_message or (lambda topic, payload: None)
        self.log = log or (lambda line: print(f"mjtable venue: {line}", file=sys.stderr,
                                              flush=True))
        self.client: aiomqtt.Client | None = None
        self.connected = asyncio.Event()

    def _client(self) -> aiomqtt.Client:
        host, port, tls = broker_address(self.broker)
        context = ssl.create_default_context(cafile=self.tls_ca or None) if tls else None
        return aiomqtt.Client(host, port, identifier=f"mjtable-desk-{uuid.uuid4().hex[:8]}",
                              username=self.username or None,
                              password=self.password or None, tls_context=context,
                              protocol=aiomqtt.ProtocolVersion.V311, keepalive=30, timeout=10)

    async def run(self) -> None:
        """Until cancelled: one session, again after every loss."""
        while True:
            try:
                async with self._client() as client:
                    for topic in HEARD:
                        await client.subscribe(topic, qos=1)
                    self.client = client
                    self.connected.set()
                    async for message in client.messages:
                        with contextlib.suppress(Exception):    # one bad message, not all
                            self.on_message(str(message.topic),
                                            bytes(message.payload))  # type: ignore[arg-type]
            except aiomqtt.MqttError as exc:
                self.log(_("broker {broker}: {error}").format(broker=self.broker, error=exc))
            finally:
                self.client = None
                self.connected.clear()
            await asyncio.sleep(RETRY_S)

    async def publish(self, topic: str, payload: bytes) -> None:
        client = self.client
        if client is None:
            raise NotConnected(self.broker)
        try:
            await client.publish(topic, payload, qos=1)
        except aiomqtt.MqttError as exc:
            raise NotConnected(str(exc)) from None


def table_of(topic: str) -> tuple[str, str] | None:
    """(table, rest) of a topic under mjt/v1/, else None."""
    parts = topic.split("/", 3)
    if len(parts) < 4 or f"{parts[0]}/{parts[1]}" != ROOT:
        return None
    return parts[2], parts[3]


def json_of(payload: bytes) -> Any:
    import json

    try:
        return json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
