"""A bare MQTT 3.1.1 client on asyncio streams, for load generation only.

A full client library (paho) costs a Python process far more per message than the
broker does, so a fleet of them measures the load generator. This one speaks just
CONNECT, PUBLISH (QoS 0/1), PUBACK, SUBSCRIBE: enough to replay an agent's traffic.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable


def _string(text: str | bytes) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("!H", len(data)) + data


def _packet(first: int, body: bytes) -> bytes:
    length, encoded = len(body), bytearray()
    while True:
        byte, length = length % 128, length // 128
        encoded.append(byte | (0x80 if length else 0))
        if not length:
            return bytes([first]) + bytes(encoded) + body


async def _read_packet(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    first = (await reader.readexactly(1))[0]
    length, shift = 0, 0
    while True:
        byte = (await reader.readexactly(1))[0]
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return first, await reader.readexactly(length)


class WireClient:
    def __init__(self) -> None:
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self._pid = 0
        self.on_publish: Callable[[str, bytes], None] | None = None
        self._task: asyncio.Task[None] | None = None

    async def connect(self, port: int, client_id: str, username: str | None = None,
                      password: str | None = None) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        flags = 0x02 | (0x80 if username else 0) | (0x40 if password else 0)
        body = _string("MQTT") + bytes([4, flags]) + struct.pack("!H", 0) + _string(client_id)
        if username:
            body += _string(username)
        if password:
            body += _string(password)
        self.writer.write(_packet(0x10, body))
        kind, data = await _read_packet(self.reader)
        if kind != 0x20 or data[1] != 0:
            raise ConnectionError(f"CONNACK refused ({data[1] if len(data) > 1 else '?'})")
        self._task = asyncio.create_task(self._read())

    def publish(self, topic: str, payload: bytes, qos: int = 1) -> None:
        assert self.writer is not None
        body = _string(topic)
        if qos:
            self._pid = self._pid % 65535 + 1
            body += struct.pack("!H", self._pid)
        self.writer.write(_packet(0x30 | (qos << 1), body + payload))

    async def subscribe(self, filters: list[str], qos: int = 1) -> None:
        assert self.writer is not None
        body = struct.pack("!H", 1) + b"".join(_string(f) + bytes([qos]) for f in filters)
        self.writer.write(_packet(0x82, body))
        await self.writer.drain()

    async def _read(self) -> None:
        assert self.reader is not None and self.writer is not None
        try:
            while True:
                kind, data = await _read_packet(self.reader)
                if kind >> 4 == 3:              # PUBLISH
                    qos = (kind >> 1) & 3
                    (size,) = struct.unpack("!H", data[:2])
                    topic = data[2:2 + size].decode()
                    rest = data[2 + size:]
                    if qos:
                        self.writer.write(_packet(0x40, rest[:2]))   # PUBACK
                        rest = rest[2:]
                    if self.on_publish is not None:
                        self.on_publish(topic, rest)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self.writer is not None:
            self.writer.close()
