"""What the venue agent says in its log, in the table's language (a zh_CN venue reads
`journalctl -u mjtable-agent` too), and a --broker that is not an address named as such."""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path

import pytest

from firmware import i18n
from mjtable.cli import main
from mjtable_core.config import load_config
from tests.console.zh_sweep import stray
from venue.agent.agent import Agent


@pytest.fixture
def chinese(monkeypatch) -> object:
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    was = i18n.current()
    i18n.set_language("zh_CN")
    yield
    i18n.set_language(was)


def test_no_daemon_is_said_in_chinese(tmp_path: Path, chinese: object) -> None:
    lines: list[str] = []
    agent = Agent(load_config(), tmp_path / "no.sock", "mqtt://127.0.0.1:1",
                  log=lines.append)

    async def first_line() -> None:
        task = asyncio.create_task(agent.run())
        while not lines:
            await asyncio.sleep(0.01)
        agent.stop()
        await task
    asyncio.run(asyncio.wait_for(first_line(), 10))
    assert "no.sock" in lines[0] and stray(lines[0]) == [], lines[0]


def test_a_broker_without_a_scheme_is_named_not_called_missing(chinese: object) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["agent", "--broker", "nohost:1"]) == 2
    text = err.getvalue()
    assert "nohost:1" in text and stray(text) == [], text
