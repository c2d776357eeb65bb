"""Property tests: the tile invariant over thousands of random layouts per variant."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import VARIANTS, deal, load_variant

from .layouts import random_throws, random_walls

EXAMPLES = 1000  # per variant, plus as many with unknown tiles: 2000 per variant


def check_invariants(walls, record, variant) -> None:
    total = variant.tiles
    hands, flowers, wild = record["hands"], record["flowers"], record["wild"]
    in_hands = sum(len(h) for h in hands.values())
    set_aside = sum(len(f) for f in flowers.values())
    indicator = 1 if wild else 0
    # hands + flowers set aside + live tiles + wild indicator = the set size
    assert in_hands + set_aside + record["live_remaining"] + indicator == total
    size = variant.hand_size  # 13 or 16; the dealer has one more
    assert [len(hands[s]) for s in "ESWN"] == [size + 1, size, size, size]
    flower_set = set(variant.flowers)
    for seat in "ESWN":
        assert not flower_set & set(hands[seat])
        assert all(f in flower_set for f in flowers[seat])

    # Every slot used at most once, and each reported tile is the tile in its slot.
    used = []
    for seat in "ESWN":
        used += [tuple(s) for s in record["dealt_slots"][seat]]
    used += [tuple(r["slot"]) for r in record["replacements"]]
    if wild:
        used += [tuple(x["slot"]) for x in wild["set_aside"]] + [tuple(wild["indicator_slot"])]
    assert len(used) == len(set(used)) == total - record["live_remaining"]
    for r in record["replacements"]:
        p, k, level = r["slot"]
        assert walls[p][k][level] == r["tile"]
    if record["next_draw"] is not None:
        assert tuple(record["next_draw"]) not in set(used)

    # The tiles the record shows are exactly the tiles of the used slots.
    shown = Counter(t for h in hands.values() for t in h)
    shown += Counter(t for f in flowers.values() for t in f)
    if wild:
        shown[wild["indicator"]] += 1
    taken = Counter(walls[p][k][level] for p, k, level in used)
    assert shown == taken

    if wild and wild["indicator"] is not None:
        assert wild["indicator"] not in flower_set
        assert wild["wild_tiles"][0] == wild["indicator"]


def _run(name: str, seed: int, dealer: int, null_rate: float) -> None:
    variant = load_variant(name)
    rng = random.Random(seed)
    walls = random_walls(name, rng, null_rate)
    record = deal(walls, random_throws(name, rng), variant, dealer, nonce="n")
    check_invariants(walls, record, variant)


seeds = st.integers(0, 2**32 - 1)
dealers = st.integers(0, 3)


def _property(name: str, with_nulls: bool):
    rates = st.sampled_from([0.02, 0.2, 1.0]) if with_nulls else st.just(0.0)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
    @given(seed=seeds, dealer=dealers, null_rate=rates)
    def test(seed, dealer, null_rate):
        _run(name, seed, dealer, null_rate)

    return test


for _name in VARIANTS:
    globals()[f"test_invariant_{_name}"] = _property(_name, False)
    globals()[f"test_invariant_{_name}_with_unknown_tiles"] = _property(_name, True)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(seed=seeds, dealer=dealers, head_offset=st.integers(0, 1),
       replacement=st.sampled_from(["depth_first", "round_robin"]),
       wild=st.sampled_from(["none", "hun", "gold"]))
def test_invariant_with_overrides(seed, dealer, head_offset, replacement, wild):
    overrides = {"head_offset": head_offset, "replacement": replacement, "wild": wild}
    variant = load_variant("mcr", overrides)
    rng = random.Random(seed)
    walls = random_walls("mcr", rng)
    throws = [[rng.randint(1, 6), rng.randint(1, 6)] for _ in range(2 + (wild == "hun"))]
    record = deal(walls, throws, variant, dealer, nonce="n")
    check_invariants(walls, record, variant)
