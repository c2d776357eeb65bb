"""A table id that is not one MQTT topic level: `mjtable agent` says so and exits 2.

Before, `[table] id = "t+1"` (or `#`) ended the agent with a ValueError traceback
from paho when it built its last will, after the daemon's link was up; an id with a
`/` published under another topic tree (`mjt/v1/a/b/...`, read by the venue as table
`a`), and an empty one under `mjt/v1//`.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from mjtable.cli import main
from mjtable_core.config import DEFAULT_CONFIG


@pytest.mark.parametrize("table", ["t+1", "t#1", "a/b", ""])
def test_a_table_id_outside_one_topic_level_is_one_line_and_exit_2(
        table: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from venue.agent import agent

    async def started(self: object) -> None:
        raise AssertionError("the agent started")
    monkeypatch.setattr(agent.Agent, "run", started)
    config = tmp_path / "table.toml"
    config.write_text(DEFAULT_CONFIG.read_text().replace('id = "table-1"', f'id = "{table}"'))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["agent", "--config", str(config), "--broker", "mqtt://127.0.0.1:1",
                     "--phone", ""])
    assert code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and "[table] id" in lines[0], lines
