"""`mjtable console`: one-shot commands against the running daemon, and the TUI.

Reading (status, faults, log, walls, diagnose) is open to whoever can open the
socket; test, test-mode, jog, clear and estop --release need `--technician NAME` with
the token in $MJTABLE_TOKEN or typed at the prompt.
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from firmware import statedir
from firmware.api.client import (
    EXIT_NO_DAEMON,
    EXIT_REFUSED,
    EXIT_USAGE,
    Client,
    ClientError,
)
from firmware.console import render
from firmware.i18n import LANGUAGES, _, resolve, set_language
from firmware.printable import printable
from firmware.state import chain_words
from firmware.state.storage import STORAGE_ERRORS, problem, read_only
from mjtable_core.cli_types import number, whole

TOKEN_ENV = "MJTABLE_TOKEN"


def when(text: str) -> float:
    """A time for `log --since/--until`: a local date or date and time, or unix seconds."""
    try:
        return float(text)
    except ValueError:
        pass
    for fmt in ("%Y-%m-%d", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M",
                "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.datetime.strptime(text, fmt).timestamp()
        except ValueError:
            continue
    raise argparse.ArgumentTypeError(
        _("{text!r} is not a time: use YYYY-MM-DD, \"YYYY-MM-DD HH:MM[:SS]\" or unix "
          "seconds").format(text=text))


def _hours(text: str) -> float:
    value = float(text)
    if not 0 < value <= 100000:      # nan too
        raise argparse.ArgumentTypeError(
            _("must be above 0 and at most 100000, got {value}").format(value=value))
    return value


def _language_option(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """`--lang en|zh_CN`: the technician's language on a box set up in another one."""
    parser = parser or argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help=_("language of the console and of the daemon's replies "
                               "(default: $MJTABLE_LANG, else the locale)"))
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mjtable console",
                                     description=_("Technician console for a running table."))
    _language_option(parser)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--socket", metavar="PATH", default=argparse.SUPPRESS,
                        help=_("API socket (default: {path})").format(
                            path=statedir.default_socket()))
    common.add_argument("--tcp", metavar="HOST:PORT", default=argparse.SUPPRESS,
                        help=_("reach the daemon over TCP instead (needs --technician)"))
    common.add_argument("--technician", metavar="NAME", default=argparse.SUPPRESS,
                        help=_("who you are; the token comes from ${env} or a prompt").format(
                            env=TOKEN_ENV))
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help=_("print JSON instead of text"))
    common.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help=_("where the technicians and the event log live"))
    # The same options before the command, with the same help (they had none there).
    for action in common._actions:
        kwargs: dict = {"help": action.help}
        if action.nargs == 0:
            kwargs["action"] = "store_true"
        else:
            kwargs["metavar"] = action.metavar
        parser.add_argument(*action.option_strings, **kwargs)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_)

    add("info", _("what the daemon is and offers"))
    add("status", _("the table now: picture, machines, counters"))
    add("faults", _("active faults with diagnosis, and the history"))
    log = add("log", _("the event log (JSON lines with --json)"))
    log.add_argument("--kind", help=_("event kind, e.g. fault, key, phase, technician"))
    log.add_argument("--cycle", type=whole, help=_("hand number"))
    log.add_argument("--run", type=whole, help=_("daemon run (default: all; current for --cycle)"))
    log.add_argument("--since", type=when, metavar="WHEN",
                     help=_("events from this time on: YYYY-MM-DD, \"YYYY-MM-DD HH:MM[:SS]\" "
                            "(local time) or unix seconds"))
    log.add_argument("--until", type=when, metavar="WHEN",
                     help=_("events before this time; same forms as --since"))
    log.add_argument("--limit", type=whole, default=200)
    export = add("export-log", _("export the event log file as JSON lines (no daemon needed)"))
    export.add_argument("--kind")
    export.add_argument("--cycle", type=whole)
    export.add_argument("--run", type=whole)
    export.add_argument("--out", metavar="FILE", help=_("write here instead of stdout"))
    verify = add("verify-log", _("check the event log's hash chain (no daemon needed); exit "
                                 "1 names the first row changed, removed or reordered"))
    verify.add_argument("--keep-h", type=_hours, default=24.0, metavar="HOURS",
                        help=_("a rotation that deleted rows younger than this is "
                               "suspicious (default 24)"))
    diag = add("diagnose", _("guided diagnosis of what you see, in your words "
                             "(\"lid does not lower\", \"中心不降\") or a symptom name"))
    diag.add_argument("symptom", nargs="+", metavar="WORDS")
    diag.add_argument("--check", action="store_true",
                      help=_("also run the check that moves the mechanism (a technician)"))
    test = add("test", _("run a mechanism self-test (lid, plate.N, head.N, disc, conveyor.N, "
                       "dice, all)"))
    test.add_argument("mechanism", metavar="MECHANISM")
    mode = add("test-mode", _("enter or leave test mode"))
    mode.add_argument("state", choices=("on", "off"))
    mode.add_argument("--force", action="store_true",
                      help=_("enter even during a build (that half-built set is rebuilt)"))
    jog = add("jog", _("run one motor briefly (lid: up/down; others: fwd)"))
    jog.add_argument("motor", metavar="MOTOR")
    jog.add_argument("direction", metavar="DIRECTION")
    jog.add_argument("seconds", type=number, metavar="SECONDS")
    clear = add("clear", _("clear a fault by its #ref, id or display code"))
    clear.add_argument("fault", metavar="FAULT")
    clear.add_argument("--refed", action="store_true",
                       help=_("the half-built set was refed (belts, heads and tracks "
                              "emptied onto the disc): releases the refeed hold (rF)"))
    estop = add("estop", _("emergency stop (anyone); --release needs a technician"))
    estop.add_argument("--release", action="store_true")
    walls = add("walls", _("recent handoffs (dealt walls and commitments)"))
    walls.add_argument("--limit", type=whole, default=3)
    health = add("health", _("wear trends, maintenance warnings with their dates, and "
                             "the maintenance schedule"))
    health.add_argument("--done", metavar="JOB",
                        help=_("a routine job was done (a technician): wipe, sensors, oil, …"))
    health.add_argument("--serviced", metavar="PART",
                        help=_("a part was serviced or replaced (a technician), e.g. head.2: "
                               "its as-new time is learned again"))
    add("config", _("the daemon's effective config"))
    add("tui", _("the live console (Textual)"))
    tech_add = add("add-technician", _("add a technician; the token is read from stdin"))
    tech_add.add_argument("name", metavar="NAME")
    tech_rm = add("remove-technician", _("remove a technician"))
    tech_rm.add_argument("name", metavar="NAME")
    add("technicians", _("list technician names"))
    return parser


