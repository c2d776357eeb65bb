"""Scoring, round two: what the seeds' rules say that the scorer got wrong or could not be
told. Each case quotes the seed's words it rests on (seed 000: the MCR competition's rule
book; 001: the Tianjin page, the Fuzhou page and the 竞技 rules; 004: Guangdong)."""

from __future__ import annotations

import pytest

from .helpers import hand, meld, names, refused, scored
from .test_fuzhou import PLAIN, fz
from .test_tianjin import tj

# -- Fuzhou: flowers, 金 and kongs are worth the base ------------------------------------


def test_fuzhou_four_east_at_base_two_is_fourteen() -> None:
    # "每朵花的银两与底分相同"; "抓齐４个一样的花（如４个东…）按６朵花计": 2 + 6 × 2.
    h = fz(PLAIN, "T2", ["F1", "F1", "F1", "F1"], params={"base": 2})
    answer = scored(h)
    assert answer["total"] == 14, answer
    assert names(answer) == {"底分": 2, "四花": 12}
    assert answer["payments"]["N"] == -28      # "出冲的一方付出…２倍"


def test_fuzhou_gold_and_kongs_are_worth_the_base_too() -> None:
    # "每张金的银两与底分相同"; "一个明杠算一朵花，一个暗杠算两朵花"; self-drawn "(底分＋花分)Ｘ2".
    h = fz("W1 W2 W3 W4 T5 W6 B1 B2 B3 T2", "T2", 1, self_drawn=True, params={"base": 3},
           melds=[meld("kong", "W9 W9 W9 W9"), meld("kong", "B7 B7 B7 B7", None)])
    answer = scored(h)
    # flowers: 1 flower + 1 明杠 + 2 暗杠 + 1 金 = 5, each worth 3: (3 + 15) × 2.
    assert answer["total"] == 36, answer


def test_fuzhou_special_wins_count_flowers_at_the_base_as_self_drawn() -> None:
    # "金雀的底分按牌局底分的6０倍计，花牌的分数按自摸计": 60×2 + (1 flower + 2 金)×2×2.
    h = fz("W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B5 B5 B5 T5", "T5", 1, self_drawn=True,
           params={"base": 2})
    assert scored(h)["total"] == 120 + 12


# -- Fuzhou: 抢金, several wins on one discard, the tiles left -------------------------

QIANGJIN = "W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B5 B5 B5 T2"


def test_fuzhou_qiangjin_is_thirty_times_the_base() -> None:
    # "抢金的底分按牌局底分的３０倍计，花牌的分数按自摸计"
    h = fz(QIANGJIN, "T2", ["F1", "H2"], self_drawn=True, qiangjin=True)
    answer = scored(h)
    assert names(answer) == {"抢金": 30, "花": 4}
    assert answer["total"] == 34 and answer["payments"]["E"] == -34


def test_fuzhou_qiangjin_takes_in_the_turned_gold() -> None:
    # "庄家开局时出首张牌时打出一张没用的牌，将开出来的金换进，即可胡牌": all four 金 in play.
    h = fz("W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 T5 T5 T5 T2", "T5", ["F1"], dealer=True,
           self_drawn=True, qiangjin=True)
    assert scored(h)["win"]
    assert "declared 4 times" in refused({**h, "qiangjin": False})


def test_fuzhou_qiangjin_needs_the_first_tile() -> None:
    assert "qiangjin" in refused(fz(QIANGJIN, "T2", 1, qiangjin=True))
    assert "qiangjin: not a key of the mcr" in refused(
        hand("mcr", "W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 T2", "T2", qiangjin=True,
             self_drawn=True))


JINQUE = "W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B5 B5 T5 T5"       # waits on B5 with 金雀


def test_fuzhou_jinque_wins_first_whatever_the_seats() -> None:
    # "在一人以上听同一张牌时，不论位置先后，金雀优先胡"
    plain = fz(PLAIN, "T2", 1, discarder="left", also_won=[{"at": "across", "jinque": True}])
    answer = scored(plain)
    assert not answer["win"] and "金雀优先胡" in answer["reason"]
    assert set(answer["payments"].values()) == {0}
    # Without a 金雀 among them, the first in turn from the discarder wins (left's 下家).
    first = fz(PLAIN, "T2", 1, discarder="left", also_won=[{"at": "across"}])
    assert scored(first)["win"]
    later = fz(PLAIN, "T2", 1, discarder="across", also_won=[{"at": "left"}])
    assert not scored(later)["win"]
    # The 金雀 itself wins though it sits later.
    jinque = fz(JINQUE, "B5", 1, discarder="across", also_won=[{"at": "left"}])
    assert names(scored(jinque))["金雀"] == 60


