"""Run a test's coroutine on an event loop of its own thread: a browser test before it
may hold this thread's loop (Playwright's sync driver keeps one running)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable


def run_in_own_thread(main: Callable[[], Awaitable[object]], timeout: float = 30.0) -> None:
    """`asyncio.run(main())` in a new thread; its exception is raised here."""
    failed: list[BaseException] = []

    def in_thread() -> None:
        try:
            asyncio.run(main())     # type: ignore[arg-type]
        except BaseException as exc:     # handed to the test's own thread
            failed.append(exc)

    worker = threading.Thread(target=in_thread)
    worker.start()
    worker.join(timeout)
    if failed:
        raise failed[0]