def main(argv: Sequence[str], state_dir: str | None = None) -> int:
    """`mjtable console ...`; returns the exit code."""
    # The language before the parser: its help is in it too.
    try:
        lang = _language_option().parse_known_args(list(argv))[0].lang
    except argparse.ArgumentError:
        lang = None         # the parser below says what is wrong with it
    set_language(lang or resolve())
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    if state_dir and not args.state_dir:
        args.state_dir = state_dir
    try:
        return _command(args)
    except ClientError as exc:
        if getattr(args, "json", False):
            print(json.dumps({"ok": False, "error": {"code": exc.code, "message": str(exc)}}))
        # The daemon's refusal text quotes what was sent (a name, a symptom): never raw.
        print(f"mjtable console: {_human(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("\n" + _("mjtable console: interrupted"), file=sys.stderr)
        return 130


def _socket(args: argparse.Namespace) -> Path:
    return Path(args.socket) if args.socket else statedir.default_socket()


def _tcp(args: argparse.Namespace) -> tuple[str, int] | None:
    if not args.tcp:
        return None
    host, _sep, port = args.tcp.rpartition(":")
    if not host or not port.isdigit():
        raise ClientError(_("--tcp wants HOST:PORT, got {got!r}").format(got=args.tcp),
                           EXIT_USAGE)
    return host, int(port)


def credential(name: str | None) -> tuple[str, str] | None:
    """(name, token) from --technician and $MJTABLE_TOKEN or a prompt."""
    if not name:
        return None
    token = os.environ.get(TOKEN_ENV)
    if token is None:
        if not sys.stdin.isatty():
            raise ClientError(_("no token for technician {name!r}: set {env} or run "
                                 "from a terminal to be asked").format(name=name, env=TOKEN_ENV),
                               EXIT_USAGE)
        token = getpass.getpass(_("token for {name}: ").format(name=name))
    return name, token


def _client(args: argparse.Namespace) -> Client:
    return Client(_socket(args), _tcp(args), timeout=300.0,
                     technician=credential(args.technician))


def _human(text: str) -> str:
    """`text` for a terminal: each line's control characters shown as escapes."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _out(args: argparse.Namespace, result: Any, text: list[str] | str) -> None:
    if args.json:
        print(json.dumps(result, default=str))
    elif isinstance(text, str):
        print(_human(text))
    else:
        print("\n".join(_human(line) for line in text))


def _command(args: argparse.Namespace) -> int:
    command = args.command
    if command in ("add-technician", "remove-technician", "technicians", "export-log",
                   "verify-log"):
        return _local(args)
    if command == "tui":
        try:
            from firmware.console.tui import run_tui
        except ModuleNotFoundError as exc:   # textual comes with the console extra
            raise ClientError(_("the TUI needs the console extra ({module} is missing): "
                                 "pip install 'mjtable[console]'").format(module=exc.name),
                               EXIT_USAGE) from None
        # No daemon: the same line and exit code as every other console command,
        # before the screen is taken over.
        Client(_socket(args), _tcp(args), timeout=10.0).close()
        return run_tui(_socket(args), _tcp(args), credential(args.technician))
    with _client(args) as client:
        return _remote(args, client)


def _remote(args: argparse.Namespace, client: Client) -> int:
    command = args.command
    if command == "info":
        result = client.call("info")
        _out(args, result, render.info_lines(result))
    elif command == "status":
        result = client.call("status")
        if args.json:
            _out(args, result, "")
        else:
            _status(result)
    elif command == "faults":
        result = client.call("faults")
        lines = [_("active:")] + (render.fault_lines(result["active"]) or ["  " + _("none")])
        earlier = [f for f in result["history"] if not f["active"]]
        if earlier:
            lines += [_("cleared this run:"), *render.fault_lines(earlier)]
        lines.append(_("faults in the event log: {n}").format(n=len(result["logged"])))
        _out(args, result, lines)
    elif command == "log":
        params = {k: getattr(args, k) for k in ("kind", "cycle", "run", "since", "until",
                                                 "limit") if getattr(args, k) is not None}
        result = client.call("log", params)
        if args.json:
            for row in result["rows"]:
                print(json.dumps(row, default=str))
        else:
            print("\n".join(_human(render.log_line(r)) for r in result["rows"])
                  or _("no events"))
        if result.get("truncated"):
            # The daemon's reply is bounded in bytes: say the rest was left out.
            print(_("… more rows than one reply holds (the newest left out); narrow it "
                    "with --kind, --cycle, --since or --limit"), file=sys.stderr)
    elif command == "diagnose":
        result = client.call("diagnose", {"symptom": " ".join(args.symptom),
                                          "check": args.check}, auth=args.check)
        _out(args, result, render.diagnosis_lines(result))
    elif command == "test":
        result = client.call("test", {"mechanism": args.mechanism}, auth=True)
        _out(args, result, render.test_lines(result["results"]))
        # `test all` at a working table skips the plates under the next set (result
        # "-"): not a failure. One test asked for and not run is not a pass.
        fine = ("P", "-") if args.mechanism == "all" else ("P",)
        return 0 if all(r["result"] in fine for r in result["results"]) else EXIT_REFUSED
    elif command == "test-mode":
        result = client.call("testmode", {"on": args.state == "on", "force": args.force},
                             auth=True)
        _out(args, result, render.testmode_lines(result))
    elif command == "jog":
        result = client.call("jog", {"motor": args.motor, "direction": args.direction,
                                     "seconds": args.seconds}, auth=True)
        _out(args, result, render.jog_lines(result))
    elif command == "clear":
        result = client.call("clear", {"fault": args.fault, "refed": args.refed}, auth=True)
        _out(args, result, render.clear_lines(result))
    elif command == "estop":
        result = client.call("estop", {"release": args.release}, auth=args.release)
        _out(args, result, render.estop_lines(result))
    elif command == "walls":
        result = client.call("walls", {"limit": args.limit})
        _out(args, result, render.walls_lines(result))
    elif command == "health":
        if args.done or args.serviced:
            params = {"job": args.done} if args.done else {"part": args.serviced}
            result = client.call("maintained", params, auth=True)
        else:
            result = client.call("health")
        _out(args, result, render.health_lines(result, datetime.date.today()))
    elif command == "config":
        result = client.call("config")
        _out(args, result, json.dumps(result, indent=2, default=str))
    return 0


def _local(args: argparse.Namespace) -> int:
    """The commands that read or write the state directory themselves (no daemon): a
    file that cannot be used is one line and exit 2, never a traceback."""
    technicians = args.command in ("add-technician", "remove-technician", "technicians")
    path = statedir.state_dir(args.state_dir) / (
        statedir.TECHNICIANS_NAME if technicians else statedir.EVENT_LOG_NAME)
    try:
        return _technicians(args) if technicians else _export(args)
    except STORAGE_ERRORS as exc:
        out = getattr(args, "out", None)
        if out and getattr(exc, "filename", None) == out:
            path = Path(out)
        raise ClientError(problem(path, exc), EXIT_USAGE) from None
    except (ValueError, TypeError, OverflowError) as exc:
        if technicians:
            raise
        # A file that is not the table's event log, or one crafted to look like it.
        raise ClientError(_("{path}: not a readable event log: {error}").format(
            path=path, error=exc), EXIT_USAGE) from None


def _status(result: dict[str, Any]) -> None:
    lines = [render.counters_line(result["counters"]),
             # Players note it before the dice: `mjtable verify-deals` checks it later.
             _("commitment: {commitment}").format(
                 commitment=render.plain(result.get("commitment"))),
             *map(_human, render.fault_lines(result["faults"]) or [_("no active faults")])]
    try:
        from rich.console import Console
    except ModuleNotFoundError:     # a headless install: the same picture, uncoloured
        print(render.table_plain(result))
        print("\n".join(lines))
        return
    # Piped (a script, `| less`): whole lines, never a label wrapped from its value.
    console = Console(soft_wrap=not sys.stdout.isatty())
    console.print(render.table_text(result))
    console.print("\n".join(lines), highlight=False)


def _technicians(args: argparse.Namespace) -> int:
    from firmware.api.auth import Technicians

    path = statedir.state_dir(args.state_dir) / statedir.TECHNICIANS_NAME
    technicians = Technicians(path)
    if args.command == "technicians":
        _out(args, technicians.names(), technicians.names() or [_("no technicians")])
        return 0
    if args.command == "remove-technician":
        if not technicians.remove(args.name):
            raise ClientError(_("no technician {name!r} in {path}").format(
                name=args.name, path=path), EXIT_REFUSED)
        print(_("removed technician {name} from {path}").format(name=args.name, path=path))
        return 0
    token = (getpass.getpass(_("token for {name}: ").format(name=args.name))
             if sys.stdin.isatty()
             else sys.stdin.readline().rstrip("\r\n"))
    try:
        technicians.add(args.name, token)
    except STORAGE_ERRORS:
        raise       # a damaged file, not a bad name or token (see _local)
    except ValueError as exc:
        raise ClientError(str(exc), EXIT_USAGE) from None
    print(_("technician {name} added to {path} (only a salted hash of the token is "
            "kept)").format(name=args.name, path=path))
    return 0


def _export(args: argparse.Namespace) -> int:
    from firmware.state.eventlog import LogReader

    path = statedir.state_dir(args.state_dir) / statedir.EVENT_LOG_NAME
    try:
        reader = LogReader(path)
    except FileNotFoundError:
        raise ClientError(_("no event log at {path}; pass --state-dir DIR").format(
            path=path), EXIT_USAGE) from None
    if args.command == "verify-log":
        ok, found = reader.verify_chain()
        verdict = _("intact") if ok else _("TAMPERED")
        young = reader.young_rotation(args.keep_h * 3600) if ok else None
        if young is not None:
            # The chain holds, but history went faster than any table makes it.
            ok, verdict, found = False, _("SUSPICIOUS"), young
        line = f"{path}: {verdict}: {_human(chain_words.say(str(found)))}"
        if ok and read_only(path.parent):
            # The history is sound, but the table can add nothing to it (E96 at its
            # next start): the technician must hear both, and a script must not pass.
            print(line + _("; but {directory} is read-only: the table cannot log a "
                           "hand; remount it read-write or replace the SD card").format(
                               directory=path.parent), file=sys.stderr)
            return EXIT_USAGE
        print(line, file=sys.stdout if ok else sys.stderr)
        return 0 if ok else EXIT_REFUSED
    filters = {k: getattr(args, k) for k in ("kind", "cycle", "run")
               if getattr(args, k) is not None}
    # The head lets anyone who keeps it tell later whether history was rewritten.
    head = _("event log chain head: {head}").format(head=reader.chain_head())
    if args.out:
        with open(args.out, "w") as fh:     # a file that cannot be written: that line only
            print(head, file=sys.stderr)
            count = reader.export(fh, **filters)
        print((_("1 event written to {path}") if count == 1 else
               _("{n} events written to {path}")).format(n=count, path=args.out),
              file=sys.stderr)
    else:
        print(head, file=sys.stderr)
        reader.export(sys.stdout, **filters)
    return 0


__all__ = ["EXIT_NO_DAEMON", "EXIT_REFUSED", "main"]
