"""Only the venue acknowledges hand records, by a signed command.

Before, the API also took an unsigned `usage_ack` from anyone on the daemon's socket:
acknowledging every record before the agent sent it (the agent starts each session
from the acknowledged sequence) kept hands from ever reaching the venue's billing.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.console.conftest import raw, replies, start_daemon


def test_an_unsigned_usage_ack_on_the_socket_is_refused(tmp_path: Path) -> None:
    daemon, stop = start_daemon(tmp_path, players=False)
    try:
        sock = raw(daemon)
        for n, (method, params) in enumerate((("usage_ack", {"seq": 10 ** 6}),
                                              ("usage", {"after": 0, "limit": 1}))):
            sock.sendall(json.dumps({"id": n, "method": method, "params": params}
                                    ).encode() + b"\n")
        ack, usage = replies(sock, 2, streams=False)
        sock.close()
    finally:
        stop()
    assert ack["ok"] is False, ack
    assert usage["ok"] and usage["result"]["totals"]["acked"] == 0
