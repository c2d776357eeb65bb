"""No walls, hands or next draw of a hand in play through the API, the log or the event
file; state files private whatever the umask."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from firmware.api.client import Client
from firmware.hands.consumers import HandoffFile
from firmware.state.eventlog import EventLog
from firmware.state.journal import FileJournal
from tests.console.conftest import Daemon

from .conftest import raw

SECRET = ("walls", "hands", "next_draw", "dealt_slots")
SECRET_FIELDS = (*SECRET, "flowers", "replacements")


def in_play(daemon: Daemon) -> dict[str, Any] | None:
    handoff = daemon.ctl.handoff
    if not hasattr(handoff, "in_play"):     # older firmware: the last record is in play
        return daemon.call(lambda: handoff.records[-1] if handoff.records else None)
    return daemon.call(lambda: handoff.in_play)


def wait_in_play(daemon: Daemon, after: int = 0) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while True:
        record = in_play(daemon)
        if record is not None and record["table"]["cycle"] > after:
            return record
        assert time.monotonic() < deadline, "no hand was dealt"
        time.sleep(0.05)


def test_walls_log_and_subscribe_hide_the_hand_in_play(daemon: Daemon) -> None:
    """Attack: open `walls`, `log` and `subscribe` gave every wall and all four hands of
    the hand in play, next_draw included."""
    with raw(daemon) as sub:
        sub.sendall(b'{"id": 1, "method": "subscribe", "params": {"streams": ["events"]}}\n')
        record = wait_in_play(daemon)
        cycle = record["table"]["cycle"]
        with Client(daemon.socket) as client:
            walls = client.call("walls", {"limit": 50})
            shown = [r for r in walls["records"] if r["table"]["cycle"] == cycle]
            assert shown and not any(k in shown[0] for k in SECRET)
            assert shown[0]["commitment"] == record["commitment"] and shown[0]["dice"]
            daemon.api.eventlog.flush()
            rows = client.call("log", {"kind": "handoff", "limit": 1000})["rows"]
        assert rows and not any(k in r.get("record", {}) for r in rows for k in SECRET)
        # The next hand's walls rise: this one is over and may be shown.
        wait_in_play(daemon, after=cycle)
        sub.settimeout(20)
        streamed, buf = [], b""
        while not any(e.get("kind") == "handoff.revealed" for e in streamed):
            chunk = sub.recv(65536)
            assert chunk
            buf += chunk
            *lines, buf = buf.split(b"\n")
            streamed += [m["event"] for m in map(json.loads, filter(None, lines))
                         if m.get("stream") == "event"]
    handoffs = [e for e in streamed if e["kind"] == "handoff"]
    assert handoffs and not any(k in e["record"] for e in handoffs for k in SECRET)
    revealed = [e for e in streamed if e["kind"] == "handoff.revealed"]
    assert revealed[0]["record"]["walls"] and revealed[0]["nonce"]
    with Client(daemon.socket) as client:
        old = [r for r in client.call("walls", {"limit": 50})["records"]
               if r["table"]["cycle"] == cycle]
    assert old[0]["walls"] == record["walls"]
    # The event file itself: no row with the tiles of the hand now in play.
    daemon.api.eventlog.flush()
    now = in_play(daemon)
    conn = sqlite3.connect(daemon.state / "events.sqlite")
    datas = [json.loads(d) for (d,) in conn.execute(
        "SELECT data FROM events WHERE kind IN ('handoff', 'handoff.revealed')")]
    conn.close()
    assert now is not None
    assert not any(d.get("record", {}).get("walls") == now["walls"] for d in datas)


def test_signals_never_show_a_tile_code(daemon: Daemon) -> None:
    with Client(daemon.socket) as client:
        signals = client.call("status")["signals"]
    readers = {k: v for k, v in signals.items() if v["kind"] == "reader"}
    assert all(v["value"] in (None, "read") for v in readers.values())


def test_state_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    """Attack: events.sqlite was 0644 outside systemd."""
    old = os.umask(0)
    try:
        log = EventLog(tmp_path / "events.sqlite")
        log.record({"t": 1.0, "kind": "phase", "state": "play"})
        log.flush()
        journal = FileJournal(tmp_path)
        journal.save({"clean": True})
        HandoffFile(tmp_path / "handoff.jsonl")({"commitment": "sha256:" + "0" * 64})
    finally:
        os.umask(old)
    log.close()
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
    assert modes["events.sqlite"] == 0o640
    assert all(modes[n] == 0o640 for n in modes if n.startswith("events.sqlite-"))
    assert modes["journal.json"] == 0o600 and modes["handoff.jsonl"] == 0o600


def test_the_public_record_names_what_it_holds_back() -> None:
    from firmware.hands.handoff import public_record
    record = {"commitment": "sha256:x", "walls": [], "hands": {}, "dice": [1],
              "next_draw": [0, 0]}
    shown = public_record(record)
    assert shown["dice"] == [1] and not set(SECRET_FIELDS) & set(shown)
    assert set(shown["secret_until_hand_ends"]) == {"walls", "hands", "next_draw"}


def test_the_daemons_journal_and_an_old_handoff_file_are_private(tmp_path: Path) -> None:
    """Attack: the daemon's journal (FlushedJournal, the staged walls of the next hand
    and the deal's nonce) was written 0640, readable by the state files' group; a
    handoff file left 0644 by an older firmware stayed 0644 while the walls and hands
    of the hand in play were appended to it."""
    from firmware.state.journal_flush import FlushedJournal
    old_file = tmp_path / "handoff.jsonl"
    old_file.write_text('{"commitment":"sha256:' + "1" * 64 + '"}\n')
    old_file.chmod(0o644)
    (tmp_path / "journal.tmp").write_text("{}")
    (tmp_path / "journal.tmp").chmod(0o644)     # a temporary file left by a crash
    old = os.umask(0)
    try:
        journal = FlushedJournal(tmp_path)
        journal.save({"clean": True, "handoff": {"nonce": "n"}})
        journal.close()
        HandoffFile(old_file)({"commitment": "sha256:" + "0" * 64, "walls": []})
    finally:
        os.umask(old)
    assert (tmp_path / "journal.json").stat().st_mode & 0o777 == 0o600
    assert old_file.stat().st_mode & 0o777 == 0o600
