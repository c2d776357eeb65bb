"""The one-shot console on a headless install: rich and textual cannot be imported,
and status, faults, log, clear, technicians and verify-log still work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from firmware.console import render

from .conftest import TOKEN, Daemon

# Imported first by the child (sitecustomize): as if the console extra were not there.
BLOCKER = '''
import sys
class _NoConsoleExtra:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("rich", "textual"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoConsoleExtra())
'''


def _console(tmp_path: Path, daemon: Daemon, *args: str) -> subprocess.CompletedProcess[str]:
    blocker = tmp_path / "blocker"
    blocker.mkdir(exist_ok=True)
    (blocker / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), *sys.path]),
           "MJTABLE_TOKEN": TOKEN}
    return subprocess.run(
        [sys.executable, "-m", "mjtable.cli", "console", "--socket", str(daemon.socket),
         "--state-dir", str(daemon.state), *args],
        capture_output=True, text=True, timeout=120, env=env)


def test_one_shot_commands_without_rich_or_textual(daemon: Daemon, tmp_path: Path) -> None:
    probe = _console(tmp_path, daemon, "status")
    assert probe.returncode == 0, probe.stderr
    assert "side 0 " in probe.stdout and "\ncommitment: " in probe.stdout
    assert "active:" in _console(tmp_path, daemon, "faults").stdout
    assert _console(tmp_path, daemon, "log", "--kind", "phase").stdout.strip()
    clear = _console(tmp_path, daemon, "--technician", "li", "clear", "E21")
    assert clear.returncode == 1 and "no active fault “E21”" in clear.stderr, clear.stderr
    assert _console(tmp_path, daemon, "technicians").stdout.split() == ["li"]
    daemon.api.eventlog.flush()
    verify = _console(tmp_path, daemon, "verify-log")
    assert verify.returncode == 0 and ": intact: " in verify.stdout, verify.stderr
    tui = _console(tmp_path, daemon, "tui")
    assert (tui.returncode, tui.stderr.splitlines()) == (2, [
        "mjtable console: the TUI needs the console extra (rich is missing): "
        "pip install 'mjtable[console]'"])


def test_the_plain_status_picture_is_the_coloured_one_uncoloured(daemon: Daemon) -> None:
    status = daemon.call(daemon.ctl.status)
    status.update(estopped=True, service={"test_mode": True, "running": "lid"})
    for rows in (None, 4):
        assert render.table_plain(status, rows) == render.table_text(status, rows).plain
