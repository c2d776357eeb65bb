"""Milliseconds to check and score one declared win, per variant (median).

    python -m bench.rules.bench_score [--hands N]

Each variant scores N random declared hands (four or five sets and a pair, some melded,
prepared beforehand so the generation is not timed), every hand timed on its own from
the JSON object to the answer; the figure is the median per variant. The cache of
readings (rules/scoring/shapes.py) is cleared first, so repeated hands do not flatter it.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter

from rules.errors import RulesError
from rules.scorekeeper import score_request
from rules.scoring.shapes import clear_cache
from rules.variants import REGISTRY

VARIANTS = tuple(REGISTRY)      # every registered variant, a new one included
HONOURS = ("F1", "F2", "F3", "F4", "J1", "J2", "J3")


def _group(rng: random.Random, honours: bool) -> list[str]:
    if honours and rng.random() < 0.2:
        return [rng.choice(HONOURS)] * 3
    suit, n = rng.choice("WBT"), rng.randint(1, 7)
    if rng.random() < 0.5:
        return [f"{suit}{n}"] * 3
    return [f"{suit}{n}", f"{suit}{n + 1}", f"{suit}{n + 2}"]


def random_hand(variant: str, rng: random.Random) -> dict:
    """A declared win of `variant` (a valid input; it may or may not win)."""
    deal = REGISTRY[variant].deal
    honours = not set(HONOURS) & set(deal.flowers)     # Fuzhou's honours are flowers
    sets = (deal.hand_size - 1) // 3
    while True:
        groups = [_group(rng, honours) for _ in range(sets)]
        pair = [f"{rng.choice('WBT')}{rng.randint(1, 9)}"] * 2
        if max(Counter(pair + [t for g in groups for t in g]).values()) <= 3:
            break
    melds, concealed = [], list(pair)
    for g in groups:
        pung = g[0] == g[1]
        if rng.random() < 0.3 and (pung or variant != "tianjin"):
            melds.append({"type": "pung" if pung else "chow", "tiles": g, "claimed": g[0],
                          "from": "across" if pung else "left"})
        else:
            concealed += g
    rng.shuffle(concealed)
    self_drawn = variant == "tianjin" or rng.random() < 0.4
    hand = {"variant": variant, "concealed": concealed, "melds": melds,
            "win_tile": concealed.pop(), "self_drawn": self_drawn, "seat_wind": "S",
            "prevalent_wind": "E", "flowers": rng.randint(0, 3) if deal.flowers else 0}
    if not self_drawn:
        hand["discarder"] = "left"
    if REGISTRY[variant].wild_key is not None:
        hand[REGISTRY[variant].wild_key] = "T9"
    return hand


def _usable(hand: dict) -> bool:
    try:
        score_request(hand)
    except RulesError:
        return False
    return True


def measure(hands: int = 300, seed: int = 25) -> dict:
    """Median and p99 milliseconds per scored hand, per variant."""
    rng = random.Random(seed)
    out = {}
    for variant in VARIANTS:
        pool = []
        while len(pool) < hands:
            hand = random_hand(variant, rng)
            if _usable(hand):
                pool.append(hand)
        clear_cache()
        times = []
        for hand in pool:
            start = time.perf_counter()
            score_request(hand)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        out[variant] = {"median_ms": round(statistics.median(times), 4),
                        "p99_ms": round(times[int(0.99 * (len(times) - 1))], 4),
                        "hands": hands}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    args = parser.parse_args()
    print(json.dumps(measure(args.hands), indent=1))


if __name__ == "__main__":
    main()
