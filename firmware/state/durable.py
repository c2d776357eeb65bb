"""The one thread that makes the table's state durable: the loop never waits for a disk.

The journal, the usage ledger and the event log each write what a crash of the process
must not lose from the loop (page cache, WAL), and hand the rest — fsyncs, WAL
checkpoints, the event log's batched commits — to this thread as jobs. A job is keyed
by its owner: submitting one while the owner's job still waits returns that job's
ticket (it will find everything submitted so far), so a burst of saves costs one fsync.
A job may wait a little before it runs (the event log gathers a batch); one due now
runs first.

One thread for the process (`shared()`): an fsync that takes a second delays the
others' disk work, never the loop.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Hashable

Job = Callable[[], None]


class Ticket:
    """Set once the job it was handed for has run."""

    def __init__(self) -> None:
        self._done = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)


class Durable:
    def __init__(self, name: str = "durable") -> None:
        self.name = name
        self._cond = threading.Condition()
        self._jobs: dict[Hashable, tuple[float, Job, Ticket]] = {}
        self._thread: threading.Thread | None = None

    def submit(self, key: Hashable, job: Job, delay: float = 0.0) -> Ticket:
        """Run `job` in the thread, `delay` seconds from now at the latest; the job of
        `key` already waiting (its ticket is returned) runs instead, no later than that."""
        due = time.monotonic() + delay
        with self._cond:
            waiting = self._jobs.get(key)
            ticket = waiting[2] if waiting is not None else Ticket()
            self._jobs[key] = (min(due, waiting[0]) if waiting else due, job, ticket)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self.name,
                                                daemon=True)
                self._thread.start()
            self._cond.notify()
        return ticket

    def _next(self) -> tuple[Job, Ticket]:
        with self._cond:
            while True:
                if not self._jobs:
                    self._cond.wait()
                    continue
                key = min(self._jobs, key=lambda k: self._jobs[k][0])
                due, job, ticket = self._jobs[key]
                wait = due - time.monotonic()
                if wait <= 0:
                    del self._jobs[key]
                    return job, ticket
                self._cond.wait(wait)

    def _run(self) -> None:
        while True:
            job, ticket = self._next()
            # A job keeps its own errors (its owner hears of them); the thread outlives
            # any one owner's bug.
            try:
                with contextlib.suppress(Exception):
                    job()
            finally:
                ticket._done.set()


_SHARED = Durable()


def shared() -> Durable:
    """The process's one durable-writer thread."""
    return _SHARED
