"""A second look at issue 22's defences, as a local user in the socket's group: each
test is an attack that got through after the first round, and what a user sees now."""

from __future__ import annotations

import json

from tests.console.conftest import Daemon

from .conftest import raw, replies


def test_refused_venue_commands_go_through_the_client_row_gate(daemon: Daemon) -> None:
    """Attack: `command` is open to the socket's group and each refused envelope wrote
    one unthrottled `venue.refused` row: at the line budget (100 a second over every
    connection) the 200,000-row history rotated away in about half an hour."""
    daemon.call(lambda: daemon.api.server.client_rows.flush(everything=True))
    daemon.api.eventlog.flush()
    before = len(daemon.rows("venue.refused"))
    line = json.dumps({"id": 1, "method": "command", "params": {"envelope": {}}}).encode()
    with raw(daemon) as sock:
        sock.sendall((line + b"\n") * 300)
        got = replies(sock, 300)
    assert all(r["ok"] and r["result"]["accepted"] is False for r in got)
    assert len(daemon.rows("venue.refused")) - before < 5
    daemon.call(lambda: daemon.api.server.client_rows.flush(everything=True))
    repeated = daemon.rows("venue.refused.repeated")
    assert repeated and repeated[-1]["count"] >= 290
