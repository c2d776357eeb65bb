"""Every screen of the TUI in zh_CN: no English left.

The console app is driven by Textual's pilot against a simulated table (the daemon's
own API handlers in process, tests/console/test_tui_screens.py), through each screen a
technician meets: the picture and the signals, the faults and events panes (F2, F3 on
a small screen), the login dialog, help and the symptom list, every command's reply and
refusal, a fault with its diagnosis, the e-stop, test mode and its results, and the
banner of a lost daemon. Each screen's text is checked with the one-shot commands'
allow-list (tests/console/zh_sweep.py); a Latin word off it fails, named with the step
that showed it."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from textual.widgets import RichLog

from firmware import i18n
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from tests.console.test_tui_screens import SimConsole, screen_text, settle
from tests.console.zh_sweep import stray
from tests.test_diagnosis import table_in_play

# Key names (the footer draws Ctrl-E as ^e) are keys, not words; the signals pane
# lists the HAL's signal names, ids like those the one-shot commands print.
KEYS = {"Ctrl-E", "Esc", "f2", "f3", "f4", "f5"}
SIGNALS = set(load_config().signals())
FOOTER_KEY = re.compile(r"\^[a-z]\b")
# An event line in the events pane: its time, then its kind, the record's id as the
# event log prints it (`console log --kind KIND`); what follows is checked.
EVENT_KIND = re.compile(r"(?<![\d.])(\d+\.\d{3}) [a-z_.]+(?= |$)", re.MULTILINE)


def english(screens: list[tuple[str, str]]) -> str:
    """Each step whose screen showed English, with the words: empty when none did."""
    found = [(step, sorted({w for w in stray(EVENT_KIND.sub(r"\1", FOOTER_KEY.sub(" ", text)))
                            if w not in KEYS | SIGNALS})) for step, text in screens]
    return "\n".join(f"{step}: {words}" for step, words in found if words)


async def ticking(harness: Harness, stop: asyncio.Event) -> None:
    """The table's virtual clock moves on while the app waits for a reply (a self-test,
    a jog): half a table-second each loop turn."""
    while not stop.is_set():
        harness.clock.run_until(harness.clock.now() + 0.5)
        await asyncio.sleep(0)


def sweep(harness: Harness, tmp_path: Path, size: tuple[int, int],
          steps: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    """Run `steps` (name, coroutine function of app and pilot) in the app, each
    followed by the screen as text."""
    screens: list[tuple[str, str]] = []

    async def scenario() -> None:
        app = SimConsole(harness, tmp_path)
        # The event stream, as the daemon sends it: the events pane's lines too.
        harness.ctl.subscribers.append(lambda event: app._on_stream(
            {"stream": "event", "event": event}))
        async with app.run_test(size=size) as pilot:
            await settle(pilot, lambda: app._connected)
            for name, step in steps:
                await step(app, pilot)
                await pilot.pause()
                screens.append((name, shown(app)))
            if app._retry is not None:      # the daemon gone: no reconnect while closing
                app._retry.stop()
    asyncio.run(scenario())
    return screens


def events_pane(app: SimConsole) -> str:
    """Every line the events pane holds, scrolled out of sight or not (a reply keeps
    its first line on top while events go on below it)."""
    return "\n".join("".join(segment.text for segment in strip).rstrip()
                     for strip in app.query_one("#events", RichLog).lines)


def shown(app: SimConsole) -> str:
    return screen_text(app) + "\n" + events_pane(app)


def typed(command: str, moves: bool = False) -> Any:
    """A step: the command line runs `command` as Enter would (the reply is in the
    events pane when it returns); the table's clock runs meanwhile when the command
    `moves` a mechanism."""
    async def step(app: SimConsole, pilot: Any) -> None:
        stop = asyncio.Event()
        clock = asyncio.create_task(ticking(app.harness, stop)) if moves else None
        try:
            app._begin_reply()
            await app.run_command(command)
        finally:
            stop.set()
            if clock is not None:
                await clock
    return step


def pressed(*keys: str) -> Any:
    async def step(app: SimConsole, pilot: Any) -> None:
        await pilot.press(*keys)
    return step


async def nothing(app: SimConsole, pilot: Any) -> None:
    pass


async def logged_in(app: SimConsole, pilot: Any) -> None:
    # The in-process API takes the name as the daemon's login would have.
    app.credential = ("li", "token")
    app._say(i18n._("logged in as {name}").format(name="li"), "green")


async def dead_lid(app: SimConsole, pilot: Any) -> None:
    lid = app.harness.table.lid
    drive, lid.drive = lid.drive, lambda direction: None       # a dead lift motor
    try:
        await typed("test lid", moves=True)(app, pilot)
    finally:
        lid.drive = drive


async def a_fault(app: SimConsole, pilot: Any) -> None:
    app.harness.ctl.fault("head.jam", "side.2.head", 2, {"turn_s": 0.9})
    app.table.push_status()


async def daemon_gone(app: SimConsole, pilot: Any) -> None:
    app._lost()


def in_zh_cn(harness: Harness, tmp_path: Path, size: tuple[int, int],
             steps: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    was = i18n.current()
    i18n.set_language("zh_CN")
    try:
        return sweep(harness, tmp_path, size, steps)
    finally:
        i18n.set_language(was)


def test_every_tui_screen_and_reply_speaks_chinese(tmp_path: Path) -> None:
    steps = [
        ("the first screen", nothing),
        ("help", typed("help")),
        ("diagnose alone", typed("diagnose")),
        ("diagnose in Chinese", typed("diagnose 牌墙升不起来")),
        ("a command not understood", typed("乱七八糟")),
        ("jog with a bad number", typed("jog lid up 几秒")),
        ("the login dialog", pressed("ctrl+l")),
        ("login cancelled", pressed("escape")),
        ("the score form", pressed("f4")),
        ("a mistyped score", pressed("enter", "enter", "enter", "enter", "enter", "enter")),
        ("the score form closed", pressed("escape")),
        ("logged in", logged_in),
        ("status", typed("status")),
        ("faults", typed("faults")),
        ("walls", typed("walls")),
        ("info", typed("info")),
        ("test mode on", typed("testmode on force")),
        ("a plate test under the staged set", typed("test plate.1")),
        ("a jog refused", typed("jog plate.1 fwd 1")),
        ("a test not known", typed("test 没有")),
        ("a test that fails, with its diagnosis", dead_lid),
        ("a fault not known", typed("clear 没有")),
        ("test mode off", typed("testmode off")),
        ("a fault with its diagnosis", a_fault),
        ("clear it", typed("clear head.jam")),
        ("e-stop", pressed("ctrl+e")),
        ("release", typed("release")),
        ("the daemon gone", daemon_gone),
    ]
    screens = in_zh_cn(table_in_play(), tmp_path, (160, 50), steps)
    seen = dict(screens)
    # The steps did what they say: their replies are on the screen being checked.
    assert "dice_not_spinning" in seen["diagnose alone"]
    assert "没有测试：它的牌道上" in seen["a plate test under the staged set"]
    assert "lid.not_rising" in seen["a test that fails, with its diagnosis"]
    assert "E22 head.jam" in seen["a fault with its diagnosis"]
    assert "急停" in seen["e-stop"]
    assert not english(screens), english(screens)


def test_the_small_screens_panes_speak_chinese(tmp_path: Path) -> None:
    steps = [
        ("80x24", nothing),
        ("F2: the signals", pressed("f2")),
        ("F2 again: the picture", pressed("f2")),
        ("F3: the events", pressed("f3")),
        ("F3 again: the faults", pressed("f3")),
        ("the login dialog", pressed("ctrl+l")),
    ]
    screens = in_zh_cn(table_in_play(), tmp_path, (80, 24), steps)
    assert not english(screens), english(screens)
