"""`mjtable audit`: the fairness audit over a handoff log, or over a fresh simulated batch.

`mjtable audit FILE.jsonl` is the rules engine's own command (rules/cli.py).
`mjtable audit --simulate N` runs N hands of the unchanged firmware on the simulated
table and audits their records; it lives with the simulator so that rules/
never imports the simulator.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from firmware.i18n import _
from mjtable_core.cli_types import number, positive_int, whole
from mjtable_core.config import Config, load_config
from mjtable_core.schema import ConfigError
from rules.audit import ALPHA, audit
from rules.cli import audit_main, report_text

EXIT_BAD_INPUT = 2
EXIT_INCOMPLETE = 1
EXIT_SUSPICIOUS = 3     # the audit ran and flagged a test: a script must notice
BATCH_PLAY_TIME_S = 1.0   # the shortest hand config allows: the audit needs walls, not play


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mjtable audit",
        usage="%(prog)s FILE [--json] [--alpha P]\n       %(prog)s --simulate N [--seed S] "
              "[--config FILE] [--shuffle nominal|under_mixed] [--json] [--alpha P]",
        description=_("Fairness audit over dealt-walls records: a JSON Lines handoff log, "
                      "or a fresh batch of hands on the simulated table."),
        epilog=_("Exit status: 0 no evidence of bias (or not enough data), "
                 "{suspicious} suspicious, {incomplete} the simulated table "
                 "stopped early, {bad} bad input.").format(
            suspicious=EXIT_SUSPICIOUS, incomplete=EXIT_INCOMPLETE, bad=EXIT_BAD_INPUT))
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help=_("JSON Lines file of handoff records, or - for stdin"))
    parser.add_argument("--simulate", type=positive_int, metavar="N",
                        help=_("instead of a file, simulate N hands and audit them"))
    parser.add_argument("--seed", type=whole, help=_("simulator seed (default: from config)"))
    parser.add_argument("--config", metavar="FILE",
                        help=_("table config for --simulate (default: the reference "
                               "table.toml)"))
    parser.add_argument("--shuffle", choices=("nominal", "under_mixed"),
                        help=_("simulated disc (default: from config); under_mixed barely "
                               "mixes"))
    parser.add_argument("--json", action="store_true", help=_("print the report as JSON"))
    parser.add_argument("--alpha", type=number, default=None,
                        help=_("p-value below which a test is flagged (default {alpha})").format(
                            alpha=ALPHA))
    return parser


def batch_config(config: Config, shuffle: str | None = None) -> Config:
    """The table's config made fit for a batch: short hands, and no handoff file —
    simulated hands must never join the table's real audit trail."""
    simulator = dataclasses.replace(config.simulator, play_time_s=BATCH_PLAY_TIME_S,
                                    shuffle=shuffle or config.simulator.shuffle)
    rules = dataclasses.replace(config.rules, handoff_file="")
    return dataclasses.replace(config, simulator=simulator, rules=rules)


def simulate_records(config: Config, hands: int, seed: int | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run `hands` simulated hands on `config` as given; (records, simulate's report)."""
    from simulator.harness.run import simulate

    records: list[dict[str, Any]] = []
    report = simulate(config, hands, seed, progress=progress, consumers=[records.append])
    return records, report


def audit_simulated(config: Config, hands: int, seed: int | None = None,
                    shuffle: str | None = None, alpha: float = ALPHA,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Audit a fresh batch: the audit report plus a `simulation` summary."""
    config = batch_config(config, shuffle)
    started = time.perf_counter()
    records, sim = simulate_records(config, hands, seed, progress)
    simulated = time.perf_counter()
    report = audit(records, alpha)
    finished = time.perf_counter()
    report["simulation"] = {
        "hands_requested": hands, "hands_dealt": len(records), "seed": sim["seed"],
        "config": config.source, "variant": config.rules.variant,
        "shuffle": config.simulator.shuffle, "faults": len(sim["faults"]),
        "completed": sim["completed"], "simulate_s": round(simulated - started, 3),
        "audit_s": round(finished - simulated, 3)}
    return report


def _progress() -> Callable[[int, int], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        line = _("hand {done}/{total}").format(done=done, total=total)
        print("\r" + line, end="" if done < total else "\n",
              file=sys.stderr, flush=True)
    return show


def main(argv: list[str]) -> int:
    """`mjtable audit FILE.jsonl | --simulate N [--seed S] [--config F] [--shuffle ...]`."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.simulate is None:
        if args.seed is not None or args.config or args.shuffle:
            parser.error(_("--seed, --config and --shuffle go with --simulate"))
        if args.file is None:
            parser.error(_("give a FILE of handoff records (- for stdin), or --simulate N "
                           "to audit a fresh batch of simulated hands"))
        return audit_main(argv)   # the rules engine's own command
    if args.file is not None:
        parser.error(_("give a FILE or --simulate N, not both"))
    if args.alpha is not None and not 0 < args.alpha < 1:
        print(f"{parser.prog}: " + _("alpha: {alpha} outside (0, 1)").format(alpha=args.alpha),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"{parser.prog}: " + _("config error: {error}").format(error=exc),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    report = audit_simulated(config, args.simulate, args.seed, args.shuffle,
                             ALPHA if args.alpha is None else args.alpha, _progress())
    sim = report["simulation"]
    if args.json:
        print(json.dumps(report))
    else:
        print(_("simulated {dealt}/{requested} hands, {variant}, {shuffle} shuffle, seed "
                "{seed} ({simulate:.1f} s; audit {audit:.1f} s)").format(
            dealt=sim["hands_dealt"], requested=sim["hands_requested"],
            variant=sim["variant"], shuffle=sim["shuffle"], seed=sim["seed"],
            simulate=sim["simulate_s"], audit=sim["audit_s"]))
        print(report_text(report))
    if not sim["completed"]:
        print(f"{parser.prog}: " + _("the simulated table stopped after {dealt} hands "
                                     "({faults} fault(s)); the audit covers those").format(
            dealt=sim["hands_dealt"], faults=sim["faults"]), file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_SUSPICIOUS if suspicious(report) else 0


def suspicious(report: dict[str, Any]) -> bool:
    """The audit flagged at least one test."""
    return str(report.get("verdict", "")).startswith("suspicious")
