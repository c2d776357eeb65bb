"""Deals per second of the rules engine, per variant.

    python -m bench.rules.bench_deal [--seconds S] [--runs N]

Each run deals random layouts (prepared beforehand, so shuffling is not timed) for
S seconds; the figure printed is the median of N runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from rules import VARIANTS, deal, load_variant
from rules.tiles import set_composition

POOL = 64


def _pool(variant: str, seed: int) -> list[tuple[list, list, int]]:
    v = load_variant(variant)
    rng = random.Random(seed)
    tiles = [code for code, n in set_composition(v.tiles).items() for _ in range(n)]
    L = v.stacks_per_wall
    pool = []
    for _ in range(POOL):
        rng.shuffle(tiles)
        walls = [[[tiles[2 * (p * L + k)], tiles[2 * (p * L + k) + 1]] for k in range(L)]
                 for p in range(4)]
        throws = [[rng.randint(1, 6) for _ in range(v.dice)] for _ in range(v.break_throws)]
        if v.wild == "hun":
            throws.append([rng.randint(1, 6) for _ in range(v.wild_dice)])
        pool.append((walls, throws, rng.randrange(4)))
    return pool


def deals_per_second(variant: str, seconds: float = 1.0) -> float:
    """Full deals (validation, deal, record, commitment) per second for `variant`."""
    v = load_variant(variant)
    pool = _pool(variant, seed=1)
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for walls, throws, dealer in pool:
            deal(walls, throws, v, dealer, nonce="bench")
        count += len(pool)
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rules.bench_deal", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one run")
    parser.add_argument("--runs", type=int, default=5, help="runs per variant (median)")
    args = parser.parse_args(argv)
    print(f"{'variant':<10} {'deals/s':>9}   (median of {args.runs} runs of {args.seconds:g} s)")
    for name in VARIANTS:
        rates = [deals_per_second(name, args.seconds) for _ in range(args.runs)]
        print(f"{name:<10} {statistics.median(rates):>9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
