"""sd_notify against a real Unix datagram socket, as systemd listens for it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from firmware.service.sdnotify import Notifier, attach_systemd, watchdog_period_s


@pytest.fixture
def listener():
    """A datagram socket in the abstract namespace, and its NOTIFY_SOCKET name."""
    name = f"mjtable-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2.0)
    yield sock, "@" + name
    sock.close()


def received(sock: socket.socket) -> str:
    return sock.recv(4096).decode()


def test_ready_status_watchdog_stopping_reach_the_socket(listener):
    sock, address = listener
    notify = Notifier(address)
    assert notify.enabled
    assert notify.ready("table-1 on built-in simulator")
    assert received(sock) == "READY=1\nSTATUS=table-1 on built-in simulator"
    notify.status("hand 3: rolling\nsecond line")
    assert received(sock) == "STATUS=hand 3: rolling second line"
    notify.watchdog()
    assert received(sock) == "WATCHDOG=1"
    notify.stopping()
    assert received(sock) == "STOPPING=1"


def test_a_path_socket_works_too(tmp_path: Path):
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2.0)
    try:
        assert Notifier(str(path)).watchdog()
        assert received(sock) == "WATCHDOG=1"
    finally:
        sock.close()


def test_without_notify_socket_it_is_a_no_op(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    notify = Notifier()
    assert not notify.enabled
    assert notify.ready() is False and notify.watchdog() is False


def test_a_listener_that_went_away_never_raises(tmp_path: Path):
    assert Notifier(str(tmp_path / "gone")).ready() is False


def test_watchdog_period_is_half_of_watchdog_sec(monkeypatch):
    monkeypatch.setenv("WATCHDOG_USEC", "4000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_period_s() == 2.0
    monkeypatch.setenv("WATCHDOG_PID", "1")        # meant for another process
    assert watchdog_period_s() is None


class FakeController:
    def __init__(self) -> None:
        self.subscribers: list = []


def test_keepalives_come_from_the_loop_and_stop_when_it_hangs(listener, monkeypatch):
    sock, address = listener
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    monkeypatch.setenv("WATCHDOG_USEC", "100000")      # WatchdogSec=0.1 → every 0.05 s
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    ctl = FakeController()

    async def main() -> None:
        attach_systemd(ctl, asyncio.get_running_loop())
        await asyncio.sleep(0.22)
        ctl.subscribers[0]({"kind": "phase", "state": "rolling", "cycle": 2})

    asyncio.run(main())
    sock.settimeout(0.2)
    messages = []
    try:
        while True:
            messages.append(received(sock))
    except TimeoutError:
        pass
    assert messages.count("WATCHDOG=1") >= 4
    assert "STATUS=hand 2: rolling" in messages
    # The loop is gone: no keep-alive arrives any more, so systemd would act.
    with pytest.raises(TimeoutError):
        received(sock)


def test_daemon_says_ready_only_once_the_table_runs(listener, tmp_path):
    sock, address = listener
    for sub in ("state", "run"):
        (tmp_path / sub).mkdir()
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "1000000",
           "STATE_DIRECTORY": str(tmp_path / "state"),
           "RUNTIME_DIRECTORY": str(tmp_path / "run")}
    env.pop("WATCHDOG_PID", None)
    root = Path(__file__).resolve().parents[2]
    config = root / "config" / "table.toml"
    sim_config = tmp_path / "table.toml"
    sim_config.write_text(config.read_text().replace('backend = "auto"', 'backend = "sim"'))
    messages: list[str] = []
    sock.settimeout(0.2)
    done = threading.Event()

    def collect() -> None:          # as systemd does: read while the daemon runs
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                messages.append(received(sock))

    reader = threading.Thread(target=collect)
    reader.start()
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from mjtable.cli import main; "
         "sys.exit(main(sys.argv[1:]))", "run", "--plain", "--speed", "200",
         "--cycles", "1", "--config", str(sim_config)],
        capture_output=True, text=True, env=env, timeout=60, cwd=root)
    done.set()
    reader.join()
    with contextlib.suppress(TimeoutError):
        while True:                 # whatever came in after the reader's last look
            messages.append(received(sock))
    assert proc.returncode == 0, proc.stderr
    ready = [m for m in messages if m.startswith("READY=1")]
    assert len(ready) == 1 and "table-1" in ready[0]
    first = messages.index(ready[0])
    assert any(m.startswith("STATUS=hand") for m in messages[first:])
    assert "WATCHDOG=1" in messages
    stopping = [i for i, m in enumerate(messages) if m.startswith("STOPPING=1")]
    assert len(stopping) == 1 and stopping[0] > first
    # The loop keeps its keep-alives while it stops (a slow stop on a loaded machine is
    # not a hung one): only those may follow STOPPING.
    assert set(messages[stopping[0] + 1:]) <= {"WATCHDOG=1"}


def test_safe_outputs_helper_runs_without_the_daemon(tmp_path):
    root = Path(__file__).resolve().parents[2]
    config = tmp_path / "table.toml"
    config.write_text((root / "config" / "table.toml").read_text()
                      .replace('backend = "auto"', 'backend = "sim"'))
    proc = subprocess.run([sys.executable, "-m", "firmware.service.safe_outputs", "--config",
                           str(config)], capture_output=True, text=True, timeout=30, cwd=root)
    assert proc.returncode == 0 and "no outputs" in proc.stdout
