"""Start-up time of the daemon: process start to systemd's READY=1.

    python -m bench.table.bench_startup [--runs 5] [--json]

Each run binds a Unix datagram socket, spawns `mjtable run --plain` with
`NOTIFY_SOCKET` pointing at it (as systemd does for a `Type=notify` service, with a
fresh state directory and API socket), and times from just before the spawn to the
datagram carrying `READY=1`. The daemon sends READY only once the config is read, the
HAL is open and the table has started (firmware/service/daemon.py), so the figure covers the
interpreter, every import, the config, the HAL (on a machine without table hardware:
the built-in simulator), the API socket and the controller's start. Then the daemon
gets SIGTERM and must exit 0. The figure is the median over `runs`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.helpers import children

READY_TIMEOUT_S = 30.0


def command() -> list[str]:
    """`mjtable` as installed next to this interpreter, else the same module by -m."""
    script = Path(sys.executable).parent / "mjtable"
    return [str(script)] if script.exists() else [sys.executable, "-m", "mjtable.cli"]


def _wait_ready(sock: socket.socket, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    # Short waits, so a daemon that dies before READY is reported at once.
    sock.settimeout(0.05)
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            message = sock.recv(4096).decode()
        except TimeoutError:
            continue
        if "READY=1" in message.split("\n"):
            return
    _, err = proc.communicate(timeout=30) if proc.poll() is not None else (None, b"")
    raise RuntimeError(f"no READY=1 (exit code {proc.poll()}): {err.decode().strip()}")


def start_once() -> float:
    """Seconds from spawning the daemon to its READY=1; the daemon is stopped after."""
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-") as tmp:
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(os.path.join(tmp, "notify"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("WATCHDOG_")}
        env["NOTIFY_SOCKET"] = os.path.join(tmp, "notify")
        args = [*command(), "--state-dir", os.path.join(tmp, "state"), "run", "--plain",
                "--socket", os.path.join(tmp, "api.sock")]
        started = time.perf_counter()
        proc = children.spawn(args, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        try:
            _wait_ready(notify, proc)
            elapsed = time.perf_counter() - started
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
            if proc.returncode != 0:
                raise RuntimeError(f"daemon exited {proc.returncode} on SIGTERM: "
                                   f"{err.decode().strip()}")
        finally:
            children.stop(proc, grace_s=0.0)    # SIGKILL at once unless it has ended
            notify.close()
    return elapsed


def measure(runs: int = 5) -> dict[str, float | list[float]]:
    """`startup_s`: the median over `runs` starts; `startup_runs_s`: each start."""
    times = [start_once() for _ in range(runs)]
    return {"startup_s": round(statistics.median(times), 3),
            "startup_runs_s": [round(t, 3) for t in times]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table.bench_startup",
                                     description="Daemon start-up to READY=1.")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    children.install()
    figures = measure(args.runs)
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
