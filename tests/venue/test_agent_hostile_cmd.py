"""What a broker peer publishes on a table's `cmd` topic cannot end the agent's session.

Before, a payload nested past the JSON parser ended the agent with a RecursionError
traceback, and one the daemon's API refuses as a request (nested past its 16 levels,
a NaN, a lone surrogate, or over its 64 KiB line) ended the session, the daemon's
link with it: retained on `cmd`, it came back on every reconnect, so the table's
agent never stayed up. Each is now a command refused as malformed, answered on
`cmd/ack`, and the next command is taken.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from firmware.api import protocol as p
from firmware.api.client import ClientError
from mjtable_core.config import load_config
from tests.venue.watch import VenueKey
from venue.agent.agent import Agent


class Daemon:
    """The daemon's side of `command` through its real request parser: what the agent
    sends is checked as the API checks every line."""

    def __init__(self) -> None:
        self.envelopes: list[Any] = []

    async def request(self, method: str, params: dict[str, Any] | None = None,
                      lang: str | None = None, **_: Any) -> Any:
        line = json.dumps({"id": 1, "method": method, "params": params or {}}).encode()
        if len(line) > p.MAX_LINE:
            # Answered without an id: the agent would wait for its reply in vain.
            raise ClientError(f"{method}: no answer from the daemon (TimeoutError())")
        try:
            request = p.decode_request(line)
        except p.ApiError as exc:
            raise ClientError(f"{method}: {exc.message}",
                              error={"code": exc.code, "message": exc.message}) from None
        envelope = request["params"]["envelope"]
        self.envelopes.append(envelope)
        # The daemon checks the signature again; here the key id stands for it.
        ok = isinstance(envelope, dict) and envelope["cmd"].get("key") == KEY.key_id
        return {"id": "", "accepted": ok} if ok else {
            "id": "", "accepted": False, "why": "malformed command"}


class Broker:
    def __init__(self, payloads: list[bytes]) -> None:
        self.payloads = payloads
        self.acks: list[dict[str, Any]] = []

    @property
    def messages(self) -> Any:
        async def gen() -> Any:
            for body in self.payloads:
                yield SimpleNamespace(payload=body, topic="mjt/v1/t1/cmd")
        return gen()

    async def publish(self, topic: str, body: bytes, **_: Any) -> None:
        if topic.endswith("/cmd/ack"):
            self.acks.append(json.loads(body))


KEY = VenueKey()


def agent_of(lines: list[str], tmp_path: Path) -> Agent:
    config = load_config()
    config = dataclasses.replace(config, venue=dataclasses.replace(
        config.venue, keys={KEY.key_id: KEY.public_b64}))
    return Agent(config, tmp_path / "no.sock", "mqtt://127.0.0.1:1", log=lines.append)


def _run(payloads: list[bytes], tmp_path: Path) -> tuple[Broker, Daemon, list[str]]:
    lines: list[str] = []
    agent = agent_of(lines, tmp_path)
    broker, daemon = Broker(payloads), Daemon()
    asyncio.run(asyncio.wait_for(agent._commands(daemon, broker), 10))  # type: ignore[arg-type]
    return broker, daemon, lines


def good() -> bytes:
    """A command the venue signed for this table."""
    return json.dumps(KEY.command(load_config().table.id, "identify")).encode()


def test_garbage_on_cmd_is_refused_and_the_next_command_is_taken(tmp_path: Path) -> None:
    hostile = [
        b"[" * 100_000 + b"]" * 100_000,                        # past the JSON parser
        b'{"cmd": {"a": ' + b"[" * 20 + b"]" * 20 + b'}, "sig": "x"}',  # past the API's 16
        b'{"cmd": {"expires": NaN}, "sig": "x"}',               # not finite
        b'{"cmd": {"id": "\\ud800"}, "sig": "x"}',              # a lone surrogate
        json.dumps({"cmd": {"pad": "x" * 70_000}, "sig": "x"}).encode(),   # over a line
        b"\xff\xfe not utf-8",
    ]
    signed = good()     # signed now: one made at import expires before a long suite reaches it
    broker, daemon, lines = _run([*hostile, signed], tmp_path)
    # The venue's command goes first; the garbage is refused by the agent, never sent on.
    assert [a["accepted"] for a in broker.acks] == [True] + [False] * len(hostile)
    assert all(a["why"] == "malformed command" for a in broker.acks[1:])
    assert daemon.envelopes == [json.loads(signed)]
    assert len(lines) == 5 and all("malformed" in line for line in lines)


def test_a_signed_command_jumps_3000_junk_messages_and_is_relayed_within_a_second(
        tmp_path: Path) -> None:
    """Before: 3,000 junk messages on the table's own `cmd` took the agent 58.5 s to
    relay one by one through the daemon, and a venue's `estop` behind them waited."""
    table = load_config().table.id
    forged = [json.dumps({**KEY.command(table, "estop"), "sig": "AAAA" * 22}).encode(),
              json.dumps(KEY.command("another-table", "estop")).encode(),
              b'{"cmd": {"name": "jog"}, "sig": ""}', b"\x00" * 100]
    junk = [forged[n % len(forged)] for n in range(3000)]
    estop = json.dumps(KEY.command(table, "estop")).encode()
    lines: list[str] = []
    agent = agent_of(lines, tmp_path)

    class SlowDaemon(Daemon):
        """Each request waits as the daemon's API budget made it wait (50 a second)."""

        async def request(self, method: str, params: dict[str, Any] | None = None,
                          lang: str | None = None, **_: Any) -> Any:
            await asyncio.sleep(0.02)
            return await super().request(method, params, lang)

    broker, daemon = Broker([*junk, estop]), SlowDaemon()
    relayed: list[float] = []
    publish = broker.publish

    async def timed(topic: str, body: bytes, **kw: Any) -> None:
        if json.loads(body).get("accepted"):
            relayed.append(time.monotonic())
        await publish(topic, body, **kw)
    broker.publish = timed      # type: ignore[method-assign]

    async def main() -> float:
        started = time.monotonic()
        await asyncio.wait_for(agent._commands(daemon, broker), 60)  # type: ignore[arg-type]
        return relayed[0] - started
    took = asyncio.run(main())
    assert daemon.envelopes == [json.loads(estop)]     # no junk reached the daemon
    assert sum(a["accepted"] for a in broker.acks) == 1
    assert len(broker.acks) <= 1 + 3000 and all(a["why"] for a in broker.acks
                                                if not a["accepted"])
    assert took < 1.0, took