def test_fuzhou_tiles_left_at_a_draw() -> None:
    # "一般情况下最后留18张，但每当有人有一个明杠则多留一张，有一个暗杠则多留两张
    #  （4个一样的花也算暗杠多留两张）"
    h = fz(PLAIN, "T2", ["F1", "F1", "F1", "F1"], self_drawn=True,
           wall={"tiles_left": 23, "exposed_kongs": 1, "concealed_kongs": 1, "flower_sets": 1})
    assert scored(h)["reserve"] == 18 + 1 + 2 + 2
    assert "below the 23 tiles left" in refused(
        {**h, "wall": {**h["wall"], "tiles_left": 22}})
    # "最后可抓的4张牌…为最后一出牌，最后一出牌不再补花和出牌": no discard to win on.
    last_round = fz(PLAIN, "T2", 1, wall={"tiles_left": 21})
    assert "no win on a discard" in refused(last_round)
    assert scored({**last_round, "wall": {"tiles_left": 22}})["reserve"] == 18
    assert "flower_sets" in refused({**h, "wall": {"tiles_left": 30}})


# -- Tianjin -------------------------------------------------------------------------


def test_tianjin_no_pung_of_a_discarded_hun() -> None:
    # "手上有两个相同的混，其它人打出一张相同的混，不能碰"
    h = tj("W1 W2 W3 T7 T7 T7 F1 F1 F1 W9", "W9", hun="B3",
           melds=[meld("pung", "B4 B4 B4")])
    assert "不能碰" in refused(h)
    # "手上有四个相同的混时，玩家可以暗杠": the concealed kong stands.
    kong = tj("W1 W2 W3 T7 T7 T7 F1 F1 F1 W9", "W9", hun="B3",
              melds=[meld("kong", "B4 B4 B4 B4", None)], params={"tiliu_wins": True})
    assert scored(kong)["win"]
    assert "不能碰" in refused({**kong, "melds": [meld("kong", "B4 B4 B4 B4")]})
    assert scored({**kong, "melds": [meld("kong", "B4 B4 B4 B4")],
                   "params": {"tiliu_wins": True, "hun_kong_claimed": True}})["win"]


SU = "W1 W2 W3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B8"      # 素, total 2


def test_tianjin_zuozhuang_and_lazhuang() -> None:
    # "如果拉庄，则若该闲家胡，其他闲家付分不加倍，庄家付两倍…每拉一庄倍数加倍"
    assert scored(tj(SU, "B8", lazhuang={"S": 2}))["payments"] == {
        "E": -8, "S": 12, "W": -2, "N": -2}
    # "若其他闲家胡，另外三家均付分不加倍"
    assert scored(tj(SU, "B8", seat="W", lazhuang={"S": 2}))["payments"] == {
        "E": -2, "S": -2, "W": 6, "N": -2}
    # "若庄家胡，该闲家付两倍，其他闲家付分不加倍"; with 坐庄 both double.
    assert scored(tj(SU, "B8", seat="E", zuozhuang=True, lazhuang={"N": 1}))["payments"] == {
        "E": 16, "S": -4, "W": -4, "N": -8}


def test_tianjin_chan_the_pages_example() -> None:
    # "庄家坐庄，闲家A不拉庄，B拉庄，C拉两庄，结算时由庄家另外付A两分，付B四分，付C八分"
    h = tj(SU, "B8", seat="E", zuozhuang=True, lazhuang={"W": 1, "N": 2}, chan=True)
    plain = tj(SU, "B8", seat="E", zuozhuang=True, lazhuang={"W": 1, "N": 2})
    with_chan, without = scored(h)["payments"], scored(plain)["payments"]
    assert {s: with_chan[s] - without[s] for s in "ESWN"} == {
        "E": -14, "S": 2, "W": 4, "N": 8}


def test_tianjin_xiaoxianggong() -> None:
    # "如果玩家把手上的混打出，算作小相公，该局此玩家不能胡牌"
    answer = scored(tj(SU, "B8", hun_discarded=True))
    assert not answer["win"] and "小相公" in answer["reason"]


@pytest.mark.parametrize(("change", "expected"), [
    ({"lazhuang": {"E": 1}}, "lazhuang.E: only the dealer's three others"),
    ({"lazhuang": {"S": 3}}, "lazhuang.S: 3 is not a count from 0 to 2"),   # "最多可拉两次庄"
    ({"zuozhuang": 1}, "zuozhuang: expected true or false"),
    ({"params": {"dealer_doubles": True}}, "params.dealer_doubles: unknown parameter"),
])
def test_tianjin_refused(change: dict, expected: str) -> None:
    assert expected in refused({**tj(SU, "B8"), **change})


