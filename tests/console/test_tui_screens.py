"""The console as a technician sees it: Textual's pilot and stored screenshots
(pytest-textual-snapshot) at 80×24 and 160×50, in English and Chinese.

The app talks to an in-process API (the daemon's own ApiServer handlers) on a
simulated table held on the virtual clock, so every screen is the same each run.
Refresh the stored screens after a deliberate change with
`pytest tests/console/test_tui_screens.py --snapshot-update` and look at them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import DataTable, Footer, Input, Static

from firmware import i18n
from firmware.api import protocol as p
from firmware.api.auth import Technicians
from firmware.api.server import ApiServer
from firmware.console.tui import ConsoleApp
from firmware.diagnosis.guided import SYMPTOMS
from simulator.harness.runner import Harness
from tests.test_diagnosis import table_in_play

SIZES = {"80x24": (80, 24), "160x50": (160, 50)}
LANGS = ("en", "zh_CN")


class TableApi:
    """The API of a simulated table, in process: each call answers, then the new
    status is streamed as the daemon would."""

    def __init__(self, app: ConsoleApp, harness: Harness, state: Path) -> None:
        self.app, self.harness = app, harness
        ctl = harness.ctl
        self.server = ApiServer(ctl, ctl.maintenance(), Technicians(state / "technicians.json"),
                                None)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, method: str, params: dict[str, Any] | None = None,
                   credential: tuple[str, str] | None = None) -> dict[str, Any]:
        params = params or {}
        self.calls.append((method, params))
        if method == "subscribe":
            return p.reply(1, {"streams": ["events", "signals", "status"],
                               "status": self.server.status(True)})
        who = credential[0] if credential else None
        try:
            result = await self.server.handlers[method](None, params, who)
        except p.ApiError as exc:
            return p.error(1, exc.code, exc.message)
        self.push_status()
        return p.reply(1, result)

    async def login(self, credential: tuple[str, str]) -> dict[str, Any]:
        return p.reply(1, {"technician": credential[0]})

    def push_status(self) -> None:
        self.app._on_stream({"stream": "status", "status": self.server.status()})

    def push_signals(self, changed: dict[str, Any]) -> None:
        self.app._on_stream({"stream": "signals", "signals": changed})

    def close(self) -> None:
        pass


class SimConsole(ConsoleApp):
    """The console app on a simulated table."""

    def __init__(self, harness: Harness, state: Path) -> None:
        # A fixed name: the header shows it, and the stored screens must not change.
        super().__init__(Path("/run/mjtable/api.sock"))
        self.harness, self.state = harness, state
        self.table: TableApi | None = None

    async def connect(self) -> Any:
        # A blinking cursor would make two screens of the same moment differ.
        self.query_one("#command", Input).cursor_blink = False
        self.table = TableApi(self, self.harness, self.state)
        return self.table


@pytest.fixture
def harness() -> Harness:
    return table_in_play()


def screen_text(app: ConsoleApp) -> str:
    """The screen as text, one line a row (what the report pastes)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip).rstrip() for strip in strips)