def test_a_flood_on_cmd_logs_a_few_lines_a_minute_then_a_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, every refused message was a line in the agent's journal."""
    from venue.agent import agent
    now = [1000.0]
    monkeypatch.setattr(agent.time, "monotonic", lambda: now[0])
    lines: list[str] = []
    log = agent.RefusalLog(lines.append)
    for _ in range(50):
        log.refused({"why": "malformed command"})
    assert len(lines) == 5
    now[0] += 61
    log.refused({"why": "bad signature"})
    assert lines[5:] == ["commands refused and not logged in the last minute: 45",
                         "command refused: bad signature "]


def test_replayed_and_expired_signed_commands_wait_with_the_junk(tmp_path: Path) -> None:
    """Whoever may publish on `cmd` has every command the venue sent (they are read on
    `mjt/v1/#`). Before, 3,000 copies of one, or old expired ones, all passed as the
    venue's and went to the daemon one by one (20 ms each: a fresh `estop` behind them
    waited a minute); now only the first copy is relayed, the rest refused here."""
    table = load_config().table.id
    once = KEY.command(table, "identify")
    expired = KEY.command(table, "disable", issued=time.time() - 600)
    replays = [json.dumps(once).encode()] * 1500 + [json.dumps(expired).encode()] * 1500
    estop = json.dumps(KEY.command(table, "estop")).encode()
    broker, daemon, _lines = _run([*replays, estop], tmp_path)
    assert daemon.envelopes == [once, json.loads(estop)]
    refused = [a["why"] for a in broker.acks if not a["accepted"]]
    assert set(refused) == {"command id already used", "command expired"}
