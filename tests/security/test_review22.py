"""A second look at issue 22's defences, as a local user in the socket's group: each
test is an attack that got through after the first round, and what a user sees now."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.api.guards.budget import Budgets
from firmware.api.venue import REFUSED_PER_WINDOW
from firmware.hands.consumers import HandoffFile, drop_partial_line, quarantine_path
from mjtable.cli import main
from mjtable_core.clientrows import WINDOW_S
from tests.console.conftest import Daemon, start_daemon
from tests.console.conftest import raw as console_raw

from .conftest import raw, replies


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon with the budgets it ships with."""
    running, stop = start_daemon(tmp_path_factory.mktemp("state"), budgets=True)
    yield running
    stop()


def test_refused_venue_commands_go_through_the_client_row_gate(daemon: Daemon) -> None:
    """Attack: `command` is open to the socket's group and each refused envelope wrote
    one unthrottled `venue.refused` row: at the line budget (100 a second over every
    connection) the 200,000-row history rotated away in about half an hour."""
    gate = daemon.api.server.client_rows
    daemon.call(lambda: gate.flush(everything=True))
    daemon.api.eventlog.flush()
    since = max((r["seq"] for r in daemon.rows("venue.refused")), default=0)
    line = json.dumps({"id": 1, "method": "command", "params": {"envelope": {}}}).encode()
    started = daemon.call(gate.clock.now)
    with raw(daemon) as sock:
        sock.sendall((line + b"\n") * 300)
        got = replies(sock, 300)
    # The gate's windows are table time (the daemon runs 50 times faster than the wall):
    # a loaded host takes several of them to answer 300 lines, and each may write its few.
    windows = 1 + int((daemon.call(gate.clock.now) - started) // WINDOW_S)
    assert all(r["ok"] and r["result"]["accepted"] is False for r in got)
    written = len([r for r in daemon.rows("venue.refused") if r["seq"] > since])
    assert written <= REFUSED_PER_WINDOW * windows
    daemon.call(lambda: gate.flush(everything=True))
    counted = sum(r["count"] for r in daemon.rows("venue.refused.repeated") if r["seq"] > since)
    assert written + counted >= 290


def test_connections_each_under_their_own_budget_still_share_everyones(
        budgeted: Daemon) -> None:
    """Attack: a connection that "asked little of late" (its own budget over half full)
    never waited for everyone's, so 14 connections of one uid each sending 45 `status`
    a second (under their own 50) got 630 requests a second through, six times
    everyone's budget: with the daemon on a quarter of a core the e-stop took 185 ms
    (p50) and 608 ms (p99) to act. Skipping everyone's budget now also needs the uid as
    a whole to have asked little."""
    wide_open_each = Budgets(client_lines=(1000.0, 1000.0), all_lines=(0.001, 1.0))
    budgeted.call(lambda: budgeted.api.server.set_budgets(wide_open_each))
    line = b'{"id": 1, "method": "status"}\n'
    try:
        socks = [console_raw(budgeted) for _ in range(4)]
        for sock in socks:
            sock.sendall(line * 10)
        answered = sum(_count_replies(sock, 10, within_s=0.3) for sock in socks)
        for sock in socks:
            sock.close()
    finally:
        budgeted.call(lambda: budgeted.api.server.set_budgets(Budgets()))
    assert answered <= 25, f"{answered} of 40 requests went past everyone's budget"


def _count_replies(sock: socket.socket, most: int, within_s: float) -> int:
    sock.settimeout(within_s)
    buf = b""
    with contextlib.suppress(TimeoutError):
        while buf.count(b"\n") < most:
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            buf += chunk
    return buf.count(b"\n")


def test_score_on_json_nested_past_the_parser(tmp_path: Path,
                                              capsys: pytest.CaptureFixture) -> None:
    """Attack: `mjtable score` was left out of the crafted-file hardening; a declared
    win nested 100,000 deep ended in a RecursionError traceback."""
    path = tmp_path / "win.json"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "nested too deep" in err


@given(data=st.binary(max_size=300) | st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
        st.sampled_from(["concealed", "melds", "discarder", "last_tile", "params",
                         "flowers", "kong", "gold", "hun", "fourth_tile", "x"]),
        kids, max_size=4), max_leaves=12))
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_score_on_crafted_files(data: Any, tmp_path: Path,
                                capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "win.json"
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(json.dumps(data))
    code = main(["score", str(path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert code in (0, 2) and (code == 0 or len(err.strip().splitlines()) == 1), err


SCORE_LINES = st.binary(max_size=200) | st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(
        st.sampled_from(["cycle", "commitment", "hand", "winner", "payments", "table"]),
        kids, max_size=4), max_leaves=10).map(lambda v: json.dumps(v).encode())


@given(lines=st.lists(SCORE_LINES, max_size=4), deal_cycle=st.sampled_from(
    [1, [1], "1", None, True]))
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_verify_deals_on_a_crafted_scores_file(lines: list[bytes], deal_cycle: Any,
                                               tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    """Attack: `verify-deals --scores` was left out of the crafted-file hardening: a score
    line nested past the parser, a `cycle` that was a list, a `hand` without a winner
    each ended in a traceback."""
    records = tmp_path / "handoff.jsonl"
    records.write_text(json.dumps({"commitment": "sha256:00", "table": {
        "cycle": deal_cycle, "dealer_position": 0}}) + "\n")
    scores = tmp_path / "scores.jsonl"
    scores.write_bytes(b"\n".join(lines) + b"\n" + b"[" * 100_000 + b"\n"
                       + b'{"cycle": 1, "commitment": "sha256:00", "hand": {}}\n')
    main(["verify-deals", str(records), "--scores", str(scores)])
    err = capsys.readouterr().err
    assert "Traceback" not in err


def test_a_handoff_tail_nested_past_the_parser_is_cut_off_not_a_crash(
        tmp_path: Path) -> None:
    """Attack: an unterminated last line of 20,000 brackets in the handoff file made the
    tail check before each append (and the search for the last commitment) raise
    RecursionError instead of quarantining the line."""
    path = tmp_path / "handoff.jsonl"
    whole = json.dumps({"commitment": "sha256:aa"}) + "\n"
    path.write_text(whole + "[" * 20_000 + "]" * 20_000 + "\n" + "[" * 20_000)
    assert HandoffFile(path).last_commitment() == "sha256:aa"
    fd = os.open(path, os.O_RDWR)
    try:
        done = drop_partial_line(fd, quarantine_path(path))
    finally:
        os.close(fd)
    assert done is not None and done["bytes"] == 20_000
    assert path.read_text().endswith("]\n")


def test_open_log_reads_do_not_starve_a_technicians_faults(daemon: Daemon) -> None:
    """Attack: `log` reads are one at a time over every client, each followed by a pause
    nine times its processor time, and `faults` queued behind them: 8 connections of
    open `log` reads over fat rows held a technician's `faults` past 40 s (8 ms idle).
    `faults` reads only the table's own fault rows (a hundred at most) and no longer
    waits its turn behind clients' reads."""
    for i in range(12):
        daemon.api.eventlog.record({"t": float(i), "kind": "bench.fat", "text": "f" * 200_000})
    daemon.api.eventlog.flush()
    line = json.dumps({"id": 1, "method": "log", "params": {"limit": 1000}}).encode()
    floods = [raw(daemon) for _ in range(4)]
    try:
        for sock in floods:
            sock.sendall((line + b"\n") * 16)
        with raw(daemon) as sock:
            sock.settimeout(3.0)
            started = time.monotonic()
            sock.sendall(b'{"id": 7, "method": "faults"}\n')
            reply = replies(sock, 1)[0]
            assert reply["ok"] and time.monotonic() - started < 3.0
    finally:
        for sock in floods:
            sock.close()
