"""`mjtable console tui`: the live technician console (Textual).

Left: the table from above (walls filling stack by stack, lid, plates, sets, dice,
lamps, display). Right: every HAL signal like a meter, changes highlighted. Below:
active faults with diagnosis and remedy, the event stream, and a command line for
actions (test, jog, clear, test mode, diagnose, estop) — those that move anything ask
for the technician login first.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import (
    Checkbox,
    DataTable,
    Footer,
    Header,
    Input,
    Label,
    RichLog,
    Static,
)

from firmware import words as table_words
from firmware.api import client
from firmware.api import protocol as p
from firmware.api.client import TIMEOUT, AsyncClient
from firmware.console import render
from firmware.diagnosis.guided import SYMPTOMS
from firmware.diagnosis.recorder import RECORDING
from firmware.i18n import N_, _
from firmware.printable import printable
from rules.scoring import winform

HIGHLIGHT_S = 1.0
# A reply stays where it starts (its verdict on top) this long, while events go on.
REPLY_HOLD_S = 30.0
PRIVILEGED = {"test", "testmode", "jog", "clear", "release"}
# Below this many columns the signals share the top with the picture (F2 swaps them).
WIDE = 120
# How often a console that lost its daemon tries to reach it again.
RECONNECT_S = 1.0
# A daemon that does not answer a request in this long (hung, stopped) is told as one
# line; the one-shot console waits as long.
REPLY_TIMEOUT_S = client.REPLY_TIMEOUT_S


def help_lines() -> list[str]:
    """What the command line understands, and the symptoms diagnose knows."""
    return [_("commands:"),
            "  test " + _("MECHANISM") + "   (lid, plate.N, head.N, disc, conveyor.N, dice, all)",
            "  jog " + _("MOTOR DIR SECONDS"), "  clear " + _("FAULT"),
            "  testmode on|off", "  diagnose " + _("WHAT YOU SEE"), "  estop | release",
            "  status | faults | walls | info | health | login | help",
            _("symptoms (or say it in your words):"),
            *[f"  {name:<22} {_(text)}" for name, text in SYMPTOMS.items()]]


class Login(ModalScreen[tuple[str, str] | None]):
    """Technician name and token; the token is never shown or stored on disk."""

    def compose(self) -> ComposeResult:
        with Vertical(id="login"):
            yield Label(_("Technician login (Esc to cancel)"))
            yield Input(placeholder=_("name"), id="name")
            yield Input(placeholder=_("token"), password=True, id="token")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = self.query_one("#name", Input).value.strip()
        token = self.query_one("#token", Input).value
        if event.input.id == "name":
            self.query_one("#token", Input).focus()
        elif name and token:
            self.dismiss((name, token))

    def key_escape(self) -> None:
        self.dismiss(None)


class ScoreForm(ModalScreen[dict[str, Any] | None]):
    """The hand just ended, as its winner declares it (or a draw): the API's `score`."""

    FIELDS = (("seat", N_("seat of the winner, 0-3")),
              ("concealed", N_("concealed tiles, e.g. W111 B234 J111 F2")),
              ("melds", N_("melds, e.g. chow T1 *T2 T3 left; pung F3 across; kong J3")),
              ("win_tile", N_("winning tile, e.g. F2")),
              ("discarder", N_("who discarded it: left, across, right (empty if self-drawn)")),
              ("flowers", N_("flowers: a number, or the flower tiles")))
    FLAGS = (("self_drawn", N_("self-drawn")), ("fourth_tile", N_("last of its kind")),
             ("kong", N_("robbing a kong / on a kong's draw")),
             ("last_tile", N_("last tile of the wall")),
             ("zuozhuang", N_("the dealer sits for double (坐庄, Tianjin)")),
             ("draw", N_("a drawn hand")))

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scoreform"):
            yield Label(_("Score the hand just ended (Enter on the last field to send, "
                          "Esc to cancel)"))
            for name, hint in self.FIELDS:
                yield Input(placeholder=_(hint), id=name)
            for name, text in self.FLAGS:
                yield Checkbox(_(text), id=name)
            yield Label("", id="problem")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        names = [name for name, _hint in self.FIELDS]
        here = names.index(event.input.id or "seat")
        if here + 1 < len(names) and not self.query_one("#draw", Checkbox).value:
            self.query_one("#" + names[here + 1], Input).focus()
            return
        form = winform.WinForm(
            **{name: self.query_one("#" + name, Input).value for name in names},
            **{name: self.query_one("#" + name, Checkbox).value for name, _t in self.FLAGS})
        try:
            self.dismiss(winform.request(form))
        except ValueError as exc:
            self.query_one("#problem", Label).update(Text(str(exc), style="bold red"))

    def key_escape(self) -> None:
        self.dismiss(None)


