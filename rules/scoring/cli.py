"""`mjtable score FILE.json [--json]`: score a declared win from the command line.

Exit 0 for a win and for a hand that does not win (the answer says why); malformed or
impossible input is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from mjtable_core.printable import printable_lines

from ..errors import RulesError
from ..i18n import _
from . import score_request

EXIT_BAD_INPUT = 2


def _fail(message: str) -> int:
    print(printable_lines(f"mjtable score: {message}"), file=sys.stderr)
    return EXIT_BAD_INPUT


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
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(_("{file}: cannot read: {error}").format(
            file=name, error=getattr(exc, "strerror", None) or exc))
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return _fail(_("{file}: not JSON: {error} at line {line} column {column}").format(
            file=name, error=exc.msg, line=exc.lineno, column=exc.colno))
    except RecursionError:      # nested past the parser: a crafted file
        return _fail(_("{file}: not JSON: {error} at line {line} column {column}").format(
            file=name, error=_("nested too deep"), line=1, column=1))
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
