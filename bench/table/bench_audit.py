"""The fairness audit over simulated batches: p-value of each test, and the wall time.

    python -m bench.table.bench_audit [--nominal N] [--under-mixed M] [--seed S] [--json]

Runs N hands (default 5000) on the reference 144-tile MCR table with the nominal
shuffle disc, and M hands (default 1000) with the worn `under_mixed` disc, through the
unchanged firmware on the virtual clock (hands of play shortened to 1 s: the audit
needs the walls, not the play), then audits each batch. Wall times are split into
simulating (which includes the built-in engine re-dealing every record) and auditing.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
from typing import Any

from mjtable_core.config import load_config
from simulator.harness.audit_cli import audit_simulated


def batch_figures(hands: int, shuffle: str, seed: int) -> dict[str, Any]:
    """One batch: its verdict, each test's p-value and statistic, and the times."""
    report = audit_simulated(load_config(), hands, seed, shuffle)
    sim = report["simulation"]
    return {
        "shuffle": shuffle, "hands": sim["hands_dealt"], "seed": sim["seed"],
        "verdict": report["verdict"],
        "p_values": {name: t["p_value"] for name, t in report["tests"].items()},
        "statistics": {name: t["statistic"] for name, t in report["tests"].items()},
        "carry_over": {k: report["tests"]["carry_over"].get(k)
                       for k in ("pairs", "adjacent_again", "expected_uniform")},
        "simulate_s": sim["simulate_s"], "audit_s": sim["audit_s"],
        "hands_per_s": round(sim["hands_dealt"] / sim["simulate_s"], 1),
    }


def _print(batch: dict[str, Any]) -> None:
    print(f"{batch['hands']} hands, {batch['shuffle']} shuffle, seed {batch['seed']}: "
          f"simulated in {batch['simulate_s']:.1f} s ({batch['hands_per_s']} hands/s), "
          f"audited in {batch['audit_s']:.1f} s")
    for name, p in batch["p_values"].items():
        shown = "skipped" if p is None else f"p = {p:.3g}"
        print(f"  {name:20} {shown}")
    carry = batch["carry_over"]
    print(f"  carry_over: {carry['adjacent_again']} neighbours again over {carry['pairs']} "
          f"pairs of hands, {carry['expected_uniform']} expected of a uniform shuffle")
    print(f"  verdict: {batch['verdict']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table.bench_audit",
                                     description="Audit p-values and wall time on "
                                                 "simulated batches.")
    parser.add_argument("--nominal", type=int, default=5000, help="nominal hands (5000)")
    parser.add_argument("--under-mixed", type=int, default=1000,
                        help="hands on the under-mixed disc (1000)")
    parser.add_argument("--seed", type=int, default=1, help="simulator seed (1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    batches = [batch_figures(args.nominal, "nominal", args.seed),
               batch_figures(args.under_mixed, "under_mixed", args.seed)]
    rss = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if args.json:
        print(json.dumps({"batches": batches, "peak_rss_mb": rss}))
    else:
        for batch in batches:
            _print(batch)
        print(f"peak RSS {rss} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
