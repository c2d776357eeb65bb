"""`mjtable score FILE.json [--json]`: score a declared win from the command line.

Exit 0 for a win and for a hand that does not win (the answer says why); malformed or
impossible input is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from mjtable_core.jsontext import not_utf8, why
from mjtable_core.oserror import said
from mjtable_core.printable import printable, printable_lines

from ..errors import RulesError, shown
from ..i18n import _
from . import score_request

EXIT_BAD_INPUT = 2


def _fail(message: str) -> int:
    # One line whatever the input held: a newline in a value is shown as \x0a.
    print(printable(f"mjtable score: {message}"), file=sys.stderr)
    return EXIT_BAD_INPUT


class DuplicateKey(ValueError):
    """A JSON object names a key twice: which value is meant is not the parser's guess."""


def _unique(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def loads(text: str) -> object:
    """JSON as `json.loads` reads it, but a key given twice in one object is an error
    (DuplicateKey) and NaN or Infinity are not numbers."""
    def constant(name: str) -> object:
        raise ValueError(name)
    return json.loads(text, object_pairs_hook=_unique, parse_constant=constant)


def score_main(argv: list[str]) -> int:
    """The `mjtable score` command; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="mjtable score",
        description=_("Check and score a declared win (JSON, docs/scoring.md)."))
    parser.add_argument("file", nargs="?", default="-",
                        help=_("declared win as JSON, or - for stdin (default)"))
    parser.add_argument("--json", action="store_true", help=_("print the answer as JSON"))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    name = "<stdin>" if args.file == "-" else args.file
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except UnicodeDecodeError as exc:
        return _fail(_("{file}: not UTF-8 text: {error}").format(file=name, error=not_utf8(exc)))
    except OSError as exc:
        return _fail(_("{file}: cannot read: {error}").format(file=name, error=said(exc)))
    # A byte order mark, as Notepad saves UTF-8, is not part of the JSON (RFC 8259 lets a
    # parser ignore it).
    text = text.removeprefix("\ufeff")
    try:
        obj = loads(text)
    except DuplicateKey as exc:
        return _fail(_("{file}: not JSON: the key {key} is given twice in one object").format(
            file=name, key=shown(exc.args[0])))
    except json.JSONDecodeError as exc:
        return _fail(_("{file}: not JSON: {error} at line {line} column {column}").format(
            file=name, error=why(exc), line=exc.lineno, column=exc.colno))
    except RecursionError:
        return _fail(_("{file}: not JSON: nested too deep").format(file=name))
    except ValueError as exc:
        if str(exc) in ("NaN", "Infinity", "-Infinity"):
            return _fail(_("{file}: not JSON: {value} is not a number").format(
                file=name, value=exc))
        # An integer literal past Python's int-from-string limit (4,300 digits).
        return _fail(_("{file}: not JSON: a number has too many digits").format(file=name))
    try:
        answer = score_request(obj)
    except RulesError as exc:
        return _fail(f"{name}: {exc}")
    print(json.dumps(answer, ensure_ascii=False) if args.json
          else printable_lines(answer_text(answer)))
    return 0


def answer_text(answer: dict) -> str:
    """The answer as lines a person reads."""
    lines = [_("win") if answer["win"] else
             _("not a win: {reason}").format(reason=answer["reason"])]
    for fan in answer["fans"]:
        times = f" ×{fan['count']}" if fan["count"] > 1 else ""
        lines.append(f"  {fan['name_zh']} {fan['name_en']}{times}: {fan['points']}")
    lines.append(_("total {total}; minimum met: {met}").format(
        total=answer["total"], met=_("yes") if answer["meets_minimum"] else _("no")))
    if answer["payments"]:
        lines.append(_("payments: {list}").format(list=", ".join(
            f"{seat} {points:+d}" for seat, points in answer["payments"].items())))
    elif answer["win"]:
        lines.append(_("payments: name the discarder (\"discarder\") to see them"))
    return "\n".join(lines)
