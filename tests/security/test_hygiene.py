"""Strings from outside reach no terminal raw; broken requests get a clear refusal."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from firmware.console import render
from firmware.console.cli import main
from firmware.console.tui import _event_text, said
from firmware.console.view import log_line
from firmware.printable import printable
from tests.console.conftest import TOKEN, Daemon

from .conftest import raw, replies

EVIL = "\x1b]0;x\x07\x1b[2J"


def test_a_hostile_name_reaches_no_terminal_raw(daemon: Daemon,
                                                capsys: pytest.CaptureFixture) -> None:
    """Attack: technician name "\\x1b]0;x\\x07\\x1b[2J" reached the terminal raw in
    `console log` and the TUI."""
    with raw(daemon) as sock:
        sock.sendall(json.dumps({"id": 1, "method": "login",
                                 "auth": {"name": EVIL, "token": "x" * 12}}).encode() + b"\n"
                     + json.dumps({"id": 2, "method": "estop",
                                   "params": {"name": EVIL}}).encode() + b"\n"
                     + json.dumps({"id": 3, "method": "diagnose",
                                   "params": {"symptom": EVIL}}).encode() + b"\n")
        got = {r["id"]: r for r in replies(sock, 3)}
    assert not got[1]["ok"] and "\x1b" not in got[1]["error"]["message"]
    assert "\x1b" not in got[3]["error"]["message"]
    daemon.api.eventlog.flush()
    assert main(["--socket", str(daemon.socket), "log", "--limit", "400"]) == 0
    out = capsys.readouterr().out
    assert "\\x1b]0;x\\x07" in out and "\x1b" not in out and "\x07" not in out
    # The rows an older daemon wrote raw are cleaned on the way out too.
    row = {"seq": 1, "t": 1.0, "kind": "technician.refused", "name": EVIL}
    assert "\x1b" not in render.log_line(row)
    assert "\x1b" not in _event_text({"t": 1.0, "kind": "x", "name": EVIL}).plain
    assert "\x1b" not in (log_line({"t": 1.0, "kind": "start", "table": EVIL}) or "")


def test_printable_escapes_controls_and_bidi() -> None:
    assert printable("li") == "li"
    assert printable("a\u202eb\x9b") == "a\\u202eb\\x9b"
    assert printable("中文\tx") == "中文\\x09x"


def test_broken_requests_get_a_clear_refusal(daemon: Daemon) -> None:
    """Attack: a token with a lone surrogate gave an "internal" error and the token went
    into the log; JSON nested 1,000 deep gave an unhandled RecursionError traceback."""
    token = "secret-\\ud800-tok"
    lines = [
        b'{"id": 1, "method": "login", "auth": {"name": "li", "token": "'
        + token.encode() + b'"}}',
        b'{"id": 2, "method": "info", "params": {"a": ' + b"[" * 1000 + b"]" * 1000 + b"}}",
        b"[" * 20000 + b"]" * 20000,
        b'{"id": 4, "method": "status"}',
    ]
    with raw(daemon) as sock:
        sock.sendall(b"\n".join(lines) + b"\n")
        got = replies(sock, 4)
    by_id = {r["id"]: r for r in got}
    assert by_id[1]["error"]["code"] == "bad_request"
    assert "Unicode" in by_id[1]["error"]["message"]
    deep = [r for r in got if r["id"] in (2, None)]
    assert len(deep) == 2 and all(r["error"]["code"] == "bad_request" and
                                  "nested deeper" in r["error"]["message"] for r in deep)
    assert by_id[4]["ok"]
    daemon.api.eventlog.flush()
    text = (daemon.state / "events.sqlite").read_bytes()
    assert b"secret-" not in text
    assert daemon.rows("api.error") == []
    # The daemon still answers a login with the right token.
    with raw(daemon) as sock:
        sock.sendall(json.dumps({"id": 5, "method": "login",
                                 "auth": {"name": "li", "token": TOKEN}}).encode() + b"\n")
        (ok,) = replies(sock, 1)
    assert ok["ok"]


def test_printable_escapes_every_invisible_format_and_line_character() -> None:
    """Attack: a name with the Arabic letter mark (U+061C, a bidi control missing from
    the list), a zero-width space, a byte-order mark or a line/paragraph separator
    (U+2028/2029: a new line to Python's splitlines and some viewers) passed raw."""
    for char in ("\u061c", "\u200b", "\u2060", "\ufeff", "\u00ad", "\u2028", "\u2029",
                 "\U000e0041"):
        shown = printable(f"li{char}x")
        assert char not in shown and shown.startswith("li\\"), (hex(ord(char)), shown)
    assert printable("李 Wang-Lì ☃") == "李 Wang-Lì ☃"


def test_huge_numbers_get_a_clear_refusal_and_write_no_row(daemon: Daemon) -> None:
    """Attack: a 5,000-digit integer (past Python's int-to-str limit: ValueError, not a
    JSON error) killed the connection's handler with a traceback; a log filter past
    SQLite's 64-bit integers (OverflowError) was an "internal" error that wrote an
    `api.error` row for every request, an open flood of the event log."""
    daemon.api.eventlog.flush()
    before = len(daemon.rows("api.error"))
    lines = [b'{"id": 1, "method": "info", "params": {"n": ' + b"9" * 5000 + b"}}"]
    for i, key in enumerate(("cycle", "run", "after_seq"), start=2):
        lines.append(json.dumps({"id": i, "method": "log",
                                 "params": {key: 2 ** 70}}).encode())
    lines.append(b'{"id": 5, "method": "walls", "params": {"limit": ' + b"9" * 18 + b"}}")
    lines.append(b'{"id": 6, "method": "status"}')
    with raw(daemon) as sock:
        sock.sendall(b"\n".join(lines) + b"\n")
        got = {r["id"]: r for r in replies(sock, 6)}
    assert got[None]["error"]["code"] == "bad_request", got
    for i in (2, 3, 4):
        assert got[i]["error"]["code"] == "bad_request", got[i]
    assert got[5]["ok"] and got[6]["ok"]
    daemon.api.eventlog.flush()
    assert len(daemon.rows("api.error")) == before


def test_a_daemon_refusal_reaches_the_terminal_escaped(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    """The console printed the daemon's error text raw: a refusal quoting what was sent
    (or any daemon on the socket) could retitle or wipe the technician's terminal."""
    path = tmp_path / "api.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def answer() -> None:
        conn, _ = server.accept()
        with conn, conn.makefile("rb") as fh:
            request = json.loads(fh.readline())
            conn.sendall(json.dumps({"id": request["id"], "ok": False, "error": {
                "code": "refused", "message": f"no such symptom {EVIL}\nline2"}}).encode()
                + b"\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        assert main(["--socket", str(path), "diagnose", "x"]) == 1
    finally:
        thread.join(5)
        server.close()
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert "\\x1b]0;x\\x07" in err and "\nline2" in err


def test_the_tui_events_pane_shows_replies_escaped() -> None:
    """A refusal the TUI shows ("clear refused: ...") quoted the daemon's text raw."""
    shown = said(f"clear refused: no fault {EVIL}\nsecond line", "bold red")
    assert "\x1b" not in shown.plain and "\x07" not in shown.plain
    assert "\\x1b]0;x\\x07" in shown.plain and shown.plain.endswith("\nsecond line")
