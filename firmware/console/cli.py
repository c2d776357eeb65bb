"""`mjtable console`: one-shot commands against the running daemon, and the TUI.

Reading (status, faults, log, walls, diagnose) is open to whoever can open the
socket; test, test-mode, jog, clear and estop --release need `--technician NAME` with
the token in $MJTABLE_TOKEN or typed at the prompt.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from firmware import statedir
from firmware.console import render
from firmware.console.client import (
    EXIT_NO_DAEMON,
    EXIT_REFUSED,
    EXIT_USAGE,
    ApiClient,
    ConsoleError,
)

TOKEN_ENV = "MJTABLE_TOKEN"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mjtable console",
                                     description="Technician console for a running table.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--socket", metavar="PATH", default=argparse.SUPPRESS,
                        help=f"API socket (default: {statedir.default_socket()})")
    common.add_argument("--tcp", metavar="HOST:PORT", default=argparse.SUPPRESS,
                        help="reach the daemon over TCP instead (needs --technician)")
    common.add_argument("--technician", metavar="NAME", default=argparse.SUPPRESS,
                        help=f"who you are; the token comes from ${TOKEN_ENV} or a prompt")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print JSON instead of text")
    common.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="where the technicians and the event log live")
    for p in (parser,):
        p.add_argument("--socket", metavar="PATH")
        p.add_argument("--tcp", metavar="HOST:PORT")
        p.add_argument("--technician", metavar="NAME")
        p.add_argument("--json", action="store_true")
        p.add_argument("--state-dir", metavar="DIR")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_)

    add("info", "what the daemon is and offers")
    add("status", "the table now: picture, machines, counters")
    add("faults", "active faults with diagnosis, and the history")
    log = add("log", "the event log (JSON lines with --json)")
    log.add_argument("--kind", help="event kind, e.g. fault, key, phase, technician")
    log.add_argument("--cycle", type=int, help="hand number")
    log.add_argument("--run", type=int, help="daemon run (default: all; current for --cycle)")
    log.add_argument("--since", type=float, help="unix time")
    log.add_argument("--until", type=float, help="unix time")
    log.add_argument("--limit", type=int, default=200)
    export = add("export-log", "export the event log file as JSON lines (no daemon needed)")
    export.add_argument("--kind")
    export.add_argument("--cycle", type=int)
    export.add_argument("--run", type=int)
    export.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    diag = add("diagnose", "guided diagnosis of a symptom")
    diag.add_argument("symptom", nargs="+")
    test = add("test", "run a mechanism self-test (lid, plate.N, head.N, disc, conveyor.N, "
                       "dice, all)")
    test.add_argument("mechanism")
    mode = add("test-mode", "enter or leave test mode")
    mode.add_argument("state", choices=("on", "off"))
    mode.add_argument("--force", action="store_true",
                      help="enter even during a build (that half-built set is rebuilt)")
    jog = add("jog", "run one motor briefly (lid: up/down; others: fwd)")
    jog.add_argument("motor")
    jog.add_argument("direction")
    jog.add_argument("seconds", type=float)
    clear = add("clear", "clear a fault by its #ref, id or display code")
    clear.add_argument("fault")
    clear.add_argument("--refed", action="store_true",
                       help="the half-built set was refed (belts, heads and tracks emptied "
                            "onto the disc): releases the refeed hold (display rF)")
    estop = add("estop", "emergency stop (anyone); --release needs a technician")
    estop.add_argument("--release", action="store_true")
    walls = add("walls", "recent handoffs (dealt walls and commitments)")
    walls.add_argument("--limit", type=int, default=3)
    add("config", "the daemon's effective config")
    add("tui", "the live console (Textual)")
    tech_add = add("add-technician", "add a technician; the token is read from stdin")
    tech_add.add_argument("name")
    tech_rm = add("remove-technician", "remove a technician")
    tech_rm.add_argument("name")
    add("technicians", "list technician names")
    return parser


def main(argv: Sequence[str], state_dir: str | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    if state_dir and not args.state_dir:
        args.state_dir = state_dir
    try:
        return _command(args)
    except ConsoleError as exc:
        if getattr(args, "json", False):
            print(json.dumps({"ok": False, "error": {"code": exc.code, "message": str(exc)}}))
        print(f"mjtable console: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


def _socket(args: argparse.Namespace) -> Path:
    return Path(args.socket) if args.socket else statedir.default_socket()


def _tcp(args: argparse.Namespace) -> tuple[str, int] | None:
    if not args.tcp:
        return None
    host, _, port = args.tcp.rpartition(":")
    if not host or not port.isdigit():
        raise ConsoleError(f"--tcp wants HOST:PORT, got {args.tcp!r}", EXIT_USAGE)
    return host, int(port)


def credential(name: str | None) -> tuple[str, str] | None:
    """(name, token) from --technician and $MJTABLE_TOKEN or a prompt."""
    if not name:
        return None
    token = os.environ.get(TOKEN_ENV)
    if token is None:
        if not sys.stdin.isatty():
            raise ConsoleError(f"no token for technician {name!r}: set {TOKEN_ENV} or run "
                               "from a terminal to be asked", EXIT_USAGE)
        token = getpass.getpass(f"token for {name}: ")
    return name, token


def _client(args: argparse.Namespace) -> ApiClient:
    return ApiClient(_socket(args), _tcp(args), timeout=300.0,
                     technician=credential(args.technician))


def _out(args: argparse.Namespace, result: Any, text: list[str] | str) -> None:
    if args.json:
        print(json.dumps(result, default=str))
    elif isinstance(text, str):
        print(text)
    else:
        print("\n".join(text))


def _command(args: argparse.Namespace) -> int:
    command = args.command
    if command in ("add-technician", "remove-technician", "technicians"):
        return _technicians(args)
    if command == "export-log":
        return _export(args)
    if command == "tui":
        from firmware.console.tui import run_tui
        return run_tui(_socket(args), _tcp(args), credential(args.technician))
    with _client(args) as client:
        return _remote(args, client)


def _remote(args: argparse.Namespace, client: ApiClient) -> int:
    command = args.command
    if command == "info":
        result = client.call("info")
        _out(args, result, [f"{k}: {v}" for k, v in result.items()])
    elif command == "status":
        result = client.call("status")
        if args.json:
            _out(args, result, "")
        else:
            console = Console()
            console.print(render.table_text(result))
            counters = result["counters"]
            console.print(" ".join(f"{k}={v}" for k, v in counters.items()))
            lines = render.fault_lines(result["faults"]) or ["no active faults"]
            console.print("\n".join(lines), highlight=False)
    elif command == "faults":
        result = client.call("faults")
        lines = ["active:"] + (render.fault_lines(result["active"]) or ["  none"])
        earlier = [f for f in result["history"] if not f["active"]]
        if earlier:
            lines += ["cleared this run:", *render.fault_lines(earlier)]
        lines.append(f"faults in the event log: {len(result['logged'])}")
        _out(args, result, lines)
    elif command == "log":
        params = {k: getattr(args, k) for k in ("kind", "cycle", "run", "since", "until",
                                                 "limit") if getattr(args, k) is not None}
        result = client.call("log", params)
        if args.json:
            for row in result["rows"]:
                print(json.dumps(row, default=str))
        else:
            print("\n".join(render.log_line(r) for r in result["rows"]) or "no events")
    elif command == "diagnose":
        result = client.call("diagnose", {"symptom": " ".join(args.symptom)})
        _out(args, result, render.diagnosis_lines(result))
    elif command == "test":
        result = client.call("test", {"mechanism": args.mechanism}, auth=True)
        _out(args, result, render.test_lines(result["results"]))
        return 0 if all(r["result"] == "P" for r in result["results"]) else EXIT_REFUSED
    elif command == "test-mode":
        result = client.call("testmode", {"on": args.state == "on", "force": args.force},
                             auth=True)
        _out(args, result, f"test mode {'on' if result['test_mode'] else 'off'} "
                           f"(cycle {result['cycle']})")
    elif command == "jog":
        result = client.call("jog", {"motor": args.motor, "direction": args.direction,
                                     "seconds": args.seconds}, auth=True)
        _out(args, result, f"jog {result['motor']} {result['direction']}: ran "
                           f"{result['ran_s']} s, stopped: {result['stopped']}")
    elif command == "clear":
        result = client.call("clear", {"fault": args.fault, "refed": args.refed}, auth=True)
        lines = [f"cleared {f['code']} {f['id']} at {f['where']}" for f in result["cleared"]]
        lines.append("table re-homing and building again" if result["resumed"] else
                     "table still stopped: "
                     + ("e-stop active" if result["estopped"] else
                        "test mode" if result["test_mode"] else
                        f"{len(result['still_active'])} fault(s) active"))
        _out(args, result, lines)
    elif command == "estop":
        result = client.call("estop", {"release": args.release}, auth=args.release)
        _out(args, result, "e-stop released" + (", table re-homing" if result.get("resumed")
                                                 else "") if args.release else
             "E-STOP: every motor off; release with `mjtable console --technician NAME "
             "estop --release`")
    elif command == "walls":
        result = client.call("walls", {"limit": args.limit})
        lines = [f"commitment now: {result['commitment']}"]
        for record in result["records"]:
            table = record.get("table", {})
            lines.append(f"hand {table.get('cycle')} set {table.get('set')}: commitment "
                         f"{record.get('commitment')} dice {record.get('dice')}")
        _out(args, result, lines)
    elif command == "config":
        result = client.call("config")
        _out(args, result, json.dumps(result, indent=2, default=str))
    return 0


def _technicians(args: argparse.Namespace) -> int:
    from firmware.api.auth import Technicians

    path = statedir.state_dir(args.state_dir) / statedir.TECHNICIANS_NAME
    technicians = Technicians(path)
    if args.command == "technicians":
        _out(args, technicians.names(), technicians.names() or ["no technicians"])
        return 0
    if args.command == "remove-technician":
        if not technicians.remove(args.name):
            raise ConsoleError(f"no technician {args.name!r} in {path}", EXIT_REFUSED)
        print(f"removed technician {args.name} from {path}")
        return 0
    token = (getpass.getpass(f"token for {args.name}: ") if sys.stdin.isatty()
             else sys.stdin.readline().rstrip("\r\n"))
    try:
        technicians.add(args.name, token)
    except ValueError as exc:
        raise ConsoleError(str(exc), EXIT_USAGE) from None
    print(f"technician {args.name} added to {path} (only a salted hash of the token is kept)")
    return 0


def _export(args: argparse.Namespace) -> int:
    from firmware.eventlog import LogReader

    path = statedir.state_dir(args.state_dir) / statedir.EVENT_LOG_NAME
    try:
        reader = LogReader(path)
    except FileNotFoundError:
        raise ConsoleError(f"no event log at {path}; pass --state-dir DIR",
                           EXIT_NO_DAEMON) from None
    filters = {k: getattr(args, k) for k in ("kind", "cycle", "run")
               if getattr(args, k) is not None}
    if args.out:
        with open(args.out, "w") as fh:
            count = reader.export(fh, **filters)
        print(f"{count} events written to {args.out}", file=sys.stderr)
    else:
        reader.export(sys.stdout, **filters)
    return 0


__all__ = ["EXIT_NO_DAEMON", "EXIT_REFUSED", "main"]
