"""One table's agent: the daemon's socket on one side, the venue's broker on the other.

Nothing here can slow the table: the daemon drops a client that stops reading, and
the agent never asks it to wait. Hand records go out from the daemon's ledger, every
one the venue has not acknowledged, again after every reconnect; the venue keeps
each (table, boot, seq) once. Commands from `cmd` signed by one of the venue's keys
for this table (venue/signing.py) are handed to the daemon first, in the order they
came: the daemon checks them whole (firmware/service/signed.py) and the agent
publishes its answer on `cmd/ack`. What no venue key signed is refused here, after
them, without the daemon.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import aiomqtt

from firmware.api.client import COMMAND, FAULTS, INFO, SUBSCRIBE, USAGE, AsyncClient, ClientError
from firmware.i18n import _, language
from mjtable_core import signed
from mjtable_core.config import Config
from mjtable_core.printable import printable
from venue import homeassistant
from venue.brokerwords import LOGIN_RETRY_S, login_refused, refused_line
from venue.signing import Checker, load_keys
from venue.wire import (
    OFFLINE,
    ONLINE,
    Topics,
    birth,
    broker_address,
    fault_event,
    faults_message,
    payload,
    status_message,
    status_view,
)

RETRY_S = 1.0           # wait before reconnecting to the daemon or the broker
LEDGER_POLL_S = 5.0     # look for records even without a hand event (missed events)
RESEND_S = 120.0        # unacknowledged this long, acknowledgements stalled: send again
FAULTS_EVERY_S = 0.5    # the retained fault list is re-read at most this often
STOP_PUBLISH_S = 2.0    # the last `offline`, waited for at most this long
REFUSALS_PER_WINDOW = 5  # refusal lines logged a minute; then a count
REFUSALS_WINDOW_S = 60.0
MAX_COMMAND = 16 * 1024  # bytes of a `cmd` message; longer ones are malformed
# `usage` goes out when a counted value changes (a hand, an ack, a boot); the powered
# time alone moves every second, and is worth one retained message a minute at most.
USAGE_TIME_EVERY_S = 60.0
TIME_ONLY = ("powered_s",)
JUNK_KEPT = 256         # refused `cmd` messages waiting for their ack; past it only counted


class Agent:
    def __init__(self, config: Config, socket: Path, broker: str | None = None,
                 log: Any = None, password: str | None = None) -> None:
        self.config = config
        self.venue = config.venue
        # From [venue] password_file when it is set (venue/agent/secret.py).
        self.password = self.venue.password if password is None else password
        self.table = config.table.id
        self.socket = socket
        self.broker = broker or self.venue.broker
        self.topics = Topics(self.table)
        self.lang = self.venue.language or config.display.language or None
        self.log = log or (lambda line: print(f"mjtable agent: {line}", file=sys.stderr,
                                              flush=True))
        self.protocol = aiomqtt.ProtocolVersion.V5
        self.sent = 0               # highest ledger seq published in this session
        self._hands = asyncio.Event()
        self._status: dict[str, Any] | None = None
        self._status_text = ""
        self._stopping = asyncio.Event()
        self._connected_once = False
        self._refused_said = False
        self._faults_due = asyncio.Event()
        self._refused = RefusalLog(lambda line: self.log(line)).refused
        self._usage_counted: dict[str, Any] | None = None
        self._usage_at = -USAGE_TIME_EVERY_S
        # The stateless half of the daemon's check: which `cmd` messages are the venue's.
        self._verifier = Checker(self.table, load_keys(self.venue.keys), time.time,
                                 self.venue.command_max_s)

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        """Until stopped: keep one daemon link and one broker session."""
        while not self._stopping.is_set():
            link = AsyncClient(self.socket)
            try:
                await link.open()
                await self._with_broker(link)
            except ClientError as exc:
                self.log(str(exc))
            finally:
                await link.aclose()
            await self._pause(RETRY_S)

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)

    def _client(self) -> aiomqtt.Client:
        host, port, tls = broker_address(self.broker)
        tls_context = None
        if tls:
            tls_context = ssl.create_default_context(cafile=self.venue.tls_ca or None)
        return aiomqtt.Client(
            host, port, identifier=f"mjtable-{self.table}",
            username=self.venue.username or self.table, password=self.password or None,
            keepalive=self.venue.keepalive_s, protocol=self.protocol, tls_context=tls_context,
            will=aiomqtt.Will(self.topics.avail, OFFLINE, qos=1, retain=True),
            clean_session=None if self.protocol == aiomqtt.ProtocolVersion.V5 else True,
            timeout=10)

    async def _with_broker(self, link: AsyncClient) -> None:
        subscribed = await link.request(SUBSCRIBE, {"streams": ["events", "status"]})
        self._status = subscribed["status"]
        user = self.venue.username or self.table
        while not self._stopping.is_set():
            try:
                async with self._client() as mqtt:
                    self._connected_once = True
                    self._refused_said = False
                    self.log(_("on {broker} as {user}").format(broker=self.broker, user=user))
                    await self._session(link, mqtt)
                    return
            except aiomqtt.MqttError as exc:
                if login_refused(exc):
                    # A wrong password is one line, not one a second for ever; and no
                    # other protocol version makes it right.
                    if not self._refused_said:
                        self._refused_said = True
                        self.log(refused_line(self.broker, user,
                                              "[venue] username and password"))
                    await self._pause(LOGIN_RETRY_S)
                    continue
                self.log(_("broker {broker}: {error}").format(broker=self.broker, error=exc))
                if not self._connected_once:
                    # A broker without MQTT 5 refuses or ignores its CONNECT (amqtt
                    # times out): try the other version until one has worked.
                    self.protocol = (aiomqtt.ProtocolVersion.V311
                                     if self.protocol == aiomqtt.ProtocolVersion.V5
                                     else aiomqtt.ProtocolVersion.V5)
                    continue
            await self._pause(RETRY_S)

    async def _session(self, link: AsyncClient, mqtt: aiomqtt.Client) -> None:
        await mqtt.subscribe(self.topics.cmd, qos=1)
        await self._birth(link, mqtt)
        usage = await link.request(USAGE, {"after": 0, "limit": 1})
        self.sent = usage["totals"]["acked"]     # re-send whatever the venue lacks
        self._hands.set()
        tasks = [asyncio.create_task(coro) for coro in (
            self._follow(link, mqtt), self._commands(link, mqtt), self._records(link, mqtt),
            self._heartbeat(mqtt), self._faults(link, mqtt))]
        stop = asyncio.create_task(self._stopping.wait())
        try:
            done, _ = await asyncio.wait([*tasks, stop], return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is not stop and task.exception() is not None:
                    raise task.exception()      # type: ignore[misc]
            # The daemon is gone or we stop: say so before the connection closes (a
            # clean disconnect sends no last will).
            # A broker slow to acknowledge must not hold a stopping agent for long.
            with contextlib.suppress(aiomqtt.MqttError):
                await mqtt.publish(self.topics.avail, OFFLINE, qos=1, retain=True,
                                   timeout=STOP_PUBLISH_S)
        finally:
            for task in [*tasks, stop]:
                task.cancel()
            await asyncio.gather(*tasks, stop, return_exceptions=True)

    async def _birth(self, link: AsyncClient, mqtt: aiomqtt.Client) -> None:
        info = await link.request(INFO)
        born = birth(self.table, _version(), self.config.table.model,
                     self.config.rules.variant, self.venue.console_url, info.get("protocol"))
        await mqtt.publish(self.topics.info, payload(born), qos=1, retain=True)
        if self.venue.ha_discovery:
            await self._discovery(mqtt, born)
        await mqtt.publish(self.topics.avail, ONLINE, qos=1, retain=True)
        await self._publish_faults(link, mqtt)
        await self._publish_usage(link, mqtt, force=True)
        await self._publish_status(mqtt, force=True)

    async def _discovery(self, mqtt: aiomqtt.Client, birth: dict[str, Any]) -> None:
        """Home Assistant's retained configs: the table as a device of sensors."""
        configs = homeassistant.discovery(self.topics, self.table, self.venue.ha_prefix,
                                          birth, self.lang)
        if configs is None:
            self.log(_("no Home Assistant discovery: the table id “{table}” may only have "
                       "letters, digits, _ and -").format(table=self.table))
            return
        for topic, config in configs:
            await mqtt.publish(topic, payload(config), qos=1, retain=True)

    async def _follow(self, link: AsyncClient, mqtt: aiomqtt.Client) -> None:
        """The daemon's stream: faults at once, status on change (rate-limited)."""
        while True:
            message = await link.stream.get()
            if message is None:
                raise ClientError(_("the daemon closed the link"))
            if message["stream"] == "status":
                self._status = message["status"]     # published by _heartbeat
            elif message["stream"] == "event":
                event = message["event"]
                kind = event.get("kind")
                if kind == "fault":
                    await self._on_fault(link, mqtt, event)
                elif kind in ("clear", "fault.cleared", "resume"):
                    self._faults_due.set()
                elif kind == "phase" and event.get("state") == "opening":
                    self._hands.set()

    async def _on_fault(self, link: AsyncClient, mqtt: aiomqtt.Client,
                        event: dict[str, Any]) -> None:
        # The event first, as the daemon said it (its language): nothing waits for a
        # reply of the daemon before the venue hears of a fault. The retained list
        # follows, in the venue's language.
        await mqtt.publish(self.topics.event_fault, payload(
            fault_event(self.table, event, time.time())), qos=1)
        self._faults_due.set()

    async def _faults(self, link: AsyncClient, mqtt: aiomqtt.Client) -> None:
        """The retained list of active faults after changes, at most twice a second:
        a burst of faults costs the daemon one read, not one each."""
        while True:
            await self._faults_due.wait()
            self._faults_due.clear()
            await self._publish_faults(link, mqtt)
            await asyncio.sleep(FAULTS_EVERY_S)

    async def _publish_faults(self, link: AsyncClient, mqtt: aiomqtt.Client) -> dict[str, Any]:
        faults = await link.request(FAULTS, lang=self.lang)
        await mqtt.publish(self.topics.faults, payload(
            faults_message(self.table, faults["active"])), qos=1, retain=True)
        return faults

    async def _publish_status(self, mqtt: aiomqtt.Client, force: bool = False) -> bool:
        if self._status is None:
            return False
        view = status_view(self._status)
        text = json.dumps(view, sort_keys=True, default=str)
        if text == self._status_text and not force:
            return False
        self._status_text = text
        await mqtt.publish(self.topics.status, payload(
            status_message(self.table, self._status, time.time())), qos=0, retain=True)
        return True

    async def _heartbeat(self, mqtt: aiomqtt.Client) -> None:
        """Status on change at most every status_every_s, and every heartbeat_s anyway."""
        last = time.monotonic()
        while True:
            await asyncio.sleep(self.venue.status_every_s)
            due = time.monotonic() - last >= self.venue.heartbeat_s
            if await self._publish_status(mqtt, force=due):
                last = time.monotonic()

    async def _publish_usage(self, link: AsyncClient, mqtt: aiomqtt.Client,
                             force: bool = False) -> dict[str, Any]:
        usage = await link.request(USAGE, {"after": 0, "limit": 1})
        await self._usage_out(mqtt, usage["totals"], force)
        return usage["totals"]

    async def _usage_out(self, mqtt: aiomqtt.Client, totals: dict[str, Any],
                         force: bool = False) -> None:
        """The retained totals when a counted value changed, or a minute after the last
        for the powered time alone: an idle table is one message a minute, not twelve."""
        counted = {k: v for k, v in totals.items() if k not in TIME_ONLY}
        now = time.monotonic()
        if not force and counted == self._usage_counted and (
                now - self._usage_at < USAGE_TIME_EVERY_S):
            return
        await mqtt.publish(self.topics.usage, payload(totals), qos=1, retain=True)
        self._usage_counted, self._usage_at = counted, now

    async def _records(self, link: AsyncClient, mqtt: aiomqtt.Client) -> None:
        """Every finished hand the venue has not acknowledged, QoS 1, oldest first.

        A record the broker took may still miss the venue (a broker without
        persistence restarted before the venue subscribed again): whatever stays
        unacknowledged for RESEND_S while acknowledgements do not move is sent again."""
        acked, moved = -1, time.monotonic()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._hands.wait(), LEDGER_POLL_S)
            self._hands.clear()
            totals = (await link.request(USAGE, {"after": 0, "limit": 1}))["totals"]
            if totals["acked"] != acked:
                acked, moved = totals["acked"], time.monotonic()
            elif acked < self.sent and time.monotonic() - moved > RESEND_S:
                self.sent, moved = acked, time.monotonic()
            while True:
                usage = await link.request(USAGE, {"after": self.sent, "limit": 100})
                for record in usage["records"]:
                    # Returns once the broker has it (PUBACK).
                    await mqtt.publish(self.topics.event_hand, payload(record), qos=1)
                    self.sent = record["seq"]
                if len(usage["records"]) < 100:
                    break
            await self._usage_out(mqtt, usage["totals"])

    async def _commands(self, link: AsyncClient, mqtt: aiomqtt.Client) -> None:
        """`cmd` messages in two lanes: the venue's (signed by one of its keys, for this
        table) go to the daemon before anything else; the rest are junk, refused here
        without the daemon, at a bounded cost each: a parse of at most MAX_COMMAND
        bytes and one signature check, then an ack while fewer than JUNK_KEPT wait
        (past that only counted). Before, 3,000 junk messages took the agent 58.5 s
        to relay one by one through the daemon, and a venue's `estop` waited behind."""
        venue: deque[Any] = deque()
        junk: deque[dict[str, Any]] = deque()
        arrived = asyncio.Event()
        receiving = asyncio.create_task(self._receive(mqtt, venue, junk, arrived))
        try:
            while True:
                if venue:
                    await self._relay(link, mqtt, venue.popleft())
                elif junk:
                    answer = junk.popleft()
                    await mqtt.publish(self.topics.cmd_ack, payload(answer), qos=0)
                    self._refused(answer)
                elif receiving.done():
                    receiving.result()      # the broker's error, if it ended on one
                    return
                else:
                    arrived.clear()
                    waiting = asyncio.create_task(arrived.wait())
                    await asyncio.wait([waiting, receiving],
                                       return_when=asyncio.FIRST_COMPLETED)
                    waiting.cancel()
        finally:
            receiving.cancel()
            await asyncio.gather(receiving, return_exceptions=True)

    async def _receive(self, mqtt: aiomqtt.Client, venue: deque[Any],
                       junk: deque[dict[str, Any]], arrived: asyncio.Event) -> None:
        turn = 0
        lane: dict[str, float] = {}     # ids in the venue's lane this session: expiry
        async for message in mqtt.messages:
            envelope = command_envelope(message.payload)
            try:
                self._fresh(self._verifier.signed(envelope), lane)
                venue.append(envelope)
            except signed.Refused as exc:
                if len(junk) < JUNK_KEPT:
                    junk.append(self._refusal(envelope, exc))
                else:
                    self._refused({"why": _(exc.why)})    # counted, not answered
            arrived.set()
            turn += 1
            if turn % 64 == 0:
                await asyncio.sleep(0)      # the relay gets its turn in a long burst

    def _fresh(self, cmd: dict[str, Any], lane: dict[str, float]) -> None:
        """Refused for a signed command the daemon would refuse as stale: expired,
        valid for too long, or an id already in the venue's lane. Whoever may publish
        on `cmd` has every command the venue ever sent (they are read on `mjt/v1/#`):
        replayed, each went to the daemon ahead of a fresh `estop`, 20 ms apiece."""
        now = self._verifier.wall()
        for seen in [i for i, expires in lane.items() if expires < now]:
            del lane[seen]
        if cmd["expires"] - cmd["issued"] > self._verifier.max_s:
            raise signed.Refused(signed.TOO_LONG)
        if now > cmd["expires"]:
            raise signed.Refused(signed.EXPIRED)
        if cmd["id"] in lane:
            raise signed.Refused(signed.REPLAYED, cmd["id"][:64])
        lane[cmd["id"]] = cmd["expires"]

    def _refusal(self, envelope: Any, exc: signed.Refused) -> dict[str, Any]:
        """The answer the daemon would give (firmware/api/venue.py), made here."""
        raw = envelope.get("cmd") if isinstance(envelope, dict) else None
        shown_id = printable(str(raw.get("id", ""))[:64]) if isinstance(raw, dict) else ""
        with language(self.lang):
            why = _(exc.why)
        return {"id": shown_id, "accepted": False, "why": why,
                "detail": printable(exc.detail)}

    async def _relay(self, link: AsyncClient, mqtt: aiomqtt.Client, envelope: Any) -> None:
        """One of the venue's commands to the daemon, which checks it whole (expiry,
        replay) and runs it; its answer on `cmd/ack`."""
        try:
            answer = await link.request(COMMAND, {"envelope": envelope}, lang=self.lang)
        except ClientError as exc:
            if not exc.error:
                raise               # no answer: the daemon is gone
            # The daemon's API refused the request itself (nested past its parser, a
            # NaN, a lone surrogate): refused as malformed like any garbage, never the
            # end of the session; retained on `cmd`, it would end every session after it.
            envelope = None
            answer = await link.request(COMMAND, {"envelope": None}, lang=self.lang)
        name = (envelope or {}).get("cmd", {}).get("name") if isinstance(
            envelope, dict) and isinstance(envelope.get("cmd"), dict) else None
        await mqtt.publish(self.topics.cmd_ack, payload(answer), qos=1)
        if not answer.get("accepted"):
            self._refused(answer)
            return
        if name == "rebirth":
            await self._birth(link, mqtt)
        elif name == "usage_ack":
            await self._publish_usage(link, mqtt)
        elif name in ("enable", "disable", "estop"):
            await self._publish_status(mqtt, force=True)


