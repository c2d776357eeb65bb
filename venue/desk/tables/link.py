"""The venue's side of the broker: every table's topics into the Fleet, hand records
into the Store, acknowledged with a signed `usage_ack`, and signed commands out.

The venue's key signs whatever it sends (venue/signing.py); the tables check it.
Acknowledgements are gathered for ACK_EVERY_S, so an agent re-sending a hundred
records gets one `usage_ack`, not a hundred.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import ssl
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware.i18n import _
from venue.brokerwords import login_refused, refused_line
from venue.desk.config import BrokerSection
from venue.desk.tables.fleet import SUBSCRIPTIONS, Fleet
from venue.desk.tables.store import Store
from venue.signing import sign
from venue.wire import Topics, broker_address, payload

RETRY_S = 1.0
ACK_EVERY_S = 0.5
COMMAND_VALID_S = 60.0


class NotConnected(Exception):
    """The broker is not reachable now: the command was not sent."""


def load_key(path: str) -> Ed25519PrivateKey | None:
    """The venue's private key from a file of base64 raw bytes (None: no file set).
    Raises ValueError with one clear line when the file is unreadable or wrong."""
    if not path:
        return None
    try:
        raw = base64.b64decode(Path(path).read_text(encoding="ascii").strip(), validate=True)
        return Ed25519PrivateKey.from_private_bytes(raw)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(_("{path}: not a base64 Ed25519 private key (32 bytes): {error}")
                         .format(path=path, error=exc)) from None


def new_key(path: Path) -> str:
    """A new private key written to `path` (owner-only, never over an existing file);
    its public half in base64, as the tables' `[venue] keys` take it."""
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        PublicFormat,
    )

    key = Ed25519PrivateKey.generate()
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(base64.b64encode(raw).decode() + "\n")
    return base64.b64encode(key.public_key().public_bytes(Encoding.Raw,
                                                          PublicFormat.Raw)).decode()


class BrokerLink:
    def __init__(self, broker: BrokerSection, fleet: Fleet, store: Store,
                 key: Ed25519PrivateKey | None = None,
                 log: Callable[[str], None] | None = None, url: str | None = None) -> None:
        self.broker = broker
        self.url = url or broker.url
        self.fleet = fleet
        self.store = store
        self.key = key
        self.log = log or (lambda line: print(f"mjtable venue: {line}", file=sys.stderr,
                                              flush=True))
        self.connected = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._stopping = asyncio.Event()
        self._to_ack: set[str] = set()
        self._complained: set[tuple[str, str]] = set()
        fleet.on_hand.append(self._on_hand)
        store.on_conflict.append(self._conflict)

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        said = ""       # the last error told: a broker down for an hour is one line
        while not self._stopping.is_set():
            try:
                async with self._connect() as client:
                    self._client = client
                    said = ""
                    self.log(_("on {broker}").format(broker=self.url))
                    await self._session(client)
            except aiomqtt.MqttError as exc:
                if str(exc) != said:
                    said = str(exc)
                    self.log(refused_line(self.url, self.broker.username,
                                          "[broker] username and password")
                             if login_refused(exc) else
                             _("broker {broker}: {error}").format(broker=self.url, error=exc))
            finally:
                self._client = None
                self.connected.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), RETRY_S)

    def _connect(self) -> aiomqtt.Client:
        host, port, tls = broker_address(self.url)
        context = ssl.create_default_context(cafile=self.broker.tls_ca or None) if tls else None
        # A persistent session (3.1.1, every broker has it): records published while the
        # venue restarts wait at the broker.
        return aiomqtt.Client(host, port, identifier=f"mjtable-venue-{self.broker.username}",
                              username=self.broker.username or None,
                              password=self.broker.password or None,
                              protocol=aiomqtt.ProtocolVersion.V311, clean_session=False,
                              tls_context=context, keepalive=30, timeout=10)

    async def _session(self, client: aiomqtt.Client) -> None:
        for topic in SUBSCRIPTIONS:
            await client.subscribe(topic, qos=1)
        self.connected.set()
        acks = asyncio.create_task(self._acks(client))
        stop = asyncio.create_task(self._stopping.wait())
        feed = asyncio.create_task(self._feed(client))
        try:
            done, _pending = await asyncio.wait([feed, acks, stop],
                                                return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is not stop and task.exception() is not None:
                    raise task.exception()      # type: ignore[misc]
        finally:
            for task in (feed, acks, stop):
                task.cancel()
            await asyncio.gather(feed, acks, stop, return_exceptions=True)

    async def _feed(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            body = message.payload
            raw = body if isinstance(body, bytes) else str(body or "").encode()
            topic = str(message.topic)
            try:
                self.fleet.feed(topic, raw)
            except Exception as exc:
                # One message a part of the venue cannot take (a bug, a table's
                # garbage) must not end the link: it would never come back.
                self._complain(topic, exc)

    def _complain(self, topic: str, exc: Exception) -> None:
        """Said once per topic and kind of error: a table repeating it floods nobody."""
        said = (topic, type(exc).__name__)
        if said in self._complained or len(self._complained) > 1000:
            return
        self._complained.add(said)
        self.log(_("ignored a message on {topic}: {error}").format(
            topic=topic[:120], error=repr(exc)[:200]))

    def _on_hand(self, table: str, record: dict[str, Any]) -> None:
        if self.store.add(table, record):
            self.fleet.count_hand(table, record)
        self._to_ack.add(table)

    def _conflict(self, table: str, held: dict[str, Any], aside: dict[str, Any]) -> None:
        self.log(_("hand record {table} boot {boot} seq {seq} differs from the one held: "
                   "kept aside, shown on the usage page").format(
            table=table[:64], boot=held["boot"], seq=held["seq"]))

    async def _acks(self, client: aiomqtt.Client) -> None:
        while True:
            await asyncio.sleep(ACK_EVERY_S)
            tables, self._to_ack = self._to_ack, set()
            for table in sorted(tables):
                told = self.fleet.table(table).usage.get("acked")
                told = told if isinstance(told, int) else 0
                seq = self.store.ackable(table, told)
                # Again while the table has not heard it: an ack can be lost too.
                if seq <= told or self.key is None:
                    continue
                await self._publish(client, table, "usage_ack", {"seq": seq})
                self.store.acknowledged(table, seq)

    async def command(self, table: str, name: str, args: dict[str, Any] | None = None,
                      valid_s: float = COMMAND_VALID_S) -> dict[str, Any]:
        """Sign and publish one command for `table`; the envelope sent. Raises
        NotConnected (no broker now) or RuntimeError (no key to sign with)."""
        client = self._client
        if client is None:
            raise NotConnected(_("the broker is not connected"))
        return await self._publish(client, table, name, args or {}, valid_s)

    async def _publish(self, client: aiomqtt.Client, table: str, name: str,
                       args: dict[str, Any], valid_s: float = COMMAND_VALID_S
                       ) -> dict[str, Any]:
        if self.key is None:
            raise RuntimeError(_("no venue key: set [broker] key_file"))
        issued = time.time()
        envelope = sign(self.key, {"id": uuid.uuid4().hex, "table": table, "name": name,
                                   "args": args, "key": self.broker.key_id,
                                   "issued": issued, "expires": issued + valid_s})
        await client.publish(Topics(table).cmd, payload(envelope), qos=1)
        return envelope
