"""Event-log reads from many clients run one at a time: each holds the GIL for most
of its work, and many at once starved the loop the table runs on (bench_attacks
`log_reads` prints how late the loop answers; nothing is timed here)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

from tests.console.conftest import Daemon
from tests.security.conftest import raw, replies


def test_log_reads_from_many_clients_never_overlap(daemon: Daemon) -> None:
    log = daemon.api.eventlog
    real = log.iter_query
    lock = threading.Lock()
    running = {"now": 0, "most": 0, "calls": 0}

    def query(**filters: Any) -> Iterator[dict[str, Any]]:
        with lock:
            running["now"] += 1
            running["calls"] += 1
            running["most"] = max(running["most"], running["now"])
        try:
            time.sleep(0.05)        # a long read: overlapping ones would meet here
            return iter(list(real(**filters)))
        finally:
            with lock:
                running["now"] -= 1

    log.iter_query = query   # type: ignore[method-assign]
    socks = [raw(daemon) for _ in range(4)]
    try:
        line = json.dumps({"id": 1, "method": "log", "params": {"limit": 50}}).encode()
        for sock in socks:
            sock.sendall((line + b"\n") * 4)
        for sock in socks:
            assert all(r.get("ok") for r in replies(sock, 4))
    finally:
        del log.iter_query
        for sock in socks:
            sock.close()
    assert running["calls"] == 16
    assert running["most"] == 1
