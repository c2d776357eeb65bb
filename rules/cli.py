"""`mjtable deal` and `mjtable audit`: the rules engine from the command line.

The firmware's CLI dispatcher calls `deal_main(argv)` / `audit_main(argv)` with the
arguments after the subcommand. Bad input prints one line to stderr and returns 2.
Every human line goes through `printable_lines`: the files checked come from
elsewhere (an operator, a forged export), and a set name like "\\x1b[2J" must not
reach the terminal of the player checking them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from typing import Any

from mjtable_core import jsontext
from mjtable_core.oserror import said
from mjtable_core.printable import printable_lines

from .anchor import AnchorError, LogAnchors, check_anchored
from .audit import audit
from .errors import RulesError
from .i18n import _
from .render import picture
from .request import deal_request

EXIT_BAD_INPUT = 2
EXIT_SUSPICIOUS = 3     # the audit flagged a test: scripts and cron must notice


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _read(path: str) -> str:
    """The file's text; OSError when it cannot be read, UnicodeDecodeError when it is
    not UTF-8 text."""
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _unreadable(prog: str, path: str, exc: OSError | UnicodeDecodeError) -> int:
    """One line for a file that cannot be read, or is not text (exit 2)."""
    if isinstance(exc, UnicodeDecodeError):
        return _fail(prog, _("{file}: not UTF-8 text: {error}").format(
            file=_name(path), error=exc.reason))
    return _fail(prog, _("{file}: cannot read: {error}").format(
        file=_name(path), error=said(exc)))


def _loads(text: str) -> Any:
    """json.loads, with nesting too deep for the parser and integers of thousands of
    digits a JSONDecodeError like any other (mjtable_core/jsontext.py)."""
    return jsontext.loads(text)


def _fail(prog: str, message: str) -> int:
    print(printable_lines(f"{prog}: {message}"), file=sys.stderr)
    return EXIT_BAD_INPUT


def _records(n: int) -> str:
    """"1 record", "5 records" (a count said as English says it)."""
    return _("1 record") if n == 1 else _("{n} records").format(n=n)


def deal_main(argv: list[str]) -> int:
    """`mjtable deal [FILE|-] [--json]`: deal from a JSON input (docs/deal-format.md)."""
    parser = argparse.ArgumentParser(
        prog="mjtable deal",
        description=_("Deal from built walls and dice and print the dealt-walls record. "
                      "The input and the record: docs/deal-format.md."))
    parser.add_argument("file", nargs="?", default="-", metavar="FILE",
                        help=_("input JSON file, or - for stdin (default)"))
    parser.add_argument("--json", action="store_true", help=_("print the record as JSON"))
    args = parser.parse_args(argv)
    prog = parser.prog
    try:
        text = _read(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        return _unreadable(prog, args.file, exc)
    try:
        obj = _loads(text)
    except json.JSONDecodeError as exc:
        return _fail(prog, _("{file}: not JSON: {error} at line {line} column {column}").format(
            file=_name(args.file), error=exc.msg, line=exc.lineno, column=exc.colno))
    try:
        record = deal_request(obj)
    except RulesError as exc:
        return _fail(prog, f"{_name(args.file)}: {exc}")
    print(json.dumps(record) if args.json else printable_lines(picture(record)))
    return 0


def audit_main(argv: list[str]) -> int:
    """`mjtable audit FILE.jsonl [--json]`: fairness tests over handoff records.

    An unterminated last line that is not JSON (a write cut short) is skipped with a
    warning; any other line that is not JSON is an error.
    """
    parser = argparse.ArgumentParser(
        prog="mjtable audit",
        description=_("Fairness audit over dealt-walls records (one JSON object per line)."))
    parser.add_argument("file", metavar="FILE",
                        help=_("JSON Lines file of handoff records, or - for stdin"))
    parser.add_argument("--json", action="store_true", help=_("print the report as JSON"))
    parser.add_argument("--alpha", type=float, default=None,
                        help=_("p-value below which a test is flagged (default 0.001)"))
    args = parser.parse_args(argv)
    prog = parser.prog
    try:
        text = _read(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        return _unreadable(prog, args.file, exc)
    records, line_numbers = [], []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(_loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines) and not text.endswith("\n"):
                # An append cut short by a power cut: the writer drops it too.
                print(_("{prog}: warning: {file}:{line}: unterminated last line is not JSON "
                        "(a write cut short?); skipped").format(
                            prog=prog, file=_name(args.file), line=number), file=sys.stderr)
                continue
            return _fail(prog, _("{file}:{line}: not JSON: {error} at column {column}").format(
                file=_name(args.file), line=number, error=exc.msg, column=exc.colno))
        line_numbers.append(number)
    try:
        report = audit(records) if args.alpha is None else audit(records, args.alpha)
    except RulesError as exc:
        # records[i] is the i-th non-empty line; say where in file terms.
        message = str(exc)
        found = re.match(r"records\[(\d+)\]\.?", message)
        if found:
            line = line_numbers[int(found.group(1))]
            return _fail(prog, f"{_name(args.file)}:{line}: {message[found.end():]}")
        return _fail(prog, f"{_name(args.file)}: {message}")
    print(json.dumps(report) if args.json else printable_lines(report_text(report)))
    return EXIT_SUSPICIOUS if str(report["verdict"]).startswith("suspicious") else 0


def report_text(report: dict) -> str:
    """The audit report as lines a person reads."""
    lines = [_records(report["records"])]
    if report["note"]:
        lines.append(report["note"])
    for name, test in report["tests"].items():
        if test["p_value"] is None:
            lines.append(_("{name:20} skipped: {reason}").format(name=name,
                                                                 reason=test["skipped"]))
        else:
            lines.append(_("{name:20} statistic {statistic:>12} dof {dof:>4} p {p:.3g}").format(
                name=name, statistic=test["statistic"], dof=test["dof"], p=test["p_value"]))
    lines.append(_("verdict: {verdict}").format(verdict=_verdict(report["verdict"])))
    return "\n".join(lines)


def _verdict(verdict: str) -> str:
    """The audit's verdict in the reader's language (the JSON keeps the English)."""
    if verdict.startswith("suspicious: "):
        return _("suspicious: {tests}").format(tests=verdict.removeprefix("suspicious: "))
    words = {"no evidence of bias": _("no evidence of bias"),
             "not enough data": _("not enough data")}
    return words.get(verdict, verdict)


def verify_deals_main(argv: list[str],
                      read_log: Callable[[str, str | None], LogAnchors] | None = None) -> int:
    """`mjtable verify-deals FILE.jsonl [--log EVENTS] [--head ID:SHA256]`: exit 0 when
    every hand deals again from its walls and dice, every reveal matches its commitment,
    the records form one chain and (with --log) every commitment is the one the event
    log saw when the walls rose; 1 naming the first broken record, 2 on bad input.

    `read_log` reads an event log's anchors (firmware/hands/deal_log.py): the rules engine
    does not read the firmware's log itself."""
    parser = argparse.ArgumentParser(
        prog="mjtable verify-deals",
        description=_("Check a handoff file (one record per line): every hand dealt again "
                      "from its walls and dice, each revealed nonce against the commitment "
                      "published before that deal, and the chain of commitments from record "
                      "to record; with --log, every commitment against the one the event "
                      "log recorded when the walls rose."))
    parser.add_argument("file", metavar="FILE",
                        help=_("handoff records, JSON lines ('-' for stdin)"))
    parser.add_argument("--json", action="store_true", help=_("print the verdict as JSON"))
    if read_log is not None:
        parser.add_argument("--log", metavar="EVENTS",
                            help=_("the table's event log (events.sqlite): the commitments "
                                   "it recorded anchor the file"))
        parser.add_argument("--head", metavar="ID:SHA256",
                            help=_("a chain head of the event log noted elsewhere: the log "
                                   "must still reach it"))
    parser.add_argument("--scores", metavar="FILE",
                        help=_("the scores beside the records (docs/scoring.md): show each "
                               "hand's deal and score together"))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from .chain import read_records, verify_history
    from .scoring.beside import hand_line, pair_scores

    prog = "mjtable verify-deals"
    log, head = getattr(args, "log", None), getattr(args, "head", None)
    if head is not None and log is None:
        return _fail(prog, _("--head needs --log: the head is the event log's"))
    reading = args.file
    try:
        records = read_records(_read(args.file).splitlines())
        reading = args.scores
        score_lines = _read(args.scores).splitlines() if args.scores else None
    except (OSError, UnicodeDecodeError) as exc:
        return _unreadable(prog, reading, exc)
    anchors = None
    if log is not None and read_log is not None:
        try:
            anchors = read_log(log, head)
        except AnchorError as exc:
            if not exc.broken:
                return _fail(prog, str(exc))
            print(printable_lines(_("{file}: BROKEN at {problem}").format(
                file=_name(args.file), problem=exc)), file=sys.stderr)
            return 1
    verdict = verify_history(records)
    hands, problems = pair_scores(records, score_lines) if score_lines is not None else ([], [])
    anchored = 0
    if verdict.ok and anchors is not None:
        problem, line, anchored = check_anchored(
            [(n, r) for n, r in records if r is not None], anchors)
        if problem is not None:
            verdict.ok, verdict.problem, verdict.line = False, problem, line
    if args.json:
        print(json.dumps({**verdict.__dict__, "anchored_in_log": anchored
                          if anchors is not None else None,
                          **({"hands": hands, "score_problems": problems}
                             if score_lines is not None else {})}))
    elif verdict.ok:
        print(_("{file}: {records}, one chain; {reveals}").format(
            file=_name(args.file), records=_records(verdict.records),
            reveals=(_("1 reveal matches its commitment") if verdict.reveals_checked == 1
                     else _("{n} reveals match their commitments").format(
                         n=verdict.reveals_checked))))
        print(_("dice: {checked} hands rolled from a seed committed before their walls were "
                "built; {observed} read from physical dice; {unbound} not bound before "
                "their walls {lines}").format(
                    checked=verdict.dice_checked, observed=verdict.dice_observed,
                    unbound=len(verdict.dice_unbound or []),
                    lines=_("(first record, or after a missing hand: lines {lines})").format(
                        lines=", ".join(map(str, verdict.dice_unbound)))
                    if verdict.dice_unbound else ""))
        if anchors is not None:
            print(printable_lines(_("event log: {anchored} commitments recorded when the "
                                    "walls rose, the rest bound to them by the chain "
                                    "({log})").format(anchored=anchored,
                                                      log=anchors.described)))
        else:
            print(_("not checked against the event log (--log): only the display's prefix "
                    "of each commitment ties this file to what the players saw"))
    else:
        print(printable_lines(_("{file}: BROKEN at {problem}").format(
            file=_name(args.file), problem=verdict.problem)), file=sys.stderr)
    if score_lines is not None and not args.json:
        for hand in hands:
            print(printable_lines(hand_line(hand)))
        for problem in problems:
            print(printable_lines(problem), file=sys.stderr)
    return 0 if verdict.ok and not problems else 1
