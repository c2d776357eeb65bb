"""`mjtable venue`: the venue's box process, its arguments and its life."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from firmware.i18n import _
from mjtable_core.cli_types import positive_int
from mjtable_core.schema import ConfigError

if TYPE_CHECKING:
    from venue.desk.serve import Desk

EXIT_CONFIG = 2
MAX_DEMO = 500


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mjtable venue", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_("The venue's box: every table on one screen, usage for billing "
                      "(docs/venue.md)."),
        # The accounts' commands have a parser of their own (venue/desk/admin.py):
        # named here, or nobody finds them from --help.
        epilog=_("accounts (the venue may be running):\n"
                 "  mjtable venue staff add|remove|list [NAME]        staff of the "
                 "dashboard\n"
                 "  mjtable venue integrator issue|revoke|list [NAME] API keys of the "
                 "booking API\n"
                 "  mjtable venue staff --help                        their options"))
    parser.add_argument("--config", metavar="FILE",
                        help=_("the venue's config (venue.toml; default: built-in)"))
    parser.add_argument("--listen", metavar="HOST:PORT",
                        help=_("where the dashboard listens (default: [desk] listen, "
                               "127.0.0.1:8780)"))
    parser.add_argument("--broker", metavar="URL",
                        help=_("mqtt://host:port or mqtts://host:port (default: "
                               "[broker] url)"))
    parser.add_argument("--state-dir", metavar="DIR",
                        help=_("where the hand records are kept (default: [desk] "
                               "state_dir, else the state directory)"))
    parser.add_argument("--demo", type=positive_int, metavar="N",
                        help=_("an embedded broker and N made-up tables: see it all "
                               "without a table"))
    parser.add_argument("--new-key", metavar="FILE",
                        help=_("write a new venue signing key to FILE and print the line "
                               "the tables' [venue] keys need"))
    return parser


def main(argv: list[str]) -> int:
    from venue.desk import admin

    if admin.wanted(argv):
        return admin.main(argv)         # staff and integrators' accounts
    args = parser().parse_args(argv)
    if args.new_key:
        return _new_key(Path(args.new_key))
    try:
        from venue.desk import config as desk_config
        config = desk_config.load(args.config)
        if args.listen:
            config = desk_config.override(config, "desk", listen=args.listen)
        if args.broker:
            config = desk_config.override(config, "broker", url=args.broker)
    except ConfigError as exc:
        print(_("mjtable venue: config error: {error}").format(error=exc), file=sys.stderr)
        return EXIT_CONFIG
    except ModuleNotFoundError as exc:
        return _missing(exc)
    if args.demo is not None and args.demo > MAX_DEMO:
        print(_("mjtable venue: --demo takes at most {n} tables").format(n=MAX_DEMO),
              file=sys.stderr)
        return EXIT_CONFIG
    try:
        from venue.desk.serve import AlreadyRunning, Desk
    except ModuleNotFoundError as exc:
        return _missing(exc)
    try:
        desk = Desk(config, demo=args.demo, state_dir=args.state_dir)
    except AlreadyRunning as exc:
        print(f"mjtable venue: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except ValueError as exc:        # the key file
        print(f"mjtable venue: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except (OSError, sqlite3.Error) as exc:     # the state directory or its store
        print(_("mjtable venue: cannot keep records in {path}: {error}").format(
            path=args.state_dir or config.desk.state_dir or _("the state directory"),
            error=getattr(exc, "strerror", None) or exc), file=sys.stderr)
        return EXIT_CONFIG
    return asyncio.run(_run(desk))


def _new_key(path: Path) -> int:
    from venue.desk.tables.link import new_key

    try:
        public = new_key(path)
    except OSError as exc:
        print(_("mjtable venue: cannot write {path}: {error}").format(
            path=path, error=exc.strerror or exc), file=sys.stderr)
        return EXIT_CONFIG
    print(_("# venue.toml, [broker]: key_file = \"{path}\"; each table's config, "
            "[venue]:").format(path=path))
    print(f'keys = {{ "venue-1" = "{public}" }}')
    return 0


def _missing(exc: ModuleNotFoundError) -> int:
    print(_("mjtable venue: needs the venue extra ({module} is missing): "
            "pip install 'mjtable[venue]'").format(module=exc.name), file=sys.stderr)
    return EXIT_CONFIG


async def _run(desk: Desk) -> int:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, desk.stop)
    try:
        await desk.start(say)
    except OSError as exc:
        print(_("mjtable venue: cannot listen on {listen}: {error}").format(
            listen=desk.config.desk.listen, error=exc.strerror or exc), file=sys.stderr)
        await desk.close()
        return EXIT_CONFIG
    await desk.wait()
    await desk.close()
    return 0


def say(line: str) -> None:
    print(line, flush=True)