class TablePicture(Static):
    """The table from above, its side walls folded to the height it is given."""

    def __init__(self, message: str, id: str) -> None:
        super().__init__(message, id=id)
        self.status: dict[str, Any] | None = None

    def show(self, status: dict[str, Any]) -> None:
        self.status = status
        self.refresh(layout=False)

    def render(self) -> Any:
        if self.status is None:
            return super().render()
        full = render.table_text(self.status)
        stacks = self.status["sides"][0]["target"] // 2
        others = len(full.plain.splitlines()) - stacks
        height = self.content_size.height
        # Walls fold rather than the picture being cut: everything else stays.
        rows = max(2, height - others) if height else None
        text = full if rows is None or rows >= stacks else render.table_text(self.status, rows)
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text


class ConsoleApp(App[int]):
    """The live console for one table daemon."""

    TITLE = "mjtable console"
    CSS = """
    #top { height: 3fr; }
    #picture { width: 1fr; height: 100%; border: round $accent; padding: 0 1; }
    #signals { width: 52; border: round $accent; }
    #bottom { height: 2fr; }
    #faults { width: 1fr; border: round $error; padding: 0 1; }
    #events { width: 1fr; border: round $accent; }
    #command { border: none; height: 1; }
    #banner { display: none; height: auto; background: $error; color: $text;
              text-style: bold; padding: 0 1; }
    .disconnected #banner { display: block; }
    #login { width: 50; height: auto; border: thick $accent; background: $panel; }
    Login { align: center middle; }
    #scoreform { width: 78; max-height: 100%; border: thick $accent; background: $panel; }
    ScoreForm { align: center middle; background: $background; }
    /* Narrow screens: one of picture and signals at a time, the bottom kept short. */
    .narrow #signals { width: 1fr; display: none; }
    .narrow.show-signals #signals { display: block; }
    .narrow.show-signals #picture { display: none; }
    .narrow #picture { padding: 0; }
    .narrow #bottom { height: auto; max-height: 12; }
    .narrow #faults { height: auto; }
    .narrow #events { display: none; height: 10; }
    .short Header { display: none; }
    """
    # Textual's command palette offers its own English commands (themes, screenshots),
    # none of them a technician's; its footer key would also crowd 80 columns.
    ENABLE_COMMAND_PALETTE = False
    # E-stop must win over whatever has focus (the command line takes Ctrl-E otherwise).
    BINDINGS: ClassVar = [
        Binding("ctrl+e", "estop", N_("E-STOP"), priority=True),
        Binding("ctrl+q", "quit", N_("quit"), priority=True),
        Binding("ctrl+l", "login", N_("login")),
        Binding("f2", "swap", N_("picture/signals")),
        Binding("f3", "events", N_("faults/events")),
        Binding("f4", "score", N_("score")),
        # The test that tells a fault's suspects apart, one key away
        # (firmware/diagnosis/differential.py).
        Binding("f5", "self_test", N_("named self-test")),
    ]

    def __init__(self, socket_path: Path | None, tcp: tuple[str, int] | None = None,
                 credential: tuple[str, str] | None = None) -> None:
        super().__init__()
        # The footer speaks the language in force now, not the one at import.
        keys = self._bindings.key_to_bindings
        for key, bindings in keys.items():
            keys[key] = [dataclasses.replace(b, description=_(b.description)) for b in bindings]
        self.socket_path, self.tcp, self.credential = socket_path, tcp, credential
        self.api: AsyncClient | None = None
        self.status: dict[str, Any] = {}
        self.signals: dict[str, Any] = {}
        self.changed_at: dict[str, float] = {}
        self._reply_top = 0
        self._hold_until = 0.0      # loop time until which a reply keeps its place
        self.exit_code = 0
        self._pending: str | None = None
        self._connected = False
        self._retry: Any = None         # the reconnect timer while the daemon is gone
        self._connecting = False
        self.where = f"tcp {tcp[0]}:{tcp[1]}" if tcp else str(socket_path)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="banner")
        with Horizontal(id="top"):
            yield TablePicture(_("connecting…"), id="picture")
            yield DataTable(id="signals", cursor_type="none", zebra_stripes=True)
        with Horizontal(id="bottom"):
            yield Static(_("no active faults"), id="faults")
            # min_width: RichLog renders at least 78 columns by default, and a pane
            # narrower than that (120x40 halves the screen) cut every line at its edge.
            yield RichLog(id="events", max_lines=500, wrap=True, markup=False, min_width=20)
        yield Input(placeholder=_("command (help lists them; Ctrl-E e-stop)"), id="command")
        yield Footer()

    async def connect(self) -> AsyncClient:
        """The API connection (tests give the app a connection of their own)."""
        api = AsyncClient(self.socket_path, self.tcp, self._on_stream, self._lost,
                          reply_timeout_s=REPLY_TIMEOUT_S)
        await api.open()
        return api

    async def on_mount(self) -> None:
        table = self.query_one("#signals", DataTable)
        # Explicit keys: update_cell(row, "value") must find the column.
        table.add_column(_("signal"), key="signal")
        table.add_column(_("value"), key="value")
        self._fit(self.size.width, self.size.height)
        self.set_interval(0.5, self._fade)
        if not await self._attach():
            self.query_one("#picture", Static).update(Text(
                _("no table daemon at {where} — is `mjtable run` running?").format(
                    where=self.where), style="bold red"))
            self.exit_code = 3
            self._disconnected()
        self.query_one("#command", Input).focus()

    async def _attach(self) -> bool:
        """Connect and subscribe; the picture and the signals start over from the
        daemon's status. False when no daemon answers."""
        self._connecting = True
        try:
            api = await self.connect()
        except client.ClientError:
            return False
        finally:
            self._connecting = False
        self.api = api
        reply = await api.call("subscribe", {}, self.credential if self.tcp else None)
        if not reply.get("ok"):
            if reply["error"]["code"] == TIMEOUT:     # a hung daemon: try again later
                api.close()
                self.api = None
            if api.closed:
                return False
            self._say(_("subscribe refused: {message}").format(
                message=reply["error"]["message"]), "red")
            return True
        status = reply["result"]["status"]
        early, self.signals = self.signals, {name: s["value"] for name, s in
                                             status.pop("signals").items()}
        table = self.query_one("#signals", DataTable)
        for name, value in self.signals.items():
            if name in table.rows:
                table.update_cell(name, "value", _value(value))
            else:
                table.add_row(name, _value(value), key=name)
        self._connected = True
        self.exit_code = 0
        # Changes that arrived before the first picture was drawn are newer than it.
        self._show_signals(early)
        self._show_status(status)
        self.sub_title = _("table {table} · {where}").format(table=status.get("table"),
                                                             where=self.where)
        return True

    # -- the daemon going away and coming back -------------------------------------

    def _lost(self) -> None:
        """The connection ended (the daemon stopped or crashed): say so, try again."""
        self.api = None
        self._connected = False
        # The next connection's status is the whole picture again.
        self.signals, self.changed_at = {}, {}
        self._say(_("disconnected from the table daemon at {where}; reconnecting…").format(
            where=self.where), "bold red")
        self._disconnected()

    def _disconnected(self) -> None:
        self.query_one("#banner", Static).update(
            _("disconnected from the table daemon at {where}; reconnecting…").format(
                where=self.where))
        self.screen.set_class(True, "disconnected")
        # What was shown is no longer known: never "no active faults" for a lost table.
        self.query_one("#faults", Static).update(
            Text(_("not connected to a table daemon"), style="bold red"))
        if self._retry is None:
            self._retry = self.set_interval(RECONNECT_S, self._reconnect)

    async def _reconnect(self) -> None:
        if self._connecting or self.api is not None:
            return
        if not await self._attach():
            return
        if self._retry is not None:
            self._retry.stop()
            self._retry = None
        self.screen.set_class(False, "disconnected")
        self._say(_("reconnected to the table daemon at {where}").format(where=self.where),
                  "green")

    # -- layout -------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        self.screen.set_class(width < WIDE, "narrow")
        self.screen.set_class(height < 30, "short")

    def action_swap(self) -> None:
        """Narrow screens: show the signals instead of the picture, or back."""
        self.screen.toggle_class("show-signals")

    def action_events(self) -> None:
        """Narrow screens: show the events instead of the faults, or back."""
        events_log = self.query_one("#events", RichLog)
        faults = self.query_one("#faults", Static)
        showing = events_log.styles.display == "block"
        events_log.styles.display = "none" if showing else "block"
        faults.styles.display = "block" if showing else "none"

    # -- streams ------------------------------------------------------------------

    def _on_stream(self, message: dict[str, Any]) -> None:
        kind = message["stream"]
        if kind == "status":
            self._show_status(message["status"])
        elif kind == "signals":
            self._show_signals(message["signals"])
        elif kind == "event":
            event = message["event"]
            self.query_one("#events", RichLog).write(_event_text(event),
                                                     scroll_end=not self._holding())

    def _show_status(self, status: dict[str, Any]) -> None:
        self.status = status
        self.query_one("#picture", TablePicture).show(status)
        self._show_faults(status.get("faults", []))

    def _show_faults(self, faults: list[dict[str, Any]]) -> None:
        lines = render.fault_lines(faults) or [_("no active faults")]
        named = self_test_named(faults)
        if named is not None:
            lines.append(_("F5: run the {name} self-test").format(name=named))
        self.query_one("#faults", Static).update(
            Text("\n".join(lines), style="bold red" if faults else "green"))

    def _show_signals(self, changed: dict[str, Any]) -> None:
        if not self._connected:     # the first picture is not drawn yet: keep them
            self.signals.update(changed)
            return
        table = self.query_one("#signals", DataTable)
        now = asyncio.get_running_loop().time()
        for name, value in changed.items():
            self.signals[name] = value
            self.changed_at[name] = now
            if name in table.rows:
                table.update_cell(name, "value", _value(value, changed=True))
            else:   # a signal the first picture did not have
                table.add_row(name, _value(value, changed=True), key=name)

    def _fade(self) -> None:
        # The timer can fire while the screen closes and its widgets are gone.
        tables = self.query("#signals").results(DataTable)
        table = next(tables, None)
        if table is None:
            return
        now = asyncio.get_running_loop().time()
        for name, at in list(self.changed_at.items()):
            if now - at > HIGHLIGHT_S:
                del self.changed_at[name]
                table.update_cell(name, "value", _value(self.signals[name]))

    # -- actions ------------------------------------------------------------------

    def _reveal_events(self) -> None:
        """A narrow screen hides the events pane, where replies go: show it, or the
        technician types a command and sees nothing."""
        if self.query_one("#events", RichLog).styles.display == "none":
            self.action_events()

    def _holding(self) -> bool:
        return asyncio.get_running_loop().time() < self._hold_until

    def _begin_reply(self) -> None:
        """A reply starts here: keep its first line (the verdict) on top of the pane,
        or the events that follow scroll it away on a small screen."""
        self._reply_top = len(self.query_one("#events", RichLog).lines)
        self._hold_until = asyncio.get_running_loop().time() + REPLY_HOLD_S

    def _say(self, text: str, style: str = "") -> None:
        log = self.query_one("#events", RichLog)
        holding = self._holding()
        log.write(said(text, style), scroll_end=not holding)
        if holding:
            self.call_after_refresh(log.scroll_to, y=self._reply_top, animate=False)

    def action_login(self) -> None:
        self.push_screen(Login(), self._logged_in)

    def _logged_in(self, credential: tuple[str, str] | None) -> None:
        if credential is not None:
            self.run_worker(self._check_login(credential))

    async def _check_login(self, credential: tuple[str, str]) -> None:
        """The daemon checks the name and token at once (a wrong one never waits for
        the first action to be found out)."""
        if self.api is None:
            self._say(_("not connected to a table daemon"), "red")
            return
        reply = await self.api.login(credential)
        if not reply.get("ok"):
            self._pending = None
            self._say(_("login refused: {message}").format(
                message=reply["error"]["message"]), "bold red")
            return
        self.credential = credential
        self._say(_("logged in as {name}").format(name=credential[0]), "green")
        if self._pending:
            command, self._pending = self._pending, None
            await self.run_command(command)

    def action_self_test(self) -> None:
        """Run the self-test the newest active fault names (the one that tells its
        suspects apart); it asks for the login like any test."""
        named = self_test_named(self.status.get("faults", []))
        self._reveal_events()
        if named is None:
            self._say(_("no active fault names a self-test"), "yellow")
            return
        self._begin_reply()
        self.run_worker(self.run_command(f"test {named}"))

    def action_score(self) -> None:
        self.push_screen(ScoreForm(), self._score_entered)

    def _score_entered(self, params: dict[str, Any] | None) -> None:
        if params is not None:
            self._reveal_events()
            self._begin_reply()
            self.run_worker(self._send_score(params))

    async def _send_score(self, params: dict[str, Any]) -> None:
        """A player's action: open to anyone at the table, refused while a hand is in play."""
        if self.api is None:
            self._say(_("not connected to a table daemon"), "red")
            return
        reply = await self.api.call("score", params,
                                    self.credential if self.tcp is not None else None)
        if not reply.get("ok"):
            self._say(_("{verb} refused: {message}").format(
                verb=table_words.method("score"), message=reply["error"]["message"]), "bold red")
            return
        lines = winform.result_lines(reply["result"])
        self._say(lines[0], "bold green" if reply["result"].get("booked") else "bold yellow")
        for line in lines[1:]:
            self._say(line)

    def action_estop(self) -> None:
        self.run_worker(self.run_command("estop"))

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "command":
            return
        command = event.value.strip()
        event.input.value = ""
        if command:
            # Typed: the reply is what the technician waits for. (Ctrl-E keeps the
            # faults pane, which shows the e-stop.)
            self._reveal_events()
            self._begin_reply()
            # In a worker: a daemon slow to answer must not hold the keys meanwhile.
            self.run_worker(self.run_command(command))

    async def run_command(self, command: str) -> None:
        """Run one console command line; privileged ones ask for the login first."""
        words = command.split()
        verb, args = words[0], words[1:]
        if verb == "login":
            self.action_login()
            return
        if verb == "help" or (verb == "diagnose" and not args):
            # `diagnose` alone lists the symptoms first: on 80x24 the pane holds eight
            # lines, and the commands would push the symptom list out of sight.
            lines = help_lines()
            if verb == "diagnose":
                cut = lines.index(_("symptoms (or say it in your words):"))
                lines = lines[cut:]
            for line in lines:
                self._say(line)
            return
        if verb in PRIVILEGED and self.credential is None:
            self._pending = command
            self.action_login()
            return
        try:
            method, params = _request(verb, args)
        except ValueError as exc:
            self._say(str(exc), "yellow")
            return
        if self.api is None:
            self._say(_("not connected to a table daemon"), "red")
            return
        self._say(f"> {command}", "bold")
        needs = verb in PRIVILEGED or self.tcp is not None
        reply = await self.api.call(method, params, self.credential if needs else None)
        if not reply.get("ok"):
            self._say(_("{verb} refused: {message}").format(
                verb=table_words.method(method), message=reply["error"]["message"]), "bold red")
            if reply["error"]["code"] == p.FORBIDDEN:
                self.credential = None
            return
        self._show_result(verb, reply["result"])

    def _show_result(self, verb: str, result: Any) -> None:
        """A reply as text a technician reads, never raw JSON."""
        if verb == "test":
            for line in render.test_lines(result["results"]):
                self._say(line, "green" if " P " in line else "red")
            return
        if verb == "diagnose":
            lines = render.diagnosis_lines(result)
            self._say(lines[0], "bold green" if result.get("normal") else "bold red")
            for line in lines[1:]:
                self._say(line)
            return
        replies = {"testmode": render.testmode_lines, "jog": render.jog_lines,
                   "clear": render.clear_lines, "estop": render.estop_lines,
                   "release": render.estop_lines, "walls": render.walls_lines}
        if verb in replies:
            lines = replies[verb](result)
        elif verb == "faults":
            lines = render.fault_lines(result["active"]) or [_("no active faults")]
        elif verb == "status":
            lines = render.fault_lines(result.get("faults", [])) or [_("no active faults")]
        elif verb == "info":
            lines = render.info_lines(result)
        elif verb == "health":
            lines = render.health_lines(result, datetime.date.today())
        elif isinstance(result, dict):
            lines = [f"{key}: {render.plain(value)}" for key, value in result.items()]
        else:
            lines = [render.plain(result)]
        for line in lines:
            self._say(line)

    async def on_unmount(self) -> None:
        if self.api is not None:
            self.api.close()


