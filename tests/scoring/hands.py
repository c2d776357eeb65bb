"""Random declared wins for the tests: four sets and a pair, some melded, from a seed."""

from __future__ import annotations

import random
from collections import Counter

SUITS = "WBT"
HONOURS = ["F1", "F2", "F3", "F4", "J1", "J2", "J3"]
WINDS = "ESWN"


def _set(rng: random.Random, honours: bool = True) -> list[str]:
    if honours and rng.random() < 0.2:
        return [rng.choice(HONOURS)] * 3
    suit = rng.choice(SUITS)
    if rng.random() < 0.5:
        return [f"{suit}{rng.randint(1, 9)}"] * 3
    n = rng.randint(1, 7)
    return [f"{suit}{n}", f"{suit}{n + 1}", f"{suit}{n + 2}"]


def random_win(rng: random.Random, variant: str = "mcr", *, sets: int = 4,
               honours: bool = True, chow_melds: bool = True) -> dict:
    """A declared hand of `sets` sets and a pair, no tile beyond four copies."""
    while True:
        groups = [_set(rng, honours) for _ in range(sets)]
        pair = [rng.choice(HONOURS) if honours and rng.random() < 0.2
                else f"{rng.choice(SUITS)}{rng.randint(1, 9)}"] * 2
        counts = Counter(pair)
        for g in groups:
            counts.update(g)
        if max(counts.values()) <= 4:
            break
    melds, concealed = [], list(pair)
    for g in groups:
        roll = rng.random()
        is_pung = g[0] == g[1]
        if roll < 0.3 and (is_pung or chow_melds):
            if is_pung:
                source = rng.choice(["left", "across", "right"])
                kind = "kong" if rng.random() < 0.2 and counts[g[0]] == 3 else "pung"
                tiles = [*g, g[0]] if kind == "kong" else g
                if kind == "kong":
                    counts[g[0]] += 1
                melds.append({"type": kind, "tiles": tiles, "claimed": g[0], "from": source})
            else:
                melds.append({"type": "chow", "tiles": g, "claimed": rng.choice(g),
                              "from": "left"})
        elif roll < 0.4 and is_pung and counts[g[0]] == 3:
            counts[g[0]] += 1
            melds.append({"type": "kong", "tiles": [*g, g[0]], "from": None})
        else:
            concealed += g
    rng.shuffle(concealed)
    win = concealed.pop()
    self_drawn = rng.random() < 0.4
    hand = {"variant": variant, "concealed": concealed, "melds": melds, "win_tile": win,
            "self_drawn": self_drawn, "fourth_tile": rng.random() < 0.05,
            "kong": rng.random() < 0.05, "last_tile": rng.random() < 0.05,
            "flowers": rng.choice([0, 0, 1, 2, 3]), "seat_wind": rng.choice(WINDS),
            "prevalent_wind": rng.choice(WINDS)}
    if not self_drawn:
        hand["discarder"] = rng.choice(["left", "across", "right"])
    # Only the flags the tiles allow (declared.py refuses the others): the last of a tile
    # is not held, a robbed kong's tile is nowhere in the hand, a replacement draw follows
    # a kong.
    held = concealed.count(win) + sum(m["tiles"].count(win) for m in melds)
    hand["fourth_tile"] = hand["fourth_tile"] and win not in concealed
    if self_drawn:
        hand["kong"] = hand["kong"] and any(m["type"] == "kong" for m in melds)
    else:
        hand["kong"] = hand["kong"] and held == 0 and not hand["last_tile"]
    return hand
