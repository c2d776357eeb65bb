"""`mjtable console` one-shot commands: against a running daemon, a stopped one, and
the technicians file; plus `mjtable run --socket` as a real subprocess."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mjtable.cli import main

from .conftest import TOKEN, Daemon


def test_console_against_a_stopped_daemon(tmp_path: Path, capsys) -> None:
    sock = tmp_path / "api.sock"
    assert main(["console", "--socket", str(sock), "status"]) == 3
    err = capsys.readouterr().err
    assert f"no table daemon at {sock}" in err and "is `mjtable run` running?" in err


def test_add_and_remove_technician_token_from_stdin(tmp_path: Path, capsys,
                                                    monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-token-1\n"))
    assert main(["--state-dir", str(tmp_path), "console", "add-technician", "wang"]) == 0
    stored = (tmp_path / "technicians.json").read_text()
    assert "wang" in stored and "a-long-token-1" not in stored
    assert main(["--state-dir", str(tmp_path), "console", "technicians"]) == 0
    assert "wang" in capsys.readouterr().out
    assert main(["--state-dir", str(tmp_path), "console", "remove-technician", "wang"]) == 0
    assert main(["--state-dir", str(tmp_path), "console", "remove-technician", "wang"]) == 1


def test_one_shot_commands(daemon: Daemon, capsys, monkeypatch) -> None:
    sock = ["console", "--socket", str(daemon.socket)]
    assert main([*sock, "status"]) == 0
    out = capsys.readouterr().out
    assert "side 0" in out and "display:" in out and "hands: " in out
    assert main([*sock, "status", "--json"]) == 0
    assert "signals" in json.loads(capsys.readouterr().out)
    assert main([*sock, "faults"]) == 0
    assert "active:" in capsys.readouterr().out
    assert main([*sock, "log", "--kind", "phase", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and {r["kind"] for r in rows} == {"phase"}
    assert main([*sock, "walls"]) == 0
    assert "commitment now" in capsys.readouterr().out
    # Refused: no technician; then a wrong token.
    assert main([*sock, "jog", "dice", "fwd", "0.2"]) == 1
    assert "needs a technician" in capsys.readouterr().err
    monkeypatch.setenv("MJTABLE_TOKEN", "not-the-token")
    assert main([*sock, "--technician", "li", "clear", "E21"]) == 1
    assert "wrong technician name or token" in capsys.readouterr().err
    monkeypatch.setenv("MJTABLE_TOKEN", TOKEN)
    assert main([*sock, "--technician", "li", "clear", "nonexistent"]) == 1
    assert "no active fault “nonexistent”" in capsys.readouterr().err
    # The simulated players keep playing: wait for a moment with no hands in the hole.
    deadline = time.monotonic() + 20
    while main([*sock, "--technician", "li", "test-mode", "on", "--force"]) != 0:
        err = capsys.readouterr().err
        assert "hands may be in the hole" in err, err
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert "test mode on" in capsys.readouterr().out
    assert main([*sock, "--technician", "li", "test", "head.1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["results"][0]["result"] == "P", result
    assert result["results"][0]["by"] == "li"
    assert main([*sock, "--technician", "li", "test-mode", "off"]) == 0


@pytest.mark.skipif(sys.platform != "linux", reason="Unix sockets on Linux")
def test_mjtable_run_serves_the_socket(tmp_path: Path) -> None:
    sock = tmp_path / "run" / "api.sock"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    daemon = subprocess.Popen(
        [sys.executable, "-m", "mjtable.cli", "--state-dir", str(tmp_path / "state"), "run",
         "--plain", "--speed", "50", "--socket", str(sock)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        deadline = time.monotonic() + 20
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        status = subprocess.run(
            [sys.executable, "-m", "mjtable.cli", "console", "--socket", str(sock),
             "status", "--json"], capture_output=True, text=True, timeout=30, env=env)
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["table"]
    finally:
        daemon.send_signal(signal.SIGTERM)
        out, _ = daemon.communicate(timeout=20)
    assert daemon.returncode == 0, out
    assert f"API on {sock}" in out and "every motor off" in out
    assert not sock.exists()
    assert (tmp_path / "state" / "events.sqlite").exists()
