"""Public API: next_throw, deal's validation, commitment, deal_request."""

import hashlib
import random

import pytest

from rules import (
    SCHEMA,
    RulesError,
    ThrowRequest,
    commitment,
    deal,
    deal_request,
    deal_with_nonce,
    load_variant,
    next_throw,
    validate_walls,
)

from .layouts import random_throws, random_walls


def test_next_throw_per_variant():
    mcr = load_variant("mcr")
    assert next_throw(mcr, 2, []) == ThrowRequest("second_thrower", 2, 2)
    # 2 + 2 = 4 lands on the dealer's 上家 (2 + 3) mod 4 = 1
    assert next_throw(mcr, 2, [[2, 2]]) == ThrowRequest("break", 1, 2)
    assert next_throw(mcr, 2, [[2, 2], [6, 6]]) is None
    assert next_throw(load_variant("tianjin"), 3, []) == ThrowRequest("break", 3, 2)
    assert next_throw(load_variant("tianjin"), 3, [[1, 1]]) == ThrowRequest("wild", 1, 2)
    assert next_throw(load_variant("tianjin"), 3, [[1, 1], [2, 2]]) is None
    assert next_throw(load_variant("guangdong"), 0, []) == ThrowRequest("break", 0, 3)
    assert next_throw(load_variant("fuzhou"), 1, [[3, 3]]) is None
    assert next_throw("jingji", 1, []) == ThrowRequest("break", 1, 2)


@pytest.mark.parametrize("dealer, throws, message", [
    (0, [[1, 1], [1, 1], [1, 1]], "throws: 3 given, mcr needs 2: extra throw"),
    (0, [[0, 1]], "throws[0][0]: face 0 outside 1–6"),
    (0, [[1, 2, 3]], "throws[0]: expected 2 dice, got 3"),
    (4, [], "dealer_position: 4 outside 0–3"),
])
def test_next_throw_rejects_bad_input(dealer, throws, message):
    with pytest.raises(RulesError, match=message.replace("[", r"\[").replace("]", r"\]")):
        next_throw(load_variant("mcr"), dealer, throws)


def test_record_has_every_field_of_rules_md():
    rng = random.Random(5)
    walls = random_walls("mcr", rng)
    record, nonce = deal_with_nonce(walls, [[1, 2], [3, 4]], "mcr", 0, dice_source="electronic",
                                    table={"id": "t1", "cycle": 7, "set": "A"})
    for key in ("schema", "variant", "params", "tiles_total", "stacks_per_wall", "table",
                "walls", "dice", "break", "hands", "flowers", "replacements", "wild",
                "next_draw", "live_remaining", "commitment"):
        assert key in record
    assert record["schema"] == SCHEMA == "mjtable.dealt-walls/1"
    assert record["table"] == {"id": "t1", "cycle": 7, "set": "A", "dealer_position": 0,
                               "prevalent_wind": "E"}
    assert record["dice"][0] == {"purpose": "second_thrower", "thrower": 0, "faces": [1, 2],
                                 "source": "electronic"}
    assert list(record["hands"]) == ["E", "S", "W", "N"]
    assert record["walls"] == walls
    assert nonce not in str(record)
    assert record["commitment"] == commitment(walls, nonce)


def test_default_table_block():
    rng = random.Random(6)
    record = deal(random_walls("guangdong", rng), [[1, 2, 3]], "guangdong", 3,
                  prevalent_wind="S", nonce="n")
    assert record["table"] == {"id": None, "cycle": None, "set": None, "dealer_position": 3,
                               "prevalent_wind": "S"}


def test_commitment_recomputed_as_docs_describe():
    walls = random_walls("mcr", random.Random(1), null_rate=0.1)
    layout = "".join(c if c is not None else "--" for w in walls for s in w for c in s)
    message = f"mjtable-commit/1|abc123|{layout}".encode("ascii")
    assert commitment(walls, "abc123") == "sha256:" + hashlib.sha256(message).hexdigest()
    assert len(layout) == 288


def test_commitment_changes_with_one_swap_and_with_the_nonce():
    walls = random_walls("mcr", random.Random(2))
    c = commitment(walls, "n1")
    assert commitment(walls, "n2") != c
    walls[0][0] = walls[0][0][::-1]
    if walls[0][0][0] != walls[0][0][1]:
        assert commitment(walls, "n1") != c