def self_test_named(faults: list[dict[str, Any]]) -> str | None:
    """The self-test the newest active fault's diagnosis names, if any."""
    for fault in reversed(faults):
        named = (fault.get("diagnosis") or {}).get("self_test")
        if fault.get("active", True) and named:
            return str(named)
    return None


def _request(verb: str, args: list[str]) -> tuple[str, dict[str, Any]]:
    if verb == "test" and len(args) == 1:
        return "test", {"mechanism": args[0]}
    if verb == "jog" and len(args) == 3:
        try:
            return "jog", {"motor": args[0], "direction": args[1], "seconds": float(args[2])}
        except ValueError:
            raise ValueError(_("jog MOTOR DIR SECONDS: seconds must be a number")) from None
    if verb == "clear" and len(args) == 1:
        return "clear", {"fault": args[0]}
    if verb == "testmode" and args in (["on"], ["off"], ["on", "force"]):
        return "testmode", {"on": args[0] == "on", "force": "force" in args}
    if verb == "diagnose" and args:
        return "diagnose", {"symptom": " ".join(args)}
    if verb == "estop" and not args:
        return "estop", {}
    if verb == "release" and not args:
        return "estop", {"release": True}
    if verb in ("status", "faults", "walls", "info", "health") and not args:
        return verb, {}
    raise ValueError(_("not understood: {command} (help lists the commands)").format(
        command=" ".join([verb, *args])))


def _value(value: Any, changed: bool = False) -> Text:
    text = "·" if value in (None, "") else render.signal_value(value)
    style = "bold black on yellow" if changed else ("green" if value not in (
        False, None, "", "off") else "dim")
    return Text(text, style=style)


def _event_text(event: dict[str, Any]) -> Text:
    kind = event["kind"]
    detail = (render.recording_detail(event) if kind == RECORDING
              else render.event_detail(event, {"t", "kind"}))
    style = ("bold red" if kind in ("fault", "estop", "technician.refused")
             else "yellow" if kind.startswith(("service", "technician")) else "")
    return Text(printable(f"{event['t']:9.3f} {kind} {detail}")[:300], style=style)


def run_tui(socket_path: Path | None, tcp: tuple[str, int] | None,
            credential: tuple[str, str] | None) -> int:
    app = ConsoleApp(socket_path, tcp, credential)
    app.run()
    return app.exit_code


def said(text: str, style: str = "") -> Text:
    """A line for the events pane: the daemon's replies quote what was sent (names,
    symptoms), so control characters are shown escaped, never sent to the terminal."""
    return Text("\n".join(printable(line) for line in text.split("\n")), style=style)