# -- Guangdong -----------------------------------------------------------------------

GD = "W1 W2 W3 W4 W5 W6 B2 B3 B4 T6 T7 T8 F1"


def gd(**kw) -> dict:
    kw.setdefault("discarder", "left")
    return hand("guangdong", GD, "F1", **kw)


def test_guangdong_passed_win() -> None:
    # "如下家B打出一张玩家A可以和的牌而玩家A却放弃不和,那若对家C或上家D打出相同的一张牌时,
    #  玩家A是不能和那一张的"
    assert scored(gd())["win"]
    answer = scored(gd(passed_win=True))
    assert not answer["win"] and "漏和" in answer["reason"]
    # "除非玩家A有进行动牌的情况…动牌的意思在于碰、上、杠、模牌": a draw is a move.
    assert "passed_win" in refused(hand("guangdong", GD, "F1", self_drawn=True,
                                        passed_win=True))


def test_guangdong_a_concealed_kong_is_not_robbed() -> None:
    # "明刻开明杠,可以被抢杠和…暗杠不可抢杠和"
    robbing = hand("guangdong", "W1 W2 W3 W4 W5 W6 B2 B3 B4 T6 T7 F1 F1", "T8",
                   discarder="left", kong=True)
    assert scored({**robbing, "kong_robbed": "added"})["win"]
    answer = scored({**robbing, "kong_robbed": "concealed"})
    assert not answer["win"] and "暗杠不可抢杠和" in answer["reason"]
    assert "kong_robbed" in refused({**robbing, "kong": False, "kong_robbed": "added"})


def test_guangdong_three_wins_on_one_discard() -> None:
    # "一炮三响 : 同一张牌点三个炮,点炮者包三家。和牌者不满3番牌型,按照3番满计算"
    three = gd(also_won=[{"at": "across"}, {"at": "right"}])
    answer = scored(three)
    assert answer["total"] == 3 and answer["payments"]["E"] == -8
    # "允许一炮多响": two wins stand, each at its own value.
    two = scored(gd(also_won=[{"at": "across"}]))
    assert two["win"] and two["total"] == 1      # 平和, not raised


# -- MCR and the competition: 错和 and 诈和 ----------------------------------------------

EXAMPLE_13 = "W1 W1 W1 B2 B3 B4 J1 J1 J1 F2 T1 T2 T3"


@pytest.mark.parametrize("variant", ["mcr", "jingji"])
def test_wrong_tile_while_waiting_is_cuohe(variant: str) -> None:
    # "和错牌。听牌以后误以为他人打出的牌是自己的和牌，从而宣布和牌(处罚同错和)";
    # "错和…罚向各家支付10分"
    answer = scored(hand(variant, EXAMPLE_13, "F3", discarder="left"))
    assert not answer["win"]
    assert answer["penalty"] == {"name_en": "Declared Win Below the Minimum or on a Wrong Tile",
                                 "name_zh": "错和", "each": 10, "disqualified": False}
    assert answer["payments"] == {"E": 10, "S": -30, "W": 10, "N": 10}


@pytest.mark.parametrize("variant", ["mcr", "jingji"])
def test_one_short_of_waiting_is_zhahe(variant: str) -> None:
    # "诈和，尚差一张牌才能听牌却误以为已经听牌…本盘停和并罚给各家20分"
    answer = scored(hand(variant, "W1 W1 W1 B2 B3 B4 J1 J1 J1 F2 T1 T2 T5", "F3",
                         discarder="left"))
    assert answer["penalty"]["name_zh"] == "诈和" and answer["penalty"]["each"] == 20
    assert answer["payments"]["S"] == -60


def test_two_or_more_short_is_deliberate_and_disqualifies() -> None:
    # "有意诈和。差两张以上的牌才能听牌却宣布和牌，即为有意诈和应予取消比赛资格"
    answer = scored(hand("jingji", "W1 W1 W5 B2 B9 T3 T3 T8 F1 F1 J2 W9 B5", "J3",
                         self_drawn=True))
    assert answer["penalty"]["name_zh"] == "有意诈和"
    assert answer["penalty"]["disqualified"] is True
    assert "disqualified" in answer["reason"]