async def settle(pilot: Any, until: Any = None, timeout: float = 10.0) -> None:
    """Let the app catch up (and, given `until`, wait for it to hold): the machine
    may be busy, and a screen taken too early differs from the stored one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    await pilot.pause()
    while until is not None and not until():
        assert loop.time() < deadline, "the screen never showed it"
        await pilot.pause(0.05)
    await pilot.pause(0.05)
    await pilot.pause()


def shows(app: ConsoleApp, *texts: str) -> Any:
    return lambda: all(text in screen_text(app) for text in texts)


def reply_screen(harness: Harness, tmp_path: Path, command: str, shown: str,
                 size: tuple[int, int]) -> str:
    """The screen as text once `command`, typed at the prompt, shows `shown`."""
    async def scenario() -> str:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=size) as pilot:
            await settle(pilot, lambda: app._connected)
            await pilot.press(*command, "enter")
            await settle(pilot, shows(app, shown))
            return screen_text(app)
    return asyncio.run(scenario())


# -- what the screen does ------------------------------------------------------------


def test_signal_panel_follows_a_changed_signal(harness: Harness, tmp_path: Path) -> None:
    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot, lambda: app._connected)
            table = app.query_one("#signals", DataTable)
            assert str(table.get_cell("lid.upper", "value")) == "off"
            app.table.push_signals({"lid.upper": True})
            await settle(pilot, lambda: str(table.get_cell("lid.upper", "value")) == "on")
            cell = table.get_cell("lid.upper", "value")
            assert str(cell) == "on" and "yellow" in str(cell.style)
    asyncio.run(scenario())


def test_ctrl_e_stops_the_table_from_the_command_line(harness: Harness,
                                                      tmp_path: Path) -> None:
    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, lambda: app._connected)
            assert app.focused is not None and app.focused.id == "command"
            await pilot.press("t", "e", "ctrl+e")     # typing, then the e-stop key
            await settle(pilot, lambda: harness.ctl.estopped and "e-stop" in str(
                app.query_one("#picture", Static).render()))
            assert harness.ctl.estopped
            assert ("estop", {}) in app.table.calls
            picture = str(app.query_one("#picture", Static).render())
            assert "e-stop" in picture and "fault" not in picture
            footer = app.query_one(Footer)
            assert footer is not None and "E-STOP" in screen_text(app)
    asyncio.run(scenario())


def test_diagnosis_in_the_tui_is_text_not_json(harness: Harness, tmp_path: Path) -> None:
    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot, lambda: app._connected)
            await pilot.press(*"diagnose walls do not rise", "enter")
            await settle(pilot, shows(app, "the walls do not rise: normal"))
            shown = screen_text(app)
            assert "the walls do not rise: normal" in shown and "evidence:" in shown
            assert '{"' not in shown
            await pilot.press(*"help", "enter")
            await settle(pilot, shows(app, "dice_not_spinning"))
            # Every symptom is listed in full on a wide screen.
            assert "dice_not_spinning" in screen_text(app)
    asyncio.run(scenario())


def test_a_command_reply_shows_at_80x24(harness: Harness, tmp_path: Path) -> None:
    # The reply went to the events pane, which 80x24 hides behind F3: nothing seemed
    # to happen.
    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, lambda: app._connected)
            assert "no active faults" in screen_text(app)
            await pilot.press(*"diagnose walls do not rise", "enter")
            await settle(pilot, shows(app, "> diagnose walls do not rise"))
            # Play goes on: the events that follow do not push the reply's first
            # lines (the command and its verdict) out of the small pane.
            for n in range(12):
                app._on_stream({"stream": "event", "event": {
                    "t": 100.0 + n, "kind": "key", "key": f"key.dice.{n % 4}"}})
            await settle(pilot)
            assert "> diagnose walls do not rise" in screen_text(app)
            await pilot.press("f3")      # and back to the faults
            await settle(pilot, shows(app, "no active faults"))
    asyncio.run(scenario())


def test_test_mode_is_shown_as_test_mode_not_fault(harness: Harness, tmp_path: Path) -> None:
    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot, lambda: app._connected)
            app.table.server.maintenance.enter(by="li")
            app.table.push_status()
            await settle(pilot, shows(app, "TEST MODE"))
            picture = str(app.query_one("#picture", Static).render())
            assert "test mode" in picture and " fault " not in picture
            assert "no active faults" in str(app.query_one("#faults", Static).render())
    asyncio.run(scenario())


@pytest.mark.parametrize("lang", LANGS)
def test_80x24_shows_walls_whole_and_no_line_wider_than_the_screen(
        harness: Harness, tmp_path: Path, lang: str) -> None:
    i18n.set_language(lang)

    async def scenario() -> str:
        app = SimConsole(harness, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, shows(app, "╰", "2 号口" if lang == "zh_CN" else "side 2"))
            return screen_text(app)
    text = asyncio.run(scenario())
    lines = text.splitlines()
    assert len(lines) == 24 and max(cell_len(line) for line in lines) <= 80
    walls = [line for line in lines if "▮" in line or "·" in line]
    # Both horizontal walls are there, whole: 18 stacks each, none wrapped.
    assert sum(1 for line in walls if line.count("▮") + line.count("·") + line.count("▪")
               >= 18) >= 2
    assert ("2 号口" if lang == "zh_CN" else "side 2") in text
    # Nothing below the walls is cut: lamps, sets and the hand are all on screen,
    # and the picture's frame closes above the faults.
    for shown in (("● 复位灯", "在打：A 副", "第 1 局") if lang == "zh_CN" else
                  ("● ready", "set in play: set A", "hand 1")):
        assert shown in text
    assert sum(1 for line in lines if line.startswith("╰")) == 2


# -- stored screens ------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", LANGS)
def test_screen_with_a_changed_signal_and_a_new_fault(snap_compare, harness: Harness,
                                                       tmp_path: Path, lang: str,
                                                       size: str) -> None:
    i18n.set_language(lang)
    app = SimConsole(harness, tmp_path)

    async def run_before(pilot: Any) -> None:
        await settle(pilot, lambda: app._connected)
        app.table.push_signals({"side.2.count": True})
        harness.ctl.fault("head.jam", "side 2", 2, {"turn_s": 0.9})
        app.table.push_status()
        await settle(pilot, shows(app, "E22 head.jam"))

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", LANGS)
def test_screen_after_ctrl_e(snap_compare, harness: Harness, tmp_path: Path, lang: str,
                             size: str) -> None:
    i18n.set_language(lang)
    app = SimConsole(harness, tmp_path)

    async def run_before(pilot: Any) -> None:
        await settle(pilot, lambda: app._connected)
        await pilot.press("ctrl+e")
        await settle(pilot, shows(app, "ES ", "E-STOP ACTIVE" if lang == "en" else "急停中"))

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


def test_replies_wrap_at_120x40_instead_of_being_cut(harness: Harness, tmp_path: Path) -> None:
    # The events pane is narrower than 78 columns at 120x40: its lines were cut.
    text = reply_screen(harness, tmp_path, "help", "set_stays_on_table", (120, 40))
    assert "one set of tiles always stays" in text and "on the table" in text
    assert "conveyor.N, dice, all)" in text


def test_diagnose_alone_shows_the_symptom_list_at_80x24(harness: Harness,
                                                        tmp_path: Path) -> None:
    text = reply_screen(harness, tmp_path, "diagnose", "symptoms (or say it in your words):",
                        (80, 24))
    for name in SYMPTOMS:
        assert name in text, text
