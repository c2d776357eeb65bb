"""The daemon's journal: written in the loop, made durable by a flusher thread.

`FileJournal.save` fsyncs the file and its directory before it returns. In the
daemon that wait happened inside the one loop, and an fsync waits for the file
system's whole journal commit, so another process writing to the same disk made it
last 0.1-1.5 s: a loop blocked that long sends no heartbeat, reads no edge and stops
no motor (measured with the power-cut bench: heads ran past home, head.jam, then
link.lost on both ends).

Here the loop does only what a process crash must not lose: the new version is
written to a temporary file and renamed over the old one (page cache, no wait for
the disk). A crash of the daemon at any instant (SIGKILL, an exception, the OOM
killer) therefore finds the journal exactly as the last save left it, written ahead
of whatever the controller does next. The durable-writer thread (durable.py) then
fsyncs the newest version and the directory; a cut of the machine's power finds at
worst the version before the last flush (and `FileJournal.load` treats an unreadable
file as an unclean stop).
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any

from firmware.state import durable
from firmware.state.journal import FileJournal


class FlushedJournal(FileJournal):
    """A `FileJournal` whose fsyncs run in the durable-writer thread, never in the
    caller's loop."""

    def __init__(self, directory: Path, writer: durable.Durable | None = None) -> None:
        super().__init__(directory)
        self._writer = writer or durable.shared()
        self._cond = threading.Condition()
        self._pending: list[int] = []     # fds of versions written, newest last
        self._closed = False
        self._error: OSError | None = None
        self._ticket: durable.Ticket | None = None
        self.flushes = 0

    def save(self, state: dict[str, Any]) -> None:
        """Replace the journal now; its fsync follows in the durable-writer thread.

        Raises OSError as `FileJournal.save` does, including one the writer met since
        the last save (a disk that fails must be seen, not hidden in a thread).
        """
        with self._cond:
            error, self._error = self._error, None
        if error is not None:
            raise error
        data = self.encode(state)
        tmp = self.path.with_suffix(".tmp")
        # 0600 as FileJournal: it holds the staged walls of the next hand and the nonce.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)    # a temporary file left by a crash keeps its mode
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.replace(tmp, self.path)
        except BaseException:
            os.close(fd)
            raise
        with self._cond:
            if self._closed:
                # After close() nobody flushes: do it here, as FileJournal would.
                self._sync(fd)
                error, self._error = self._error, None
                if error is not None:
                    raise error
                return
            self._pending.append(fd)
        self._ticket = self._writer.submit(self, self._flush_pending)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every saved version is on the disk; False if `timeout` ran out."""
        ticket = self._ticket
        return ticket is None or ticket.wait(timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Flush what is pending (a clean stop's last save); later saves sync at once."""
        self.flush(timeout)
        with self._cond:
            self._closed = True

    def _flush_pending(self) -> None:
        with self._cond:
            fds, self._pending = self._pending, []
        if not fds:
            return
        # Older versions were already replaced: only the newest needs the disk.
        for fd in fds[:-1]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._sync(fds[-1])
        self.flushes += 1

    def _sync(self, fd: int) -> None:
        # The writer must outlive a failing disk; the error goes to the next save.
        try:
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        except OSError as exc:
            self._error = exc
