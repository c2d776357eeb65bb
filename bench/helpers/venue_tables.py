"""Real `mjtable run` daemons on the simulator, and a plain client of their API socket
(the venue tests and benches)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Children go through bench.helpers.children.spawn; the benches' mains call
# children.install(), so a killed bench stops its brokers and daemons too.
from bench.helpers import children
from firmware.api.client import Client, ClientError
from mjtable_core.config import reference_config

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = reference_config()


def table_config(directory: Path, table: str, play_time_s: float = 10.0,
                 extra: str = "") -> Path:
    """The reference table named `table`, with short hands."""
    text = REFERENCE.read_text(encoding="utf-8")
    text = re.sub(r'(?m)^id\s*=.*$', f'id = "{table}"', text, count=1)
    text = re.sub(r'(?m)^play_time_s\s*=.*$', "", text)
    text = text.replace("[simulator]", f"[simulator]\nplay_time_s = {play_time_s}", 1)
    path = directory / f"{table}.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path


def call(path: Path, method: str, params: dict[str, Any] | None = None,
         timeout: float = 15.0) -> Any:
    """One request on a fresh connection: the reply's result (ClientError if refused or
    the daemon cannot be reached)."""
    with Client(path, timeout=timeout) as client:
        return client.call(method, params)


class Daemon:
    """`mjtable run --plain` on the simulator, its socket and state in `directory`."""

    def __init__(self, directory: Path, table: str = "t1", speed: float = 40.0,
                 play_time_s: float = 10.0, extra: str = "") -> None:
        self.directory = directory
        self.table = table
        self.socket = directory / f"{table}.sock"
        self.state = directory / f"{table}-state"
        self.config = table_config(directory, table, play_time_s, extra)
        self.speed = speed
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Daemon:
        env = {**os.environ, "MJTABLE_LANG": "en"}
        self.proc = children.spawn(
            [sys.executable, "-m", "mjtable.cli", "--state-dir", str(self.state), "run",
             "--plain", "--speed", str(self.speed), "--config", str(self.config),
             "--socket", str(self.socket)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
        wait_for(lambda: self.socket.exists() and self._answers(), 60.0, "the API socket")
        return self

    def _answers(self) -> bool:
        try:
            call(self.socket, "info", timeout=1.0)
        except ClientError:
            return False
        return True

    def usage(self, after: int = 0) -> dict[str, Any]:
        return call(self.socket, "usage", {"after": after, "limit": 500})

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def wait_for(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
        except (OSError, AssertionError, ValueError):
            value = None        # a daemon restarting, or too busy to answer in time
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"waited {timeout:g} s for {what}")
