"""A last will is held to the publish ACL: the demo broker's read-only watcher (and a
table speaking for another) cannot publish through the will the broker sends for it.

Before: as demo/demo, with the printed password, any local user made 50 forged fault
pages in 12 s, replaced a real hand record in billing and kept a retained `offline` on a
table that played on. Each attempt here declares its will in a raw CONNECT and then
drops the connection without DISCONNECT, as a crashed client would: whatever the
broker says to the CONNECT, no message may reach the venue."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import time
from pathlib import Path

import pytest

from bench.helpers.venue_brokers import (
    VENUE_PASSWORD,
    VENUE_USER,
    Mosquitto,
    free_port,
    mosquitto_missing,
    table_password,
)
from tests.venue.watch import Watcher
from venue.desk.demo import WATCHER, EmbeddedBroker, demo_accounts

FORGED = b'{"table": "t01", "code": "E12", "summary": "call 555-0100 now"}'


def _text(value: str | bytes) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return struct.pack("!H", len(data)) + data


def _length(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def connect_with_will(port: int, user: str, password: str, topic: str,
                      message: bytes) -> int | None:
    """A CONNECT (MQTT 3.1.1) with a retained QoS 1 will, then a drop without
    DISCONNECT; the CONNACK's return code (None: the broker closed without one)."""
    flags = 0x80 | 0x40 | 0x20 | 0x08 | 0x04 | 0x02
    body = (_text("MQTT") + bytes([4, flags]) + struct.pack("!H", 30)
            + _text(f"will-{time.monotonic_ns()}") + _text(topic) + _text(message)
            + _text(user) + _text(password))
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(bytes([0x10]) + _length(len(body)) + body)
        try:
            answer = sock.recv(4)
        except OSError:
            answer = b""
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    return answer[3] if len(answer) == 4 and answer[0] == 0x20 else None


def attempts(port: int, user: str, password: str, victim: str) -> list[int | None]:
    return [connect_with_will(port, user, password, topic, payload) for topic, payload in (
        (f"mjt/v1/{victim}/event/fault", FORGED),
        (f"mjt/v1/{victim}/avail", b"offline"),
        (f"mjt/v1/{victim}/event/hand",
         b'{"table": "%s", "boot": 1, "seq": 1, "start": 1.0, "duration_s": 86000}'
         % victim.encode()))]


def test_the_demo_watcher_publishes_nothing_through_its_will() -> None:
    async def main() -> tuple[list[int | None], list[int | None], list[tuple[str, bytes]]]:
        accounts = demo_accounts(["t01", "t02"])
        broker = await EmbeddedBroker(free_port(), accounts).start()
        try:
            watcher = await asyncio.to_thread(Watcher, broker.port, "venue",
                                              accounts["venue"])
            await asyncio.sleep(0.5)
            watched = await asyncio.to_thread(attempts, broker.port, *WATCHER, "t01")
            # A table writes only under its own name: its will neither.
            other = await asyncio.to_thread(attempts, broker.port, "t02",
                                            accounts["t02"], "t01")
            # Its own will is taken: the demo's tables declare one.
            own = await asyncio.to_thread(connect_with_will, broker.port, "t01",
                                          accounts["t01"], "mjt/v1/t01/avail", b"offline")
            await asyncio.sleep(1.5)
            seen = [(t, p) for t, p, _, _ in watcher.messages]
            watcher.close()
        finally:
            await broker.stop()
        assert own == 0
        return watched, other, seen

    watched, other, seen = asyncio.run(main())
    assert all(code != 0 for code in watched + other), (watched, other)
    assert seen == [("mjt/v1/t01/avail", b"offline")], seen


