"""The fairness audit passes uniform layouts and catches far-from-uniform ones."""

import random

import pytest

from rules import RulesError, deal
from rules.audit import audit

from .layouts import full_set, random_throws, random_walls, to_walls


def uniform_history(variant: str, n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [deal(random_walls(variant, rng), random_throws(variant, rng), variant,
                 rng.randrange(4), nonce="n") for _ in range(n)]


def flagged(report: dict) -> set[str]:
    return {name for name, t in report["tests"].items()
            if t["p_value"] is not None and t["p_value"] < report["alpha"]}


@pytest.mark.parametrize("variant, seed", [("mcr", 1), ("fuzhou", 2), ("guangdong", 3)])
def test_uniform_layouts_pass(variant, seed):
    report = audit(uniform_history(variant, 150, seed))
    assert report["verdict"] == "no evidence of bias"
    tests = report["tests"]
    for name in ("tile_position", "tile_code_position", "carry_over", "dice_faces",
                 "seat_kind"):
        assert tests[name]["p_value"] is not None, name
        assert tests[name]["dof"] > 0
    dice = 3 if variant == "guangdong" else 2
    assert tests[f"dice_sum_{dice}d6"]["p_value"] is not None
    kinds = 5 if variant == "guangdong" else 6  # no flowers in a 136-tile set
    assert tests["tile_position"]["dof"] == (16 - 1) * (kinds - 1)
    assert tests["seat_kind"]["dof"] == (5 - 1) * (kinds - 1)


def test_mostly_sorted_walls_are_suspicious():
    rng = random.Random(4)
    records = []
    for _ in range(40):
        tiles = full_set(144)  # sorted by code
        for _ in range(20):  # a little disorder
            i, j = rng.randrange(144), rng.randrange(144)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        records.append(deal(to_walls(tiles, 18), random_throws("mcr", rng), "mcr",
                            rng.randrange(4), nonce="n"))
    report = audit(records)
    assert report["verdict"].startswith("suspicious: ")
    assert "tile_position" in flagged(report)
    assert "tile_position" in report["verdict"]


def test_previous_order_carried_over_is_suspicious():
    rng = random.Random(5)
    tiles = full_set(144)
    rng.shuffle(tiles)
    records = []
    for _ in range(60):
        for _ in range(15):  # the under-mixed set: a few swaps and a turn of the ring
            i, j = rng.randrange(144), rng.randrange(144)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        cut = rng.randrange(144)
        tiles = tiles[cut:] + tiles[:cut]
        records.append(deal(to_walls(tiles, 18), random_throws("mcr", rng), "mcr",
                            rng.randrange(4), nonce="n"))
    report = audit(records)
    carry = report["tests"]["carry_over"]
    assert "carry_over" in flagged(report)
    assert carry["adjacent_again"] > 3 * carry["expected_uniform"]
    assert "carry_over" in report["verdict"]


def test_loaded_dice_are_suspicious():
    rng = random.Random(6)
    records = uniform_history("mcr", 60, 6)
    for r in records:
        for throw in r["dice"]:
            throw["faces"] = [rng.choice([1, 2, 3, 4, 5, 6, 6, 6]) for _ in throw["faces"]]
    report = audit(records)
    assert {"dice_faces", "dice_sum_2d6"} <= flagged(report)


def test_honours_steered_to_the_dealer_are_suspicious():
    rng = random.Random(7)
    records = []
    for _ in range(60):
        walls = random_walls("mcr", rng)
        throws, dealer = random_throws("mcr", rng), rng.randrange(4)
        first = deal(walls, throws, "mcr", dealer, nonce="n")
        # A rigged table: swap honours into the dealer's slots.
        honours = [(p, k, lv) for p in range(4) for k in range(18) for lv in (0, 1)
                   if walls[p][k][lv][0] in "FJ"]
        rng.shuffle(honours)
        for (p, k, lv), (q, m, lw) in zip(first["dealt_slots"]["E"][:6], honours, strict=False):
            walls[p][k][lv], walls[q][m][lw] = walls[q][m][lw], walls[p][k][lv]
        records.append(deal(walls, throws, "mcr", dealer, nonce="n"))
    report = audit(records)
    assert "seat_kind" in flagged(report)
    assert report["tests"]["seat_kind"]["counts"]["E"]["J"] > 100


def test_records_with_unknown_tiles_skip_the_tile_tests():
    history = uniform_history("mcr", 40, 8)
    rng = random.Random(8)
    history += [deal(random_walls("mcr", rng, null_rate=0.1), random_throws("mcr", rng),
                     "mcr", 0, nonce="n") for _ in range(5)]
    report = audit(history)
    assert report["records_with_null_tiles"] == 5
    assert "5 record(s) with unknown tiles left out" in report["note"]
    assert report["tests"]["tile_position"]["records"] == 40
    assert report["tests"]["dice_faces"]["faces"] == 45 * 4


def test_too_little_data():
    report = audit(uniform_history("mcr", 1, 9))
    assert report["verdict"] == "not enough data"
    assert "need" in report["tests"]["carry_over"]["skipped"]


def test_bad_record_is_named():
    history = uniform_history("mcr", 3, 10)
    del history[2]["walls"]
    with pytest.raises(RulesError, match=r"^records\[2\]: missing 'walls'$"):
        audit(history)
    with pytest.raises(RulesError, match=r"^records: expected a list"):
        audit({"walls": []})
