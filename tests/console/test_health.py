"""`mjtable console health` and the TUI's `health`: the warnings with part, side and
date, and the schedule, on a headless install too; a job marked done starts again."""

from __future__ import annotations

import datetime
from collections import deque
from pathlib import Path

from .conftest import Daemon
from .test_headless import _console
from .test_tui_screens import harness, reply_screen  # noqa: F401


def test_console_health_without_rich_or_textual(daemon: Daemon, tmp_path: Path) -> None:
    # Count retries at side 2 in the last builds, as the table counts them.
    daemon.call(lambda: daemon.ctl.wear.retries[2].extend([2, 0, 3]))
    shown = _console(tmp_path, daemon, "health")
    assert shown.returncode == 0, shown.stderr
    by = (datetime.date.today() + datetime.timedelta(days=7)).isoformat()
    assert (f"clean the count sensor of side 2 within a week (by {by}): count sensor of "
            f"side 2, 5 count retries and faults in the last") in shown.stdout
    assert "maintenance schedule (by hands dealt):" in shown.stdout
    assert "weekly (280 hands) sensors: clean the count sensors" in shown.stdout
    done = _console(tmp_path, daemon, "--technician", "li", "health", "--done", "sensors")
    assert done.returncode == 0, done.stderr
    assert "sensors: clean the count sensors of every side and the dice sensor; 0 hands " \
           "since last done" in done.stdout
    assert any(r.get("job") == "sensors" for r in daemon.rows("maintenance.done"))
    wrong = _console(tmp_path, daemon, "--technician", "li", "health", "--done", "polish")
    assert wrong.returncode != 0 and "maintained needs" in wrong.stderr


def test_health_in_the_tui(harness, tmp_path: Path) -> None:  # noqa: F811
    harness.ctl.wear.retries[1] = deque([4, 0], maxlen=12)

    text = reply_screen(harness, tmp_path, "health", "maintenance schedule", (160, 50))
    assert "clean the count sensor of side 1 within a week" in text