def test_fresh_nonces_differ():
    walls = random_walls("guangdong", random.Random(3))
    a = deal_with_nonce(walls, [[1, 1, 1]], "guangdong", 0)
    b = deal_with_nonce(walls, [[1, 1, 1]], "guangdong", 0)
    assert a[1] != b[1] and a[0]["commitment"] != b[0]["commitment"]
    assert len(a[1]) == 32


@pytest.mark.parametrize("nonce", ["", "has space", "a|b", "x" * 129])
def test_bad_nonce(nonce):
    with pytest.raises(RulesError, match=r"^nonce: "):
        commitment(random_walls("mcr", random.Random(0)), nonce)


def test_deal_request_matches_deal():
    rng = random.Random(4)
    walls = random_walls("tianjin", rng)
    obj = {"variant": "tianjin", "dealer_position": 1, "walls": walls,
           "throws": [[2, 5], [3, 3]], "nonce": "x"}
    assert deal_request(obj) == deal(walls, [[2, 5], [3, 3]], "tianjin", 1, nonce="x")


def test_deal_request_applies_overrides():
    rng = random.Random(4)
    obj = {"variant": "mcr", "dealer_position": 0, "walls": random_walls("mcr", rng),
           "throws": [[2, 5], [3, 3]], "overrides": {"head_offset": 0}}
    record = deal_request(obj)
    assert record["params"]["head_offset"] == 0
    assert record["break"]["tail_stack"] == record["break"]["head_stack"]


@pytest.mark.parametrize("change, message", [
    ({"colour": "red"}, "input: unknown key 'colour'"),
    ({"dealer_position": None}, "dealer_position: expected an integer 0–3, got None"),
    ({"prevalent_wind": "X"}, "prevalent_wind: 'X' not one of E, S, W, N"),
    ({"dice_source": "guess"}, "dice_source: 'guess' not one of"),
    ({"throws": "3,5"}, "throws: expected a list of throws, got str"),
])
def test_deal_request_rejects(change, message):
    obj = {"variant": "mcr", "dealer_position": 0,
           "walls": random_walls("mcr", random.Random(0)), "throws": [[2, 5], [3, 3]]}
    obj.update(change)
    with pytest.raises(RulesError) as info:
        deal_request(obj)
    assert str(info.value).startswith(message)


def test_deal_request_missing_key():
    with pytest.raises(RulesError, match="input: missing key 'throws'"):
        deal_request({"variant": "mcr", "dealer_position": 0, "walls": []})


def test_validate_walls_counts_nulls_and_names_the_place():
    v = load_variant("guangdong")
    walls = random_walls("guangdong", random.Random(9))
    walls[1][3][1] = None
    assert validate_walls(walls, v) == 1
    walls[2][5][0] = "X9"
    with pytest.raises(RulesError, match=r"^walls\[2\]\[5\]\[0\]: unknown tile code 'X9'$"):
        validate_walls(walls, v)
    walls[2][5][0] = "H1"
    with pytest.raises(RulesError, match=r"walls\[2\]\[5\]\[0\]: H1 is not in the 136-tile set"):
        validate_walls(walls, v)


def test_deal_accepts_all_null_walls():
    v = load_variant("fuzhou")
    walls = [[[None, None] for _ in range(18)] for _ in range(4)]
    record = deal(walls, random_throws("fuzhou", random.Random(0)), v, 0, nonce="n")
    assert record["replacements"] == []
    assert record["wild"]["indicator"] is None and record["wild"]["wild_tiles"] is None
    assert record["live_remaining"] == 144 - 65 - 1


def test_commitment_rejects_what_it_cannot_encode():
    walls = random_walls("mcr", random.Random(0))
    walls[3][2][1] = "W10"
    with pytest.raises(RulesError, match=r"^walls\[3\]\[2\]\[1\]: unknown tile code 'W10'$"):
        commitment(walls, "n")
    with pytest.raises(RulesError, match=r"^walls: expected 4 walls$"):
        commitment(walls[:3], "n")
