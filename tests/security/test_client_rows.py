"""Rows a client can cause (issue 22): counted and capped, never a way to rotate the
table's history away or fill the disk; symptoms and `log` replies bounded."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from firmware.api.client import EXIT_USAGE, Client, ClientError
from firmware.console.cli import main
from firmware.state.eventlog import EventLog
from mjtable_core.clientrows import TEXT_BYTES, ClientRows, bounded
from mjtable_core.clock import VirtualClock
from tests.console.conftest import Daemon

from .conftest import raw, replies


def gate(total: int = 120) -> tuple[ClientRows, VirtualClock, list[tuple[str, dict]]]:
    clock = VirtualClock()
    written: list[tuple[str, dict]] = []
    return (ClientRows(clock, lambda kind, **f: written.append((kind, f)), total=total),
            clock, written)


def test_one_row_per_key_and_window_then_a_count() -> None:
    rows, clock, written = gate()
    for _ in range(500):
        rows.row("api.error", ("subscribe", "TypeError"), method="subscribe")
    assert len(written) == 1
    clock.run_until(61.0)
    rows.flush()
    assert written[-1][0] == "api.error.repeated" and written[-1][1]["count"] == 499


def test_every_key_together_is_capped_and_the_rest_counted_by_kind() -> None:
    rows, clock, written = gate(total=50)
    for i in range(1000):
        rows.row("technician.refused", f"name{i}", name=f"name{i}")
    assert len(written) == 50
    clock.run_until(61.0)
    rows.flush()
    suppressed = [f for k, f in written if k == "api.rows.suppressed"]
    assert suppressed and suppressed[0]["rows"]["technician.refused"] == 950


def test_long_text_is_kept_as_its_start_and_digest() -> None:
    text = "zq" * 5000
    kept = bounded({"symptom": text, "result": {"said": [text]}})
    for value in (kept["symptom"], kept["result"]["said"][0]):
        assert len(value.encode()) < TEXT_BYTES + 120 and "sha256" in value
    assert bounded("short") == "short"


def boom_handler() -> Any:
    async def boom(*_: Any) -> Any:
        raise TypeError("a bug")
    return boom


def test_requests_failing_inside_the_daemon_write_one_row_a_window(
        daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: a request that failed inside the daemon wrote one `api.error` row each,
    10,000 rows/s: the history rotated away in 20 s."""
    monkeypatch.setitem(daemon.api.server.handlers, "walls", boom_handler())
    # A window (60 table-seconds at x50) lasts about a machine-second: held open for the
    # flood, which outlasts it under load.
    monkeypatch.setattr(daemon.api.server.client_rows, "window_s", 1e6)
    since = max((r["seq"] for r in daemon.rows("api.error")), default=0)
    line = json.dumps({"id": 1, "method": "walls"}).encode() + b"\n"
    with raw(daemon) as sock:
        sock.sendall(line * 500)
        got = replies(sock, 500)
    assert all(r["error"]["code"] == "internal" for r in got)
    # The table plays on meanwhile and logs its hands: only the errors' rows count.
    assert len([r for r in daemon.rows("api.error") if r["seq"] > since]) < 5
    daemon.call(lambda: daemon.api.server.client_rows.flush(everything=True))
    repeated = daemon.rows("api.error.repeated")
    assert repeated and repeated[-1]["count"] >= 490


def test_the_red_teams_failing_requests_are_bad_requests(daemon: Daemon) -> None:
    with raw(daemon) as sock:
        sock.sendall(b'{"id": 1, "method": "subscribe", "params": {"streams": [{}]}}\n'
                     b'{"id": 2, "method": "info", "lang": 5}\n')
        got = replies(sock, 2)
    assert got[0]["error"]["code"] == "bad_request"
    assert got[1]["ok"]


def test_a_long_nonsense_symptom_is_refused_not_echoed(daemon: Daemon) -> None:
    nonsense = "qx" * 5000
    with raw(daemon) as sock:
        sock.sendall(json.dumps({"id": 1, "method": "diagnose",
                                 "params": {"symptom": nonsense}}).encode() + b"\n")
        reply = replies(sock, 1)[0]
    assert reply["error"]["code"] == "bad_request"
    assert "qxqx" not in reply["error"]["message"] and len(reply["error"]["message"]) < 200


