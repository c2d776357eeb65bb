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

from firmware.config import Config, load_config
from firmware.configfile import ConfigError
from rules.audit import ALPHA, audit
from rules.cli import audit_main, report_text

EXIT_BAD_INPUT = 2
EXIT_INCOMPLETE = 1
EXIT_SUSPICIOUS = 3     # the audit ran and flagged a test: a script must notice
BATCH_PLAY_TIME_S = 1.0   # the shortest hand config allows: the audit needs walls, not play


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mjtable audit",
        usage="%(prog)s FILE [--json] [--alpha P]\n       %(prog)s --simulate N [--seed S] "
              "[--config FILE] [--shuffle nominal|under_mixed] [--json] [--alpha P]",
        description="Fairness audit over dealt-walls records: a JSON Lines handoff log, "
                    "or a fresh batch of hands on the simulated table.",
        epilog=f"Exit status: 0 no evidence of bias (or not enough data), "
               f"{EXIT_SUSPICIOUS} suspicious, {EXIT_INCOMPLETE} the simulated table "
               f"stopped early, {EXIT_BAD_INPUT} bad input.")
    parser.add_argument("file", nargs="?",
                        help="JSON Lines file of handoff records, or - for stdin")
    parser.add_argument("--simulate", type=_positive_int, metavar="N",
                        help="instead of a file, simulate N hands and audit them")
    parser.add_argument("--seed", type=int, help="simulator seed (default: from config)")
    parser.add_argument("--config", metavar="FILE",
                        help="table config for --simulate (default: the reference table.toml)")
    parser.add_argument("--shuffle", choices=("nominal", "under_mixed"),
                        help="simulated disc (default: from config); under_mixed barely mixes")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--alpha", type=float, default=None,
                        help=f"p-value below which a test is flagged (default {ALPHA})")
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
    from simulator.run import simulate

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
        print(f"\rhand {done}/{total}", end="" if done < total else "\n",
              file=sys.stderr, flush=True)
    return show


def main(argv: list[str]) -> int:
    """`mjtable audit FILE.jsonl | --simulate N [--seed S] [--config F] [--shuffle ...]`."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.simulate is None:
        if args.seed is not None or args.config or args.shuffle:
            parser.error("--seed, --config and --shuffle go with --simulate")
        if args.file is None:
            parser.error("give a FILE of handoff records (- for stdin), or --simulate N "
                         "to audit a fresh batch of simulated hands")
        return audit_main(argv)   # the rules engine's own command
    if args.file is not None:
        parser.error("give a FILE or --simulate N, not both")
    if args.alpha is not None and not 0 < args.alpha < 1:
        print(f"{parser.prog}: alpha: {args.alpha} outside (0, 1)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"{parser.prog}: config error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    report = audit_simulated(config, args.simulate, args.seed, args.shuffle,
                             ALPHA if args.alpha is None else args.alpha, _progress())
    sim = report["simulation"]
    if args.json:
        print(json.dumps(report))
    else:
        print(f"simulated {sim['hands_dealt']}/{sim['hands_requested']} hands, "
              f"{sim['variant']}, {sim['shuffle']} shuffle, seed {sim['seed']} "
              f"({sim['simulate_s']:.1f} s; audit {sim['audit_s']:.1f} s)")
        print(report_text(report))
    if not sim["completed"]:
        print(f"{parser.prog}: the simulated table stopped after {sim['hands_dealt']} "
              f"hands ({sim['faults']} fault(s)); the audit covers those", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_SUSPICIOUS if suspicious(report) else 0


def suspicious(report: dict[str, Any]) -> bool:
    """The audit flagged at least one test."""
    return str(report.get("verdict", "")).startswith("suspicious")