def test_mcr_several_wins_on_one_discard_the_first_in_turn() -> None:
    # "一盘只能有一位和牌者。如有一人以上同时表示和牌时从打牌者按逆时针方向，顺序在前者被定为和牌者"
    from .test_mcr import EXAMPLE
    # The winner sits right of the discarder (left of him): first in turn.
    first = {**EXAMPLE, "discarder": "left", "also_won": [{"at": "right"}]}
    assert scored(first)["win"]
    later = {**EXAMPLE, "discarder": "right", "also_won": [{"at": "across"}]}
    answer = scored(later)
    assert not answer["win"] and "penalty" not in answer      # a real win, not a 诈和
    assert set(answer["payments"].values()) == {0}
    assert "the discarder" in refused({**EXAMPLE, "discarder": "left",
                                       "also_won": [{"at": "left"}]})


@pytest.mark.parametrize(("h", "expected"), [
    ({"also_won": [{"at": "right", "jinque": True}]}, "jinque (金雀, two 金 as the pair)"),
    ({"also_won": [{"at": "right"}, {"at": "right"}]}, "also_won[1].at: right is listed twice"),
    ({"also_won": [{"at": "up"}]}, 'also_won[0].at: "up" is not one of'),
    ({"also_won": [{"at": "right", "who": 1}]}, "also_won[0].who: unknown key"),
    ({"also_won": {"at": "right"}}, "also_won: expected a list"),
    ({"discarder": None, "self_drawn": True, "also_won": [{"at": "right"}]},
     "also_won: several wins on one discard need a discard win"),
    ({"passed_win": True}, "passed_win: not a key of the mcr variant"),
    ({"zuozhuang": True}, "zuozhuang: not a key of the mcr variant"),
    ({"wall": {"tiles_left": 30}}, "wall: not a key of the mcr variant"),
])
def test_the_new_keys_refused_where_they_cannot_be(h: dict, expected: str) -> None:
    from .test_mcr import EXAMPLE
    assert expected in refused({**EXAMPLE, "discarder": "left", **h})


@pytest.mark.parametrize(("wall", "expected"), [
    ({}, "wall.tiles_left: missing"),
    ({"tiles_left": 145}, "wall.tiles_left: 145 is not a count from 0 to 144"),
    ({"tiles_left": 60, "exposed_kongs": -1}, "wall.exposed_kongs: -1 is not a count"),
    ({"tiles_left": 60, "left": 1}, "wall.left: unknown key"),
    ({"tiles_left": True}, "wall.tiles_left: True is not a count"),
])
def test_fuzhou_wall_refused(wall: dict, expected: str) -> None:
    assert expected in refused(fz(PLAIN, "T2", 1, self_drawn=True, wall=wall))


# -- A drawn hand that still pays ------------------------------------------------------


def test_tianjin_chan_is_paid_on_a_drawn_hand_too() -> None:
    # "铲…那么在正常结算之后（无论是否流局），由庄家付给三个闲家每人一个明杠的分…例：…庄家坐庄，
    #  闲家A不拉庄，B拉庄，C拉两庄，结算时由庄家另外付A两分，付B四分，付C八分"
    answer = scored({"variant": "tianjin", "draw": True, "chan": True, "zuozhuang": True,
                     "lazhuang": {"W": 1, "N": 2}})
    assert not answer["win"] and answer["drawn"] is True
    assert answer["payments"] == {"E": -14, "S": 2, "W": 4, "N": 8}
    assert scored({"variant": "tianjin", "draw": True})["payments"] == dict.fromkeys("ESWN", 0)


def test_fuzhou_a_drawn_hand_leaves_the_reserve() -> None:
    # "最后可抓的4张牌…如果４人均没自摸，即为和局";
    # "每当有人有一个明杠则多留一张，有一个暗杠则多留两张"
    drawn = {"variant": "fuzhou", "draw": True,
             "wall": {"tiles_left": 21, "exposed_kongs": 1, "concealed_kongs": 1}}
    assert scored(drawn)["reserve"] == 21
    assert "a hand is drawn when only the 21 tiles" in refused(
        {**drawn, "wall": {**drawn["wall"], "tiles_left": 25}})


@pytest.mark.parametrize(("h", "expected"), [
    ({"variant": "mcr", "draw": True, "chan": True}, "chan: not a key of a drawn mcr hand"),
    ({"variant": "tianjin", "draw": True, "hun_discarded": True},
     "hun_discarded: not a key of a drawn tianjin hand"),
    ({"variant": "tianjin", "draw": 1}, "draw: expected true"),
    ({"variant": "tianjin", "draw": True, "params": {"chan": 10 ** 9}}, "params.chan: "),
    ({"draw": True}, "input: missing key 'variant'"),
])
def test_a_drawn_hand_refused(h: dict, expected: str) -> None:
    assert expected in refused(h)
