"""MCR through PyMahjongGB behind our checks: every fan, the calculator's totals, the
refusals, the 8-point minimum and the payments; and the competition's supplements."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from MahjongGB import MahjongFanCalculator

from rules.errors import RulesError
from rules.scorekeeper import score_request
from rules.scoring.mcr_fans import FANS

from .hands import random_win

HERE = Path(__file__).resolve().parent
FAN_HANDS = json.loads((HERE / "mcr_fan_hands.json").read_text(encoding="utf-8"))
EXAMPLE = {"variant": "mcr",
           "concealed": ["W1", "W1", "W1", "B2", "B3", "B4", "J1", "J1", "J1", "F2"],
           "melds": [{"type": "chow", "tiles": ["T1", "T2", "T3"], "claimed": "T2",
                      "from": "left"}],
           "win_tile": "F2", "self_drawn": False, "fourth_tile": False, "kong": False,
           "last_tile": False, "flowers": 0, "seat_wind": "E", "prevalent_wind": "S"}


def _direct_total(hand: dict) -> int | None:
    """PyMahjongGB's own total for a hand in our format, converted independently."""
    offer = {"left": 1, "across": 2, "right": 3, None: 0}
    packs = []
    for m in hand["melds"]:
        tiles = sorted(m["tiles"])
        if m["type"] == "chow":
            packs.append(("CHI", tiles[1], tiles.index(m["claimed"]) + 1))
        else:
            packs.append(("PENG" if m["type"] == "pung" else "GANG", tiles[0],
                          offer[m["from"]]))
    try:
        fans = MahjongFanCalculator(
            pack=tuple(packs), hand=tuple(hand["concealed"]), winTile=hand["win_tile"],
            flowerCount=hand["flowers"], isSelfDrawn=hand["self_drawn"],
            is4thTile=hand["fourth_tile"], isAboutKong=hand["kong"],
            isWallLast=hand["last_tile"], seatWind="ESWN".index(hand["seat_wind"]),
            prevalentWind="ESWN".index(hand["prevalent_wind"]))
    except TypeError:
        return None
    return sum(points for points, _ in fans)


def test_the_fixture_names_all_81_fans_and_the_extension() -> None:
    assert list(FAN_HANDS) == [zh for zh, _, _ in FANS]
    assert len(FANS) == 82   # the 81 of the rule book (花牌 the 81st) and 明暗杠


@pytest.mark.parametrize(("zh", "en", "points"), FANS, ids=[en for _, en, _ in FANS])
def test_each_fan_scores_in_a_hand(zh: str, en: str, points: int) -> None:
    answer = score_request(FAN_HANDS[zh])
    found = {f["name_zh"]: f for f in answer["fans"]}
    assert zh in found, answer
    assert (found[zh]["name_en"], found[zh]["points"]) == (en, points)
    assert answer["total"] == _direct_total(FAN_HANDS[zh])


def test_totals_agree_with_the_calculator_on_random_valid_hands() -> None:
    rng = random.Random(25)
    compared = 0
    for _ in range(400):
        hand = random_win(rng)
        answer = score_request(hand)
        direct = _direct_total(hand)
        assert direct is not None
        assert answer["total"] == direct, hand
        flowers = hand["flowers"]
        assert answer["win"] == (direct - flowers >= 8)
        compared += 1
    assert compared == 400


def _refused(hand: dict) -> str:
    with pytest.raises(RulesError) as info:
        score_request(hand)
    return str(info.value)


def test_five_copies_of_a_tile_are_refused() -> None:
    hand = dict(EXAMPLE)
    hand["concealed"] = ["W1", "W1", "W1", "W1", "B3", "B4", "J1", "J1", "J1", "F2"]
    hand["win_tile"] = "W1"
    assert "W1: declared 5 times" in _refused(hand)
    # The calculator itself scores fourteen W1 (清幺九 and more).
    fourteen = {**EXAMPLE, "concealed": ["W1"] * 13, "win_tile": "W1", "melds": []}
    assert _direct_total(fourteen) is not None
    assert "W1: declared 14 times" in _refused(fourteen)


@pytest.mark.parametrize("tiles", [["F1", "F2", "F3"], ["J1", "J2", "J3"]])
def test_a_chow_of_honours_is_refused(tiles: list[str]) -> None:
    hand = dict(EXAMPLE, melds=[{"type": "chow", "tiles": tiles, "claimed": tiles[0],
                                 "from": "left"}])
    assert "a chow of honours" in _refused(hand)


@pytest.mark.parametrize("tiles", [["T9", "T1", "T2"], ["T8", "T9", "T1"], ["T1", "T2", "B3"]])
def test_a_chow_centred_on_a_1_or_9_or_across_suits_is_refused(tiles: list[str]) -> None:
    hand = dict(EXAMPLE, melds=[{"type": "chow", "tiles": tiles, "claimed": tiles[0],
                                 "from": "left"}])
    assert "not three consecutive tiles of one suit" in _refused(hand)