@pytest.mark.skipif(mosquitto_missing() is not None, reason=mosquitto_missing() or "")
def test_mosquitto_with_the_docs_acl_publishes_no_forged_will(tmp_path: Path) -> None:
    # The docs' read-only Home Assistant user beside the tables (docs/venue.md).
    broker = Mosquitto(tmp_path, ["t1", "t2"], users={"homeassistant": "ha-password"},
                       acl="user homeassistant\ntopic read homeassistant/#\n"
                           "topic read mjt/v1/#\n").start()
    try:
        watcher = Watcher(broker.port, VENUE_USER, VENUE_PASSWORD)
        time.sleep(0.5)
        codes = (attempts(broker.port, "homeassistant", "ha-password", "t1")
                 + attempts(broker.port, "t2", table_password("t2"), "t1"))
        own = connect_with_will(broker.port, "t1", table_password("t1"), "mjt/v1/t1/avail",
                                b"offline")
        time.sleep(1.5)
        seen = [(t, p) for t, p, _, _ in watcher.messages]
        watcher.close()
    finally:
        broker.stop()
    assert own == 0
    # Mosquitto 2 takes such a CONNECT and checks the will against the ACL when it
    # would publish it: nothing but t1's own will reaches the venue.
    assert seen == [("mjt/v1/t1/avail", b"offline")], (codes, seen)


@pytest.mark.parametrize("login", [WATCHER, ("nobody", "a guess")])
def test_a_tables_client_id_gives_nothing_to_another_user(login: tuple[str, str]) -> None:
    """amqtt updated (or deleted) the session of a CONNECT's client id before it
    authenticated it, and took the live connection over either way: with the table's
    client id and clean_session off, the watcher or a wrong password set the table's
    will to a fault page and kicked it off, so the broker published the page as the
    table's; with clean_session on, the table lost its `cmd` subscription unaware."""
    import aiomqtt

    async def main() -> tuple[list[str], list[tuple[str, bytes]]]:
        accounts = demo_accounts(["t01"])
        broker = await EmbeddedBroker(free_port(), accounts).start()
        heard: list[str] = []
        try:
            watcher = await asyncio.to_thread(Watcher, broker.port, "venue",
                                              accounts["venue"])
            async with aiomqtt.Client(
                    "127.0.0.1", broker.port, username="t01", password=accounts["t01"],
                    identifier="demo-t01", clean_session=False,
                    will=aiomqtt.Will("mjt/v1/t01/avail", b"offline", 1, True)) as table, \
                    aiomqtt.Client("127.0.0.1", broker.port, username="venue",
                                   password=accounts["venue"], identifier="venue") as venue:
                await table.subscribe("mjt/v1/t01/cmd", qos=1)

                async def listen() -> None:
                    async for message in table.messages:
                        heard.append(bytes(message.payload).decode())
                listening = asyncio.create_task(listen())
                for clean in (False, True):
                    with contextlib.suppress(aiomqtt.MqttError):
                        async with aiomqtt.Client(
                                "127.0.0.1", broker.port, username=login[0],
                                password=login[1], identifier="demo-t01",
                                clean_session=clean, will=aiomqtt.Will(
                                    "mjt/v1/t01/event/fault", FORGED, 1, True)):
                            pass
                    await asyncio.sleep(0.3)
                await venue.publish("mjt/v1/t01/cmd", b"after", qos=1)
                await asyncio.sleep(1.0)
                listening.cancel()
            seen = [(t, p) for t, p, _, _ in watcher.messages]
            watcher.close()
        finally:
            await broker.stop()
        return heard, seen

    heard, seen = asyncio.run(main())
    assert heard == ["after"], heard
    assert not [t for t, _ in seen if t.endswith("/event/fault")], seen


def test_the_watcher_claiming_a_tables_client_id_first_does_not_lock_the_table_out() -> None:
    import aiomqtt

    async def main() -> None:
        accounts = demo_accounts(["t01"])
        broker = await EmbeddedBroker(free_port(), accounts).start()
        try:
            async with aiomqtt.Client("127.0.0.1", broker.port, username=WATCHER[0],
                                      password=WATCHER[1], identifier="demo-t01",
                                      clean_session=False):
                pass
            async with aiomqtt.Client("127.0.0.1", broker.port, username="t01",
                                      password=accounts["t01"], identifier="demo-t01"):
                pass
            with pytest.raises(aiomqtt.MqttError):      # the table's now
                async with aiomqtt.Client("127.0.0.1", broker.port, username=WATCHER[0],
                                          password=WATCHER[1], identifier="demo-t01"):
                    pass
        finally:
            await broker.stop()
    asyncio.run(main())
