"""`mjtable venue --demo N`: an embedded broker (amqtt) and N made-up tables, so a
newcomer sees the dashboard move without a single table.

A demo table is an MQTT client that speaks the agent's topics (docs/venue.md) with the
agent's own payload builders (venue/wire.py, homeassistant.py): its status,
info, faults, usage and Home Assistant discovery are what a real agent publishes,
from made-up daemon replies. It plays hands of a minute or so, seldom faults (codes,
causes and remedies from the firmware's catalogue, in the venue's language) and is
repaired, takes bookings, and now and then drops off the network for a while. It checks
nothing it is sent: it is not a table, only a picture of one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import aiomqtt

from firmware.i18n import language
from venue import homeassistant
from venue.desk.faults.faultwords import catalogue, kind_texts
from venue.wire import (
    OFFLINE,
    ONLINE,
    Topics,
    birth,
    fault_event,
    faults_message,
    payload,
    status_message,
)

# The made-up tables' faults: the lid's (what a kind is about lives on the kind).
DEMO_FAULTS = tuple(i for i, k in catalogue().items() if k["family"] == "lid")
# A believable venue: a table faults after about one hand in 25 and is repaired in a
# minute or so, so a grid of 20 shows a fault now and then, not five at once.
FAULT_AFTER_HAND = 0.04
FAULTED_AT_START = 0.04
HA_PREFIX = "homeassistant"


# The demo's broker users: anyone may watch as demo/demo and publish nothing (its last
# will neither: venue/desk/will_acl.py); the venue and each made-up table get passwords
# of their own, made at start, and a table writes only under its own name, as
# Mosquitto's ACL in docs/venue.md has it: a hand record is the table's own session's.
WATCHER = ("demo", "demo")


def demo_accounts(tables: list[str] | None = None) -> dict[str, str]:
    return {"venue": secrets.token_urlsafe(12), WATCHER[0]: WATCHER[1],
            **{table: secrets.token_urlsafe(12) for table in tables or []}}


def publish_acl(accounts: dict[str, str]) -> dict[str, list[str]]:
    tables = [user for user in accounts if user not in ("venue", WATCHER[0])]
    # A table's Home Assistant configs under its own name too (as the agent's are).
    return {"venue": ["mjt/v1/+/cmd"], WATCHER[0]: [],
            **{table: [f"mjt/v1/{table}/#", f"{HA_PREFIX}/+/{table}/#"] for table in tables}}


def subscribe_acl(accounts: dict[str, str]) -> dict[str, list[str]]:
    tables = [user for user in accounts if user not in ("venue", WATCHER[0])]
    return {"venue": ["mjt/v1/#", f"{HA_PREFIX}/#"], WATCHER[0]: ["mjt/v1/#", f"{HA_PREFIX}/#"],
            **{table: [f"mjt/v1/{table}/cmd"] for table in tables}}


class EmbeddedBroker:
    """amqtt in this process on 127.0.0.1: for the demo and the tests. Anonymous
    without `accounts`; with them, those users only, each allowed the topics above."""

    def __init__(self, port: int, accounts: dict[str, str] | None = None) -> None:
        self.port = port
        self.accounts = accounts
        self._broker: Any = None
        self._directory: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    async def start(self) -> EmbeddedBroker:
        from venue.desk.will_acl import GatedBroker

        plugins: dict[str, Any] = {"amqtt.plugins.authentication.AnonymousAuthPlugin":
                                   {"allow_anonymous": self.accounts is None}}
        if self.accounts is not None:
            plugins["amqtt.plugins.authentication.FileAuthPlugin"] = {
                "password_file": self._password_file(self.accounts)}
            publish = publish_acl(self.accounts)
            plugins["amqtt.plugins.topic_checking.TopicAccessControlListPlugin"] = {
                "publish_acl": publish, "acl": subscribe_acl(self.accounts)}
            plugins["venue.desk.will_acl.WillAclPlugin"] = {"publish_acl": publish}
        self._broker = GatedBroker({
            "listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{self.port}"}},
            "plugins": plugins}, read_only=(WATCHER[0],))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)     # amqtt's "acl" name
            await self._broker.start()
        return self

    def _password_file(self, accounts: dict[str, str]) -> str:
        from pwdlib import PasswordHash
        from pwdlib.hashers.argon2 import Argon2Hasher

        # Light parameters: random passwords on loopback, and amqtt checks each table's
        # login inside the event loop the dashboard shares (the defaults take seconds).
        hasher = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
        self._directory = tempfile.TemporaryDirectory(prefix="mjtable-demo-")
        path = Path(self._directory.name) / "passwd"
        path.write_text("".join(f"{user}:{hasher.hash(password)}\n"
                                for user, password in accounts.items()), encoding="utf-8")
        return str(path)

    async def stop(self) -> None:
        if self._broker is not None:
            with contextlib.suppress(Exception):
                await self._broker.shutdown()
        if self._directory is not None:
            self._directory.cleanup()


class DemoTable:
    def __init__(self, table: str, url: str, seed: int, lang: str = "en",
                 hand_s: tuple[float, float] = (40.0, 150.0),
                 login: tuple[str, str] | None = None) -> None:
        self.table = table
        self.url = url
        self.login = login
        self.topics = Topics(table)
        self.rng = random.Random(seed)
        self.lang = lang
        self.hand_s = hand_s
        self.seq = 0
        self.acked = 0
        self.hands = 0
        self.play_s = 0.0
        self.booked_until = 0.0
        self.booking: str | None = None
        self.reason: str | None = None
        self.away = False       # off the network: it hears no command (a real table's will)
        self.started = time.time()
        # The daemon's status as the agent reads it (firmware/api/server.py's shape).
        self.status: dict[str, Any] = {
            "state": "play", "cycle": 0, "hand_in_play": False, "build": "staged",
            "estopped": False, "held_by": None, "counters": {"faults_active": 0},
            "display": "--", "lamps": {"lamp.ready": True}, "service": {"test_mode": False},
            "gate": self._gate(), "t": 0.0}

    async def run(self) -> None:
        host, port = self.url.removeprefix("mqtt://").rsplit(":", 1)
        while True:
            try:
                async with aiomqtt.Client(
                        host, int(port), identifier=f"demo-{self.table}",
                        username=self.login[0] if self.login else None,
                        password=self.login[1] if self.login else None,
                        protocol=aiomqtt.ProtocolVersion.V311,
                        will=aiomqtt.Will(self.topics.avail, OFFLINE, qos=1, retain=True)
                        ) as client:
                    await self._life(client)
            except aiomqtt.MqttError:
                pass
            await asyncio.sleep(1.0)

    async def _life(self, client: aiomqtt.Client) -> None:
        await client.subscribe(self.topics.cmd, qos=1)
        commands = asyncio.create_task(self._commands(client))
        try:
            born = birth(self.table, "demo", "demo", "mcr", None, None)
            await client.publish(self.topics.info, payload(born), qos=1, retain=True)
            for topic, config in homeassistant.discovery(self.topics, self.table, HA_PREFIX,
                                                         born, self.lang) or []:
                await client.publish(topic, payload(config), qos=1, retain=True)
            await client.publish(self.topics.avail, ONLINE, qos=1, retain=True)
            await self._faults(client, [])
            await self._earlier_today(client)
            await self._status(client)
            # Each table starts somewhere else in its day, so the grid is not in step.
            opening = first_move(self.rng)
            if opening == "away":
                await self._away(client)
            elif opening == "fault":
                await self._fault(client)
            elif opening == "hand":
                await self._hand(client, self.rng.uniform(5, self.hand_s[1]))
            while True:
                await self._between(client)
                await self._hand(client)
                if self.rng.random() < FAULT_AFTER_HAND:
                    await self._fault(client)
                if self.rng.random() < 0.02:
                    await self._away(client)
        finally:
            # Not suppress(CancelledError): that would swallow our own cancellation too.
            commands.cancel()
            await asyncio.gather(commands, return_exceptions=True)

    async def _between(self, client: aiomqtt.Client) -> None:
        if self.rng.random() < 0.3 and self.booked_until < time.time():
            self.booking = f"B-{self.table}-{self.rng.randrange(1000, 9999)}"
            self.booked_until = time.time() + self.rng.uniform(60, 300)
            await self._status(client)
        await asyncio.sleep(self.rng.uniform(5, 40))

    async def _away(self, client: aiomqtt.Client) -> None:
        """Off the network for a while: what the broker's last will says for a table."""
        self.away = True
        await client.publish(self.topics.avail, OFFLINE, qos=1, retain=True)
        await asyncio.sleep(self.rng.uniform(20, 60))
        await client.publish(self.topics.avail, ONLINE, qos=1, retain=True)
        self.away = False

    async def _earlier_today(self, client: aiomqtt.Client) -> None:
        """A few hands played before the demo started (since midnight), so hands today
        and the usage page have something to show."""
        now = time.time()
        midnight = time.mktime((*time.localtime(now)[:3], 0, 0, 0, 0, 0, -1))
        for back in range(self.rng.randrange(0, 9), 0, -1):
            start = now - back * 900 - self.rng.uniform(0, 300)
            if start > midnight:
                await self._record(client, start, start + self.rng.uniform(420, 720))
        await self._usage(client)

    async def _record(self, client: aiomqtt.Client, start: float, end: float) -> None:
        self.seq += 1
        self.hands += 1
        self.play_s += end - start
        self.status["cycle"] = self.hands
        await client.publish(self.topics.event_hand, payload(
            {"table": self.table, "boot": 1, "seq": self.seq, "cycle": self.hands,
             "start": round(start, 3), "end": round(end, 3),
             "duration_s": round(end - start, 1), "booking_id": self.booking,
             "variant": "mcr", "ended": "played"}), qos=1)

    async def _hand(self, client: aiomqtt.Client, length_s: float | None = None) -> None:
        start = time.time()
        self.status.update(hand_in_play=True, display="88", build="building")
        await self._status(client)
        await asyncio.sleep(length_s or self.rng.uniform(*self.hand_s))
        end = time.time()
        await self._record(client, start, end)
        self.status.update(hand_in_play=False, display="--", build="staged")
        if self.booked_until < end:
            self.booking = None
        await self._status(client)
        await self._usage(client)

    async def _fault(self, client: aiomqtt.Client) -> None:
        fault_id = self.rng.choice(DEMO_FAULTS)
        kind = catalogue()[fault_id]
        wall = time.time()
        with language(self.lang):
            texts = kind_texts(kind)
        # A fault as the daemon reports it (firmware/faults/kinds.py's as_dict, the API's
        # raised_wall), turned into the venue's messages by the agent's own builders.
        fault = {"code": kind["code"], "id": fault_id, "where": "lid", "active": True,
                 "t": round(wall - self.started, 3), "raised_wall": round(wall, 3),
                 "diagnosis": {"summary": texts["summary"], "causes": texts["causes"],
                               "remedy": texts["remedy"], "severity": kind["severity"]}}
        await client.publish(self.topics.event_fault, payload(
            fault_event(self.table, fault, wall)), qos=1)
        await self._faults(client, [fault])
        self.status.update(state="fault", display=kind["code"], counters={"faults_active": 1})
        await self._status(client)
        await asyncio.sleep(self.rng.uniform(15, 60))      # the technician walks over
        await self._faults(client, [])
        self.status.update(state="play", display="--", counters={"faults_active": 0})
        await self._status(client)

    async def _commands(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            try:
                cmd = json.loads(bytes(message.payload))["cmd"]     # type: ignore[arg-type]
                name, args = cmd["name"], cmd.get("args") or {}
            except (TypeError, ValueError, KeyError):
                continue
            if self.away:
                continue        # a table off the network answers nothing: the venue says so
            result: dict[str, Any] = {}
            if name == "usage_ack":
                self.acked = max(self.acked, int(args.get("seq", 0)))
                await self._usage(client)
            elif name == "enable":
                self.booking = args.get("booking_id")
                self.booked_until = time.time() + float(args.get("for_s", 0))
                self.reason = None
                await self._status(client)
            elif name == "disable":
                self.booked_until = 0.0
                self.reason = args.get("reason")
                await self._status(client)
            if name in ("enable", "disable"):
                # As the daemon answers (firmware/service/gate.py's status).
                left = max(0.0, self.booked_until - time.time())
                result = {"enforced": True, "open": left > 0, "left_s": round(left, 1),
                          "booking_id": self.booking, "reason": self.reason}
            await client.publish(self.topics.cmd_ack, payload(
                {"id": cmd.get("id"), "accepted": True, "result": result}), qos=1)

    def _gate(self) -> dict[str, Any]:
        """The booking gate as firmware/service/gate.py reports it (table time)."""
        now = time.time() - self.started
        left = self.booked_until - time.time()
        return {"enforced": True, "open": left > 0,
                "booking_id": self.booking if left > 0 else None, "reason": self.reason,
                "held": False, "until_t": now + left if left > 0 else None}

    async def _status(self, client: aiomqtt.Client) -> None:
        self.status.update(t=round(time.time() - self.started, 3), gate=self._gate())
        await client.publish(self.topics.status, payload(
            status_message(self.table, self.status, time.time())), qos=0, retain=True)

    async def _faults(self, client: aiomqtt.Client, active: list[dict[str, Any]]) -> None:
        await client.publish(self.topics.faults, payload(
            faults_message(self.table, active)), qos=1, retain=True)

    async def _usage(self, client: aiomqtt.Client) -> None:
        # The ledger's totals (firmware/state/ledger.py), as the agent publishes them.
        await client.publish(self.topics.usage, payload(
            {"table": self.table, "boot": 1, "hands": self.hands,
             "play_s": round(self.play_s, 3),
             "powered_s": round(time.time() - self.started, 3), "last_seq": self.seq,
             "acked": self.acked, "in_hand": self.status["hand_in_play"]}),
            qos=1, retain=True)


def first_move(rng: random.Random) -> str:
    """Where a made-up table starts its day: away, faulted, in a hand, or idle."""
    start = rng.random()
    if start < 0.04:
        return "away"
    if start < 0.04 + FAULTED_AT_START:
        return "fault"
    return "hand" if start < 0.5 else "idle"


def table_names(count: int) -> list[str]:
    width = max(2, len(str(count)))
    return [f"t{n:0{width}d}" for n in range(1, count + 1)]