@pytest.mark.parametrize("flowers", [-1, 9, 2.5, "2", True])
def test_a_flower_count_outside_0_to_8_is_refused(flowers: object) -> None:
    assert "flowers:" in _refused(dict(EXAMPLE, flowers=flowers))


@pytest.mark.parametrize("wind", [0, 4, -1, "X", None, "east"])
def test_a_wind_outside_the_four_is_refused(wind: object) -> None:
    assert "is not a wind" in _refused(dict(EXAMPLE, seat_wind=wind))
    assert "is not a wind" in _refused(dict(EXAMPLE, prevalent_wind=wind))


@pytest.mark.parametrize("kind", ["chow", "pung"])
def test_a_meld_with_no_discarder_is_refused_not_taken_as_concealed(kind: str) -> None:
    tiles = ["T1", "T2", "T3"] if kind == "chow" else ["T2"] * 3
    hand = dict(EXAMPLE, melds=[{"type": kind, "tiles": tiles, "claimed": "T2",
                                 "from": None}])
    assert "only a concealed kong has no discarder" in _refused(hand)


@pytest.mark.parametrize(("change", "expected"), [
    ({"concealed": ["W1"] * 3}, "make 6 tiles"),
    ({"win_tile": "H1"}, "is a flower"),
    ({"win_tile": "X9"}, "is not a tile code"),
    ({"self_drawn": 1}, "expected true or false"),
    ({"melds": [{"type": "chow", "tiles": ["T1", "T2", "T3"], "claimed": "T2",
                 "from": "right"}]}, "only from the left"),
    ({"melds": [{"type": "chow", "tiles": ["T1", "T2", "T3"], "claimed": "T5",
                 "from": "left"}]}, "is not in the meld"),
    ({"hun": "W1"}, "not a key of the mcr variant"),
    ({"variant": "riichi"}, "variant: unknown"),
    ({"self_drawn": True, "discarder": "left"}, "a self-drawn win has no discarder"),
    ({"flowers": ["H1", "H1"]}, "H1: declared 2 times"),
])
def test_impossible_input_is_refused_with_where_and_what(change: dict, expected: str) -> None:
    assert expected in _refused({**EXAMPLE, **change})


def test_the_issue_example_scores() -> None:
    answer = score_request(EXAMPLE)
    assert answer["win"] and answer["meets_minimum"]
    assert answer["total"] == 12
    assert answer["payments"] == {}   # no discarder named


def test_below_eight_points_is_not_a_win_and_flowers_do_not_count() -> None:
    # 平和 2, 无字 1, 喜相逢 1 … under 8; seven flowers make the total 8+ but not the minimum.
    hand = {"variant": "mcr", "concealed": ["W2", "W3", "W4", "B3", "B4", "B5", "T6", "T7",
                                            "T8", "W6", "W7", "B9", "B9"],
            "melds": [], "win_tile": "W8", "self_drawn": False, "fourth_tile": False,
            "kong": False, "last_tile": False, "flowers": 7, "seat_wind": "S",
            "prevalent_wind": "E", "discarder": "left"}
    answer = score_request(hand)
    assert answer["total"] >= 8
    assert not answer["win"] and not answer["meets_minimum"]
    assert "below the 8-point minimum" in answer["reason"]
    # Seed 000: "错和：和牌没有达到起和分(8分)而宣布和牌者即予停和，并罚向各家支付10分".
    assert answer["payments"] == {"E": 10, "S": -30, "W": 10, "N": 10}
    assert answer["penalty"]["name_zh"] == "错和"


def test_payments_discard_and_self_drawn() -> None:
    discard = score_request({**EXAMPLE, "discarder": "across"})
    total = discard["total"]
    # East wins; across is West: it pays 8 + total, the others 8.
    assert discard["payments"] == {"E": 24 + total, "S": -8, "W": -8 - total, "N": -8}
    drawn = score_request({**EXAMPLE, "self_drawn": True})
    assert drawn["payments"] == {"E": 3 * (8 + drawn["total"]), "S": -8 - drawn["total"],
                                 "W": -8 - drawn["total"], "N": -8 - drawn["total"]}


def test_the_competition_prices_a_melded_and_a_concealed_kong_1_and_2() -> None:
    hand = {"variant": "mcr", "concealed": ["W2", "W3", "W4", "B6", "B7", "B8", "T5"],
            "melds": [{"type": "kong", "tiles": ["F1"] * 4, "claimed": "F1", "from": "left"},
                      {"type": "kong", "tiles": ["J3"] * 4, "from": None}],
            "win_tile": "T5", "self_drawn": False, "fourth_tile": False, "kong": False,
            "last_tile": False, "flowers": 0, "seat_wind": "E", "prevalent_wind": "E"}
    mcr = {f["name_zh"]: f["points"] for f in score_request(hand)["fans"]}
    jingji = {f["name_zh"]: f["points"] for f in score_request({**hand,
                                                                "variant": "jingji"})["fans"]}
    assert mcr.get("明暗杠") == 5 and "明暗杠" not in jingji
    assert (jingji["明杠"], jingji["暗杠"]) == (1, 2)


