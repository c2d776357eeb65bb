"""A fault reaches the event stream as it is raised, not after the journal's fsync.

A fault is journaled inside the emit that announces it (an fsync of the file and its
directory): on a busy disk that takes tens to hundreds of milliseconds, and the
stream's writer task only ran after it. The venue's agent (and a technician's live
view) heard of the fault that much later.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from tests.console.conftest import raw, replies, start_daemon

FSYNC_S = 0.6       # a journal save on a disk that other writers keep busy


class SlowJournal:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def load(self) -> dict[str, Any]:
        return self.inner.load()

    def save(self, state: dict[str, Any]) -> None:
        time.sleep(FSYNC_S)         # the fsync, as the loop sees it: it waits
        self.inner.save(state)


def test_a_fault_is_streamed_before_the_journal_is_saved(tmp_path: Path) -> None:
    daemon, stop = start_daemon(tmp_path)
    sock = raw(daemon)
    try:
        sock.sendall(b'{"id": 1, "method": "subscribe", "params": {"streams": ["events"]}}\n')
        assert replies(sock, 1, streams=False)[0]["ok"]
        arrived: dict[str, float] = {}

        def read() -> None:
            buf = b""
            while "fault" not in arrived:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    event = json.loads(line).get("event") or {}
                    if event.get("kind") == "fault" and event.get("id") == "timing.drift":
                        arrived["fault"] = time.monotonic()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()

        def raise_fault() -> float:
            ctl = daemon.ctl
            journal, ctl.journal = ctl.journal, SlowJournal(ctl.journal)
            raised = time.monotonic()
            try:
                ctl.fault("timing.drift", "lid.up", None, {"mechanism": "lid.up"})
            finally:
                ctl.journal = journal
            return raised

        raised = daemon.call(raise_fault)
        reader.join(5)
        assert "fault" in arrived, "the fault never reached the stream"
        # Before: FSYNC_S and more (the writer task waited for the emit to finish).
        assert arrived["fault"] - raised < FSYNC_S / 2
    finally:
        sock.close()
        stop()
