"""`mjtable venue staff …` and `mjtable venue integrator …`: the venue's accounts from
the command line (the venue process may be running: the database is shared safely).

    mjtable venue staff add NAME          # asks for the password (or reads stdin)
    mjtable venue staff remove NAME
    mjtable venue staff list
    mjtable venue integrator issue NAME   # prints the API key, once
    mjtable venue integrator revoke NAME
    mjtable venue integrator list

Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import getpass
import sqlite3
import sys

from firmware.i18n import _
from mjtable_core.schema import ConfigError

COMMANDS = ("staff", "integrator")
EXIT_INPUT = 2


def parser() -> argparse.ArgumentParser:
    def common(default: object) -> argparse.ArgumentParser:
        options = argparse.ArgumentParser(add_help=False)
        options.add_argument("--config", metavar="FILE", default=default,
                             help=_("the venue's config (venue.toml; default: built-in)"))
        options.add_argument("--state-dir", metavar="DIR", default=default,
                             help=_("where the venue keeps its records (default: [desk] "
                                    "state_dir, else the state directory)"))
        return options

    parser = argparse.ArgumentParser(prog="mjtable venue", parents=[common(None)],
                                     description=_("the venue's staff and integrators"))
    # Also after the command; SUPPRESS keeps a value given before it.
    after = common(argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="what", required=True)
    staff = sub.add_parser("staff", parents=[after],
                           help=_("staff accounts of the dashboard"))
    staff.add_argument("action", choices=("add", "remove", "list"),
                       help=_("add an account (asks its password), remove one, or list them"))
    staff.add_argument("name", nargs="?", metavar="NAME",
                       help=_("the staff member's login name (add, remove)"))
    staff.add_argument("--password-stdin", action="store_true",
                       help=_("read the password from the first line of stdin"))
    integrator = sub.add_parser("integrator", parents=[after],
                                help=_("API keys of the booking API"))
    integrator.add_argument("action", choices=("issue", "revoke", "list"),
                            help=_("issue a key (printed once), revoke one, or list them"))
    integrator.add_argument("name", nargs="?", metavar="NAME",
                            help=_("the integrator's name (issue, revoke)"))
    return parser


def wanted(argv: list[str]) -> bool:
    """Whether `mjtable venue ARGS` names one of these commands (after its options)."""
    words = iter(argv)
    for word in words:
        if word in ("--config", "--state-dir"):
            next(words, None)
        elif not word.startswith("-"):
            return word in COMMANDS
    return False


def fail(message: str) -> int:
    print(f"mjtable venue: {message}", file=sys.stderr)
    return EXIT_INPUT


def read_password(from_stdin: bool) -> str:
    if from_stdin or not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass(_("password: "))
    if getpass.getpass(_("again: ")) != first:
        raise ValueError(_("the two passwords differ"))
    return first


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        from venue.desk import config as desk_config
        from venue.desk.serve import default_store
        from venue.desk.tables.store import FILE_NAME, Store
        from venue.desk.web.login import offices

        config = desk_config.load(args.config)
        path = default_store(args.state_dir, config.desk.state_dir) / FILE_NAME
        store = Store(path)
        office, staff, _sessions, integrators = offices(store.db, config)
    except ConfigError as exc:
        return fail(_("config error: {error}").format(error=exc))
    except OSError as exc:
        return fail(str(exc))
    except sqlite3.Error as exc:        # not a database, a read-only disk
        return fail(_("cannot keep records in {path}: {error}").format(path=path, error=exc))
    office.echo = False
    needs_name = args.action not in ("list",)
    if needs_name and not args.name:
        return fail(_("{what} {action} needs a NAME").format(what=args.what,
                                                              action=args.action))
    try:
        if args.what == "staff":
            return _staff(staff, args)
        return _integrator(integrators, args)
    except ValueError as exc:
        return fail(str(exc))
    finally:
        store.close()


def _staff(staff: object, args: argparse.Namespace) -> int:
    from venue.desk.accounts.staff import Staff

    assert isinstance(staff, Staff)
    if args.action == "list":
        for name in staff.names():
            print(name)
        return 0
    if args.action == "remove":
        if not staff.remove(args.name):
            return fail(_("no staff account “{name}”").format(name=args.name))
        print(_("removed staff account {name}").format(name=args.name))
        return 0
    name = staff.add(args.name, read_password(args.password_stdin))
    print(_("staff account {name} ready").format(name=name))
    return 0


def _integrator(integrators: object, args: argparse.Namespace) -> int:
    from venue.desk.accounts.integrators import Integrators

    assert isinstance(integrators, Integrators)
    if args.action == "list":
        for row in integrators.listed():
            state = _("revoked") if row["revoked"] else _("live")
            print(f"{row['name']}\t{row['key_id']}\t{state}")
        return 0
    if args.action == "revoke":
        if not integrators.revoke(args.name):
            return fail(_("no live key for integrator “{name}”").format(name=args.name))
        print(_("revoked the keys of {name}").format(name=args.name))
        return 0
    key = integrators.issue(args.name)
    print(key)
    print(_("the key is shown this once: give it to {name}; only its hash is kept").format(
        name=args.name), file=sys.stderr)
    return 0
