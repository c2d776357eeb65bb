"""A benchmark stopped by SIGTERM or SIGINT leaves no child process running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT

# A bench in miniature: one long-lived child started the way the benches start theirs.
BENCH = """
import signal, sys
from bench.helpers import children
children.install()
child = children.spawn([sys.executable, "-c", "import time; time.sleep(120)"])
print(child.pid, flush=True)
signal.pause()
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0): it has ended, its parent just has not reaped it.
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signalled_bench_stops_its_children(signum: int) -> None:
    bench = subprocess.Popen([sys.executable, "-c", BENCH], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE)
    assert bench.stdout is not None
    child = int(bench.stdout.readline())
    assert _alive(child)
    bench.send_signal(signum)
    assert bench.wait(timeout=30) == 128 + signum
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the bench's child outlived it"


def test_a_favoured_child_runs_ahead_of_ordinary_work() -> None:
    # The power-cut bench's daemon and emulator: where the system allows a negative
    # nice (CAP_SYS_NICE), they get it; elsewhere they run as the bench does.
    from bench.helpers import children

    proc = children.spawn([sys.executable, "-c", "import time; time.sleep(30)"],
                          favoured=True)
    try:
        nice = os.getpriority(os.PRIO_PROCESS, proc.pid)
        allowed = children.favour(proc.pid)
        assert nice == (children.FAVOURED_NICE if allowed else os.getpriority(
            os.PRIO_PROCESS, 0))
    finally:
        children.stop(proc, 1.0)


def test_every_bench_starts_its_long_lived_children_through_children() -> None:
    # A bench that starts a daemon with a bare Popen leaves it running when killed
    # (bench_attacks did): every Popen goes through children.spawn, and a bench that
    # spawns installs the signal handlers in its main.
    bare, uninstalled = [], []
    for path in sorted((ROOT / "bench").rglob("*.py")):
        if path.name == "children.py":
            continue
        text = path.read_text(encoding="utf-8")
        if "Popen(" in text:
            bare.append(path.name)
        if "children.spawn(" in text and "children.install()" not in text:
            uninstalled.append(path.name)
    assert not bare, f"start children with bench.helpers.children.spawn: {bare}"
    assert not uninstalled, f"call children.install() in main: {uninstalled}"
