"""A daemon that stops answering (hung, stopped with SIGSTOP, a loop stuck on a dying
SD card) must not freeze the TUI: the keys still work while a command waits, and the
command gives up with a line after a while instead of waiting for ever."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from textual.widgets import Input, RichLog, Static

from firmware.console import tui
from firmware.console.tui import ConsoleApp

from .conftest import start_daemon
from .test_tui import text_of, wait_for


def test_a_hung_daemon_does_not_freeze_the_tui(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tui, "REPLY_TIMEOUT_S", 1.0)
    daemon, stop = start_daemon(tmp_path)
    hang = threading.Event()

    async def scenario() -> None:
        app = ConsoleApp(daemon.socket)
        async with app.run_test(size=(160, 50)) as pilot:
            picture = app.query_one("#picture", Static)
            await wait_for(lambda: "side 0" in text_of(picture), pilot, 30)
            daemon.loop.call_soon_threadsafe(hang.wait, 20)     # the daemon hangs
            await pilot.click("#command")
            await pilot.press(*"faults", "enter")
            # While the daemon does not answer, typing still reaches the input.
            await pilot.press(*"inf")
            command = app.query_one("#command", Input)
            await wait_for(lambda: command.value == "inf", pilot, 5)
            events = app.query_one("#events", RichLog)
            await wait_for(lambda: any("did not answer" in str(line.text)
                                       for line in events.lines), pilot, 10)
    try:
        asyncio.run(scenario())
    finally:
        hang.set()
        stop()
