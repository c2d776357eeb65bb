"""The Textual console against a running daemon, driven by Textual's pilot."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import DataTable, RichLog, Static

from firmware.console.tui import ConsoleApp

from .conftest import TOKEN, Daemon


def text_of(widget: Static) -> str:
    return str(widget.render())


async def wait_for(predicate, pilot, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "the screen never showed it"
        await pilot.pause(0.1)


def test_tui_shows_table_signals_and_runs_a_test_behind_login(daemon: Daemon) -> None:
    async def scenario() -> None:
        app = ConsoleApp(daemon.socket)
        async with app.run_test(size=(160, 60)) as pilot:
            picture = app.query_one("#picture", Static)
            await wait_for(lambda: "side 0" in text_of(picture), pilot)
            assert "lid" in text_of(picture) and "ready" in text_of(picture)
            signals = app.query_one("#signals", DataTable)
            assert signals.row_count >= 40
            assert "lid.lower" in [str(k.value) for k in signals.rows]
            # The meter follows the table: some value changes arrive and are highlighted.
            await wait_for(lambda: bool(app.changed_at), pilot)
            # A privileged command asks for the login first, then runs. Motion waits
            # for test mode while a hand is in play, so test mode comes first.
            said: list[str] = []        # what the console tells the technician, in order
            say = app._say

            def recording(text: str, style: str = "") -> None:
                said.append(text)
                say(text, style)
            app._say = recording
            await pilot.click("#command")
            await pilot.press(*"testmode on force", "enter")
            # Waited for, not slept on: a loaded CI machine takes longer than 0.2 s.
            await wait_for(lambda: app.screen.__class__.__name__ == "Login", pilot)
            await pilot.press(*"li", "enter", *TOKEN, "enter")
            events = app.query_one("#events", RichLog)
            # Generous: under a neighbour's full load the typing alone took seconds.
            loop = asyncio.get_running_loop()
            started, answered = loop.time(), 0
            while not daemon.api.maintenance.test_mode:
                assert loop.time() < started + 60, f"no test mode; the console said {said}"
                await pilot.pause(0.1)
                # Refused while the players' hole is open (force does not override it):
                # each refusal, the command ran, and is asked again.
                refusals = [t for t in said if "hands may be in the hole" in t]
                if len(refusals) > answered:
                    answered = len(refusals)
                    await pilot.press(*"testmode on force", "enter")
            await pilot.press(*"test dice", "enter")
            await wait_for(lambda: any("dice" in str(line.text) and " P " in str(line.text)
                                       for line in events.lines), pilot, 30)
            await pilot.press(*"testmode off", "enter")
            await pilot.pause(0.5)
    asyncio.run(scenario())


def test_tui_says_when_no_daemon_runs(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = ConsoleApp(tmp_path / "none.sock")
        async with app.run_test() as pilot:
            await pilot.pause(0.2)
            assert "no table daemon at" in text_of(app.query_one("#picture", Static))
    asyncio.run(scenario())


def test_tui_login_checks_the_token_at_once(daemon: Daemon) -> None:
    # A wrong token was accepted until the first action; now the dialog's answer is it.
    async def scenario() -> None:
        app = ConsoleApp(daemon.socket)
        async with app.run_test(size=(120, 40)) as pilot:
            events = app.query_one("#events", RichLog)
            await wait_for(lambda: app.api is not None, pilot)
            app.action_login()
            await wait_for(lambda: app.screen.__class__.__name__ == "Login", pilot)
            await pilot.press(*"li", "enter", *"not-the-token", "enter")
            await wait_for(lambda: any("login refused" in str(line.text)
                                       for line in events.lines), pilot, 20)
            assert app.credential is None
            app.action_login()
            await wait_for(lambda: app.screen.__class__.__name__ == "Login", pilot)
            await pilot.press(*"li", "enter", *TOKEN, "enter")
            await wait_for(lambda: any("logged in as li" in str(line.text)
                                       for line in events.lines), pilot, 20)
            assert app.credential == ("li", TOKEN)
    asyncio.run(scenario())


def test_f5_runs_the_self_test_the_active_fault_names(tmp_path: Path) -> None:
    # A dead head motor and a head-home sensor stuck active look alike: the fault names
    # the head self-test of its side, and F5 runs it (behind the login, as any test).
    faults = [{"id": "plate.stuck", "code": "E31", "where": "side.1.plate", "cycle": 1,
               "sim_time_s": 3.0, "active": False,
               "diagnosis": {"summary": "s", "causes": [], "remedy": [],
                             "self_test": "plate.1"}},
              {"id": "head.jam", "code": "E22", "where": "side.2.head", "cycle": 1,
               "sim_time_s": 5.0, "active": True,
               "diagnosis": {"summary": "the stacking head did not complete its turn",
                             "causes": ["the head motor of side 2"], "remedy": ["x"],
                             "self_test": "head.2"}}]
    ran: list[str] = []

    async def scenario() -> None:
        app = ConsoleApp(tmp_path / "none.sock")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.2)

            async def run_command(command: str) -> None:
                ran.append(command)

            app.run_command = run_command    # type: ignore[method-assign]
            app.status = {"faults": faults}
            app._show_faults(faults)
            assert "F5: run the head.2 self-test" in text_of(app.query_one("#faults", Static))
            await pilot.press("f5")
            await pilot.pause(0.2)
            app.status = {"faults": faults[:1]}
            await pilot.press("f5")
            await pilot.pause(0.2)
            events = app.query_one("#events", RichLog)
            assert any("no active fault names a self-test" in str(line.text)
                       for line in events.lines)
    asyncio.run(scenario())
    assert ran == ["test head.2"]