class RefusalLog:
    """A few refusal lines a minute, then a count: anyone who may publish on `cmd`
    (the table's own broker user too) must not fill the journal."""

    def __init__(self, log: Any) -> None:
        self.log = log
        self.since = -REFUSALS_WINDOW_S
        self.said = 0
        self.unsaid = 0

    def refused(self, answer: dict[str, Any]) -> None:
        now = time.monotonic()
        if now - self.since >= REFUSALS_WINDOW_S:
            if self.unsaid:
                self.log(_("commands refused and not logged in the last minute: "
                           "{count}").format(count=self.unsaid))
            self.since, self.said, self.unsaid = now, 0, 0
        if self.said >= REFUSALS_PER_WINDOW:
            self.unsaid += 1
            return
        self.said += 1
        self.log(_("command refused: {why} {detail}").format(
            why=answer.get("why"), detail=answer.get("detail", "")))


def command_envelope(body: Any) -> Any:
    """The JSON of a `cmd` message, or None for what is not one: over MAX_COMMAND (a
    signed command is a few hundred bytes; the daemon's lines stop at 64 KiB and one
    over them gets no answer), not UTF-8 JSON, or nested past the parser."""
    if not isinstance(body, bytes | bytearray) or len(body) > MAX_COMMAND:
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mjtable")
    except PackageNotFoundError:
        return "unknown"
