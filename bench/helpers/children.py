"""The processes a benchmark starts end with it, however it ends.

A bench that starts a daemon or an I/O-board emulator starts it with `spawn` and calls
`install()` first thing in `main`. Then SIGTERM and SIGINT unwind the bench like an
exception (its `finally` blocks run), and whatever is still running at exit gets
SIGTERM, then SIGKILL after a grace: a killed bench leaves no table running.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
from typing import Any

GRACE_S = 5.0
# Ahead of ordinary work (0), far from the range real-time audio and the like use.
FAVOURED_NICE = -10
_running: set[subprocess.Popen[Any]] = set()
_installed = False


def spawn(args: list[str], *, favoured: bool = False, **kwargs: Any) -> subprocess.Popen[Any]:
    """`subprocess.Popen(args, **kwargs)`, stopped at the latest when the bench exits.

    `favoured`: run it at FAVOURED_NICE where the system allows (see `favour`)."""
    proc: subprocess.Popen[Any] = subprocess.Popen(args, **kwargs)
    _running.add(proc)
    if favoured:
        favour(proc.pid)
    return proc


def favour(pid: int) -> bool:
    """Give a real-time process of a bench the CPU first; False where not allowed.

    A table's controller has its own processor; a bench shares one with whatever
    else runs. On a busy host a process waits milliseconds for a CPU, and at --speed
    that is table-time: a motor stop then arrives after the cam has left home. Set
    at once after the start, before the process starts its threads (they inherit
    it). Without the privilege (CAP_SYS_NICE) the bench runs at normal priority."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, FAVOURED_NICE)
    except OSError:
        return False
    return True


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

