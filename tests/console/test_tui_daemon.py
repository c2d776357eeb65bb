"""The TUI knows its daemon: a banner when it goes away, a reconnection when it comes
back, never a traceback; no daemon at all is the console's one line and exit 3."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import RichLog, Static

from firmware.console.tui import ConsoleApp
from mjtable.cli import main

from .conftest import start_daemon
from .test_tui import text_of, wait_for


def test_tui_without_a_daemon_is_one_line_and_exit_3(tmp_path: Path, capsys) -> None:
    sock = ["console", "--socket", str(tmp_path / "none.sock")]
    assert main([*sock, "status"]) == 3
    status = capsys.readouterr()
    assert main([*sock, "tui"]) == 3
    tui = capsys.readouterr()
    assert tui.out == "" and tui.err == status.err and len(tui.err.splitlines()) == 1


def test_tui_shows_a_lost_daemon_and_reconnects_by_itself(tmp_path: Path) -> None:
    daemon, stop = start_daemon(tmp_path)

    async def scenario() -> None:
        nonlocal daemon, stop
        app = ConsoleApp(daemon.socket)
        async with app.run_test(size=(160, 50)) as pilot:
            picture = app.query_one("#picture", Static)
            faults = app.query_one("#faults", Static)
            banner = app.query_one("#banner", Static)
            await wait_for(lambda: "side 0" in text_of(picture), pilot, 30)
            assert not banner.display
            await asyncio.get_running_loop().run_in_executor(None, stop)
            await wait_for(lambda: banner.display, pilot, 30)
            assert "disconnected from the table daemon" in text_of(banner)
            assert text_of(faults) == "not connected to a table daemon"
            # A command typed meanwhile is answered, not a traceback.
            await pilot.click("#command")
            await pilot.press(*"faults", "enter")
            events = app.query_one("#events", RichLog)
            await wait_for(lambda: any("not connected to a table daemon" in str(line.text)
                                       for line in events.lines), pilot)
            # The daemon comes back on the same socket: the console finds it again.
            daemon, stop = await asyncio.get_running_loop().run_in_executor(
                None, start_daemon, tmp_path)
            await wait_for(lambda: not banner.display, pilot, 30)
            await wait_for(lambda: "no active faults" in text_of(faults), pilot, 30)
            assert any("reconnected to the table daemon" in str(line.text)
                       for line in events.lines)
            await pilot.press(*"walls", "enter")
            await wait_for(lambda: any("commitment now" in str(line.text)
                                       for line in events.lines), pilot, 30)
        assert app.return_code in (0, None)
    try:
        asyncio.run(scenario())
    finally:
        stop()