def test_a_symptom_is_stored_as_a_digest_past_a_few_hundred_bytes(daemon: Daemon) -> None:
    said = "the lid does not lower " + "really " * 38
    daemon.call(lambda: setattr(daemon.api.server.open_diagnoses, "_started", None))
    with raw(daemon) as sock:
        sock.sendall(json.dumps({"id": 1, "method": "diagnose",
                                 "params": {"symptom": said}}).encode() + b"\n")
        assert replies(sock, 1)[0]["ok"]
    row = daemon.rows("diagnosis")[-1]
    assert "sha256" in row["symptom"] and len(row["symptom"].encode()) < TEXT_BYTES + 120
    assert len(json.dumps(row).encode()) < 8192


def test_a_log_reply_is_bounded_in_bytes(daemon: Daemon) -> None:
    """Attack: one open `log` read over fat rows returned 44 MB."""
    for i in range(12):
        daemon.api.eventlog.record({"t": float(i), "kind": "bench.fat", "text": "f" * 200_000})
    daemon.api.eventlog.flush()
    with raw(daemon) as sock:
        sock.sendall(b'{"id": 1, "method": "log", "params": {"limit": 1000}}\n')
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = sock.recv(1 << 20)
            assert chunk
            buf += chunk
    assert len(buf) < 1.2 * 1024 * 1024
    result = json.loads(buf)["result"]
    assert all("oversized_bytes" in r for r in result["rows"] if r["kind"] == "bench.fat")
    assert result["rows"]


def test_verify_log_calls_a_young_rotation_suspicious(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Attack: a flood rotated a day of history away in seconds and verify-log still
    said intact."""
    log = EventLog(tmp_path / "events.sqlite", max_rows=1000, wall=lambda: 5000.0)
    for i in range(1500):
        log.record({"t": float(i), "kind": "api.error", "n": i})
    log.close()
    code = main(["verify-log", "--state-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and "SUSPICIOUS" in err and "younger than the 24 h" in err
    assert sqlite3.connect(tmp_path / "events.sqlite").execute(
        "SELECT count(*) FROM events").fetchone()[0] == 1000


def test_a_request_over_64_kib_is_refused_clearly(daemon: Daemon) -> None:
    """It used to wait for a reply that never named it and exit 3, "no daemon"."""
    with Client(daemon.socket) as client, pytest.raises(ClientError) as caught:
        client.call("diagnose", {"symptom": "x" * 70_000})
    assert caught.value.exit_code == EXIT_USAGE and "64 KiB" in str(caught.value)


def test_keys_a_flood_chooses_share_one_window_past_the_kept() -> None:
    # A local user has every address of 127.0.0.0/8 and the desk's refusals are keyed
    # by address: the windows held (and walked on every row) must not grow with the
    # flood. Before, 20,000 addresses in a minute held 20,000 windows, 12 ms a row.
    rows, clock, written = gate(total=2000)
    for i in range(5000):
        clock.run_until(i / 1000)
        rows.row("session.refused", f"127.0.{i >> 8}.{i & 255}", per_key=5, path="/x")
    assert len(rows._keys) <= 1025
    clock.run_until(66.0)
    rows.flush()
    assert not rows._keys
    closing = [f for k, f in written if k == "session.refused.repeated"]
    assert closing and closing[0]["key"] == "<other keys>"
    assert closing[0]["count"] == 5000 - 1024 - 5


def test_windows_end_in_order_and_each_one_once() -> None:
    rows, clock, written = gate()
    for i in range(10):
        clock.run_until(float(i * 5))
        for _ in range(3):
            rows.row("integrator.refused", f"key{i}", per_key=1)
    clock.run_until(65.5)       # the windows opened at 0 and 5 have ended
    rows.flush()
    assert [f["key"] for k, f in written if k.endswith(".repeated")] == ["key0", "key1"]
    assert len(rows._keys) == 8