def test_the_competition_counts_no_concealed_kong_beside_three_kongs() -> None:
    hand = {"variant": "jingji", "concealed": ["W2", "W3", "W4", "T5"],
            "melds": [{"type": "kong", "tiles": ["F1"] * 4, "claimed": "F1", "from": "left"},
                      {"type": "kong", "tiles": ["J3"] * 4, "from": None},
                      {"type": "kong", "tiles": ["B9"] * 4, "from": None}],
            "win_tile": "T5", "self_drawn": False, "fourth_tile": False, "kong": False,
            "last_tile": False, "flowers": 0, "seat_wind": "E", "prevalent_wind": "E"}
    mcr = {f["name_zh"] for f in score_request({**hand, "variant": "mcr"})["fans"]}
    jingji = {f["name_zh"] for f in score_request(hand)["fans"]}
    # The calculator already agrees here: the supplement changes nothing it counts.
    assert "三杠" in jingji and "三杠" in mcr
    assert not (jingji | mcr) & {"暗杠", "双暗杠", "明暗杠"}


def test_the_competition_lets_seven_pairs_keep_only_its_listed_companions() -> None:
    hand = {"variant": "mcr", "concealed": ["W1", "W1", "W9", "W9", "B1", "B1", "F1", "F1",
                                            "J1", "J1", "J2", "J2", "T9"],
            "melds": [], "win_tile": "T9", "self_drawn": True, "fourth_tile": False,
            "kong": False, "last_tile": False, "flowers": 0, "seat_wind": "E",
            "prevalent_wind": "E"}
    mcr = {f["name_zh"] for f in score_request(hand)["fans"]}
    jingji = {f["name_zh"] for f in score_request({**hand, "variant": "jingji"})["fans"]}
    assert "七对" in jingji
    assert jingji <= {"七对", "清一色", "混一色", "四归一", "海底捞月", "妙手回春", "自摸",
                      "断幺", "无字", "缺一门", "花牌"}
    assert mcr - jingji == {"混幺九", "五门齐"}


# The calculator drops a flag the tiles make impossible and scores the rest, so the
# player who declared 抢杠和, 杠上开花 or 和绝张 would see a total without it and no reason.
_CHOWS = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "B2", "B3", "B4", "T5"]
_EDGE = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "T5", "T5", "B2", "B3"]


@pytest.mark.parametrize(("change", "expected"), [
    # 和绝张 while the hand holds a copy of the winning tile: five of it.
    ({"concealed": _CHOWS, "win_tile": "T5", "fourth_tile": True},
     "fourth_tile: the last T5 cannot be the winning tile while the hand holds one"),
    # Robbing a kong of T5 while holding a T5 (in the hand or a meld).
    ({"concealed": _CHOWS, "win_tile": "T5", "kong": True},
     "kong: robbing a kong of T5"),
    ({"concealed": [*_CHOWS[:9], "B2"], "melds": [{"type": "chow", "tiles": ["B2", "B3", "B4"],
      "claimed": "B3", "from": "left"}], "win_tile": "B2", "kong": True},
     "kong: robbing a kong of B2"),
    # Robbing a kong on the last tile: no kong is made with the last tile.
    ({"concealed": _EDGE, "win_tile": "B4", "kong": True, "last_tile": True},
     "kong: no kong is made on the last tile"),
    # A win on the replacement draw with no kong among the melds.
    ({"concealed": _CHOWS, "win_tile": "T5", "self_drawn": True, "discarder": None,
      "kong": True}, "kong: a win on a kong's replacement draw needs a kong among the melds"),
])
def test_a_flag_the_tiles_make_impossible_is_refused(change: dict, expected: str) -> None:
    hand = {**EXAMPLE, "melds": [], "discarder": "left", **change}
    assert expected in _refused(hand)


def test_possible_flags_still_score_their_fans() -> None:
    hand = {**EXAMPLE, "melds": [], "concealed": _EDGE, "win_tile": "B4", "discarder": "left"}
    rob = score_request({**hand, "kong": True})
    assert "抢杠和" in {f["name_zh"] for f in rob["fans"]}
    last = score_request({**hand, "fourth_tile": True})
    assert "和绝张" in {f["name_zh"] for f in last["fans"]}


@pytest.mark.parametrize("variant", ["mcr", "jingji"])
def test_a_parameter_is_refused_where_the_variant_has_none(variant: str) -> None:
    # Never ignored: a script that thinks it changed the scoring must hear that it did not.
    hand = {**EXAMPLE, "variant": variant, "params": {"minimum": 0}}
    assert "params.minimum: unknown parameter; the" in _refused(hand)
