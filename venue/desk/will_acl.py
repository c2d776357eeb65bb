"""The embedded broker's last wills held to the same ACL as its publishes (amqtt).

amqtt checks every PUBLISH against `publish_acl`, but the will a client declares in
CONNECT is published by the broker itself when the client drops, and no plugin sees
it: the demo's read-only watcher sent fault pages, hand records and a retained
`offline` through its will. A CONNECT whose will its user may not publish is refused
(Mosquitto does the same with its ACL: tests/venue/test_will_acl.py).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from amqtt.adapters import ReaderAdapter, WriterAdapter
from amqtt.broker import Broker
from amqtt.errors import AMQTTError, MQTTError, NoDataError
from amqtt.mqtt.connack import NOT_AUTHORIZED, ConnackPacket
from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
from amqtt.plugins.base import BaseAuthPlugin
from amqtt.plugins.topic_checking import TopicAccessControlListPlugin
from amqtt.session import Session


class WillAclPlugin(BaseAuthPlugin):
    async def authenticate(self, *, session: Session) -> bool | None:
        """False for a will its user may not publish; None (no say) without a will."""
        if not session.will_flag:
            return None
        topic = session.will_topic or ""
        allowed = self.config.publish_acl.get(session.username or "anonymous", [])
        return any(TopicAccessControlListPlugin.topic_ac(topic, pattern)
                   for pattern in allowed)

    @dataclass
    class Config:
        publish_acl: dict[str, list[str]] = field(default_factory=dict)


OWNERS_KEPT = 4096      # client ids remembered with their user (the oldest forgotten)


class GatedBroker(Broker):
    """amqtt, with a CONNECT judged before it touches any session.

    amqtt deletes or updates the session of a CONNECT's client id (its subscriptions,
    its will, its user) before it authenticates the CONNECT, and takes the live
    connection over whether or not it then passes. With a table's client id, the
    demo watcher or a wrong password stripped the table's `cmd` subscription (it heard
    no venue command again, unaware), or set its will to a fault page of the sender's
    choosing and kicked it off, so the broker published that page as the table's. A
    CONNECT is read here first: it goes on only if its user, password and will pass
    every plugin and its client id is not another user's.
    """

    def __init__(self, *args: Any, read_only: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Client id -> the user it is. A read-only user (the demo's public watcher) owns
        # none: claiming a table's id while the table was away would lock it out.
        self._owners: dict[str, str | None] = {}
        self._read_only = read_only

    async def _client_connected(self, listener_name: str, reader: ReaderAdapter,
                                writer: WriterAdapter) -> None:
        recording = _Recording(reader)
        try:
            _handler, session = await BrokerProtocolHandler.init_from_connect(
                recording, writer, self.plugins_manager)
        except (AMQTTError, MQTTError, NoDataError, ValueError):
            with contextlib.suppress(Exception):
                await writer.close()
            return
        if not await self._admitted(session):
            with contextlib.suppress(Exception):
                writer.write(ConnackPacket.build(0, NOT_AUTHORIZED).to_bytes())
                await writer.drain()
                await writer.close()
            return
        await super()._client_connected(listener_name, _Replay(recording.data, reader), writer)

    async def _admitted(self, session: Session) -> bool:
        client_id = session.client_id or ""
        if client_id and client_id in self._owners and \
                self._owners[client_id] != session.username:
            return False
        if not await self._authenticate(session, None):     # type: ignore[arg-type]
            return False
        if client_id and session.username not in self._read_only:
            if client_id not in self._owners and len(self._owners) >= OWNERS_KEPT:
                del self._owners[next(iter(self._owners))]
            self._owners[client_id] = session.username
        return True


class _Recording(ReaderAdapter):
    """A reader that keeps what it read (the CONNECT, read twice)."""

    def __init__(self, inner: ReaderAdapter) -> None:
        self.inner = inner
        self.data = bytearray()

    async def read(self, n: int = -1) -> bytes:
        data = await self.inner.read(n)
        self.data += data
        return data

    def feed_eof(self) -> None:
        self.inner.feed_eof()


class _Replay(ReaderAdapter):
    """What was read already, then the connection."""

    def __init__(self, first: bytes | bytearray, inner: ReaderAdapter) -> None:
        self.first = bytearray(first)
        self.inner = inner

    async def read(self, n: int = -1) -> bytes:
        if not self.first:
            return await self.inner.read(n)
        if n == -1 or n >= len(self.first):
            data, self.first = bytes(self.first), bytearray()
            if n != -1 and n > len(data):
                data += await self.inner.read(n - len(data))
            return data
        data, self.first = bytes(self.first[:n]), self.first[n:]
        return data

    def feed_eof(self) -> None:
        self.inner.feed_eof()
