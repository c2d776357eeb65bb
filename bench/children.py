"""The processes a benchmark starts end with it, however it ends.

A bench that starts a daemon or an I/O-board emulator starts it with `spawn` and calls
`install()` first thing in `main`. Then SIGTERM and SIGINT unwind the bench like an
exception (its `finally` blocks run), and whatever is still running at exit gets
SIGTERM, then SIGKILL after a grace: a killed bench leaves no table running.
"""

from __future__ import annotations

import atexit
import signal
import subprocess
from typing import Any

GRACE_S = 5.0
_running: set[subprocess.Popen[Any]] = set()
_installed = False


def spawn(args: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """`subprocess.Popen(args, **kwargs)`, stopped at the latest when the bench exits."""
    proc: subprocess.Popen[Any] = subprocess.Popen(args, **kwargs)
    _running.add(proc)
    return proc


def stop(proc: subprocess.Popen[Any], grace_s: float = GRACE_S) -> None:
    """A clean stop (SIGTERM); SIGKILL if it has not ended within `grace_s`."""
    _running.discard(proc)
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def stop_all() -> None:
    """Stop every process `spawn` started that is still running."""
    for proc in list(_running):
        stop(proc)


def _on_signal(signum: int, _frame: Any) -> None:
    # Unwind like Ctrl-C, so the bench's own clean-up runs; atexit catches the rest.
    raise SystemExit(128 + signum)


def install() -> None:
    """Make SIGTERM and SIGINT end the bench through its clean-up, children included."""
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(stop_all)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _on_signal)

