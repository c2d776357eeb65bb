"""Cutting the tail off the event log and rewriting its head in `meta` leaves a log
that `verify-log` passes (nothing in the file says how long it was): the head must be
readable from the running daemon, so anyone can note it and catch the cut later."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

from firmware.state.eventlog import LogReader
from tests.console.conftest import Daemon
from tests.security.conftest import raw, replies


def _info(daemon: Daemon) -> dict:
    with raw(daemon) as sock:
        sock.sendall(json.dumps({"id": 1, "method": "info"}).encode() + b"\n")
        return replies(sock, 1)[0]["result"]


def test_the_daemon_serves_its_log_head_and_a_cut_tail_shows(daemon: Daemon,
                                                             tmp_path: Path) -> None:
    deadline = time.monotonic() + 30
    while daemon.api.eventlog.written < 5 and time.monotonic() < deadline:
        time.sleep(0.1)     # the simulated table logs as it runs
    noted = _info(daemon)["event_log_head"]
    daemon.api.eventlog.flush()
    # The operator copies the log (the daemon goes on writing to its own), deletes the
    # rows from the noted one on and rewrites the head in meta.
    copy = tmp_path / "events.sqlite"
    conn = sqlite3.connect(daemon.state / "events.sqlite")
    conn.execute(f"VACUUM INTO '{copy}'")
    conn.close()
    noted_id, noted_chain = noted.split(":")
    conn = sqlite3.connect(copy)
    # What the daemon served is a row it committed, with that chain value.
    assert conn.execute("SELECT chain FROM events WHERE id = ?",
                        (int(noted_id),)).fetchone() == (noted_chain,)
    conn.execute("DELETE FROM events WHERE id >= ?", (int(noted_id),))
    chain = conn.execute("SELECT chain FROM events WHERE id = ?",
                         (int(noted_id) - 1,)).fetchone()[0]
    conn.execute("UPDATE meta SET value = ? WHERE key = 'chain_head'",
                 (f"{int(noted_id) - 1}:{chain}",))
    conn.commit()
    conn.close()
    cut = LogReader(copy)
    assert cut.verify_chain()[0]            # the file alone cannot tell
    # The head noted from the running daemon can: no row of the cut log carries it.
    assert cut.chain_head() != noted
    assert noted_chain not in {r.get("chain") for r in cut.query(limit=100000)}
    shutil.rmtree(tmp_path, ignore_errors=True)
