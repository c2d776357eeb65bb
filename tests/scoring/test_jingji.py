"""The competition (`jingji`): worked hands from the tournament's own rule book.

Each hand below rests on a line of the competition's fan table or scoring rules (its
《中国竞技麻将竞赛规则》 as the tournament printed it, quoted beside the hand): the fan it
names is scored, what the line says is not counted beside it ("不计…") is absent, and the
totals, minimum and payments follow its 第八条. Hands that are not wins and hands below
the minimum are here too.
"""

from __future__ import annotations

import pytest

from .helpers import hand, meld, names, refused, scored

# A hand is: concealed tiles (without the winning tile), the winning tile, and what else
# the line needs. Winds F1–F4 东南西北, dragons J1–J3 中发白.
WORKED = [
    # "由4副风刻(杠)组成的和牌不计圈风刻、门风刻、三风刻、碰碰和"
    ("大四喜", hand("jingji", "F1 F1 F1 F2 F2 F2 F3 F3 F3 W5 W5 F4 F4", "F4", seat="E"),
     {"圈风刻", "门风刻", "三风刻", "碰碰和"}),
    # "和牌中，有中发白3副刻子不计箭刻"
    ("大三元", hand("jingji", "J1 J1 J1 J2 J2 J2 J3 J3 J3 W2 W3 W4 T5", "T5"),
     {"箭刻", "双箭刻"}),
    # "由23468条及发字中的任何牌组成的顺子、刻子、将的和牌。不计混一色"
    ("绿一色", hand("jingji", "T2 T3 T4 T2 T3 T4 T6 T6 T6 J2 J2 J2 T8", "T8"),
     {"混一色"}),
    # "由一种花色序数牌子按9组成的特定牌型见同花色任何1张序数牌即成和牌。不计清一色"
    ("九莲宝灯", hand("jingji", "W1 W1 W1 W2 W3 W4 W5 W6 W7 W8 W9 W9 W9", "W5"),
     {"清一色"}),
    # "由一种花色序数牌组成序数相连的7个对子嘚和牌不计清一色、不求人、单钓"
    ("连七对", hand("jingji", "B1 B1 B2 B2 B3 B3 B4 B4 B5 B5 B6 B6 B7", "B7",
                    self_drawn=True), {"清一色", "不求人", "独听・单钓", "七对"}),
    # "由3种序数牌的一、九牌，7种字牌及其中一对作将组成的和牌不计五门齐、不求人、单钓"
    ("十三幺", hand("jingji", "W1 W9 B1 B9 T1 T9 F1 F2 F3 F4 J1 J2 J3", "J3",
                    self_drawn=True), {"五门齐", "不求人", "独听・单钓"}),
    # "由序数牌一、九刻子组成的和牌。不计碰碰和、同刻、元字"
    ("清幺九", hand("jingji", "W1 W1 W1 W9 W9 W9 B1 B1 B1 B9 B9 B9 T1", "T1"),
     {"碰碰和", "双同刻", "无字"}),
    # "和牌时有风牌的3副刻子及将牌不计三风刻"
    ("小四喜", hand("jingji", "F1 F1 F1 F2 F2 F2 F3 F3 F3 F4 W2 W3 W4", "F4"),
     {"三风刻"}),
    # "和牌时有箭牌的两副刻子及将牌。不计箭刻"
    ("小三元", hand("jingji", "J1 J1 J1 J2 J2 J2 J3 W2 W3 W4 W5 W6 W7", "J3"),
     {"箭刻", "双箭刻"}),
    # "由芓牌的刻子(杠)、将组成的和牌不计碰碰和"
    ("字一色", hand("jingji", "F1 F1 F1 F3 F3 F3 J1 J1 J1 J2 J2 J2 J3", "J3"),
     {"碰碰和"}),
    # "4个暗刻(暗杠)。不计门前清、碰碰和"
    ("四暗刻", hand("jingji", "W2 W2 W2 B5 B5 B5 T7 T7 T7 F3 F3 F3 W9", "W9",
                    self_drawn=True), {"门前清", "碰碰和"}),
    # "一种花色4副序数相同的顺子不计一色三节高、一般高、四归一"
    ("一色四同顺", hand("jingji", "B3 B4 B5 B3 B4 B5 B3 B4 B5 B3 B4 B5 F2", "F2"),
     {"一色三节高", "一般高", "四归一"}),
    # "一种花色4副依次递增一位数的刻子不计一色三同顺、碰碰和"
    ("一色四节高", hand("jingji", "T3 T3 T3 T4 T4 T4 T5 T5 T5 T6 T6 T6 J3", "J3"),
     {"一色三同顺", "碰碰和"}),
    # "必须有7个单张的东西南北中发白，加上3种花色数位按147、258、369中的7张序数牌组成没有
    #  将牌的和牌。不计五门齐、不求人、单钓"
    ("七星不靠", hand("jingji", "F1 F2 F3 F4 J1 J2 J3 W1 W4 W7 B2 B5 B8", "T6",
                      self_drawn=True), {"五门齐", "不求人", "独听・单钓", "全不靠"}),
    # "由2、4、6、8序數牌的刻子、将牌组成的和牌不计碰碰和、断幺"
    ("全双刻", hand("jingji", "W2 W2 W2 B4 B4 B4 T6 T6 T6 W8 W8 W8 B2", "B2"),
     {"碰碰和", "断幺"}),
    # "自摸牌牆上最后一张牌和牌。不计自摸"
    ("妙手回春", hand("jingji", "W1 W2 W3 B4 B5 B6 T7 T8 T9 F1 F1 J2 J2", "J2",
                      self_drawn=True, last_tile=True), {"自摸"}),
    # "开杠抓进的牌成和牌(不包括补花)不计自摸"
    ("杠上开花", hand("jingji", "W2 W3 W4 B5 B6 B7 T3 T4 T5 W6", "W6", self_drawn=True,
                      kong=True, melds=[meld("kong", "B8 B8 B8 B8", "left")]), {"自摸"}),
    # "和别人自抓开明杠的牌不计和绝张"
    ("抢杠和", hand("jingji", "W1 W2 W3 B4 B5 B6 T6 T7 F2 F2 F2 J1 J1", "T8", kong=True,
                    discarder="right"), {"和绝张"}),
    # "全靠吃牌、碰牌、单钓别人批出的牌和牌。不计单钓"
    ("全求人", hand("jingji", "F3", "F3", discarder="left", melds=[
        meld("chow", "W1 W2 W3", "left", "W2"), meld("pung", "B7 B7 B7", "across"),
        meld("chow", "T4 T5 T6", "left", "T6"), meld("pung", "J1 J1 J1", "right")]),
     {"独听・单钓"}),
    # "由4副刻子(或杠)、将牌组成的和牌" (with 箭刻 for the minimum)
    ("碰碰和", hand("jingji", "J1 J1 J1 W9", "W9", discarder="across", melds=[
        meld("pung", "B2 B2 B2", "across"), meld("pung", "T5 T5 T5", "left"),
        meld("pung", "W6 W6 W6", "right")]), set()),
]


@pytest.mark.parametrize(("fan", "declared", "not_counted"), WORKED,
                         ids=[fan for fan, _, _ in WORKED])
def test_each_worked_hand_scores_its_fan_and_not_what_the_line_excludes(
        fan: str, declared: dict, not_counted: set[str]) -> None:
    answer = scored(declared)
    found = names(answer)
    assert answer["win"] and answer["meets_minimum"], answer
    assert fan in found, found
    assert not found.keys() & not_counted, found
    assert answer["total"] == sum(found.values())


def test_green_without_the_green_dragon_is_also_a_pure_suit() -> None:
    # "如无“发”字组成的各牌，可计清一色"
    found = names(scored(hand("jingji", "T2 T3 T4 T2 T3 T4 T6 T6 T6 T8 T8 T8 T3", "T3")))
    assert {"绿一色", "清一色"} <= found.keys()


def test_seven_pairs_keeps_the_companions_the_supplement_lists() -> None:
    # 补充细则 (12): "七对胡牌只能加计清一色，混一色，四归一，海底捞月，妙手回春，自摸，断幺九，
    # 无字，缺一门，其余不计"
    found = names(scored(hand("jingji", "W2 W2 W3 W3 B4 B4 B6 B6 T7 T7 T8 T8 T5", "T5",
                              self_drawn=True)))
    assert {"七对", "断幺", "自摸"} <= found.keys()
    assert found.keys() <= {"七对", "清一色", "混一色", "四归一", "海底捞月", "妙手回春",
                            "自摸", "断幺", "无字", "缺一门", "花牌"}


def test_flowers_count_after_the_win_but_never_toward_the_minimum() -> None:
    # "每花计一分不计在起和分内，和牌后才能计分"; "番种分值之和到少为8分"
    seven = hand("jingji", "W1 W2 W3 W4 W5 W6 B7 B8 B9 T2 T3 T4 F1", "F1",
                 discarder="left", flowers=3)
    answer = scored(seven)
    found = names(answer)
    assert found.get("花牌") == 3
    assert answer["total"] - 3 < 8 and not answer["meets_minimum"] and not answer["win"]
    eight = scored({**seven, "self_drawn": True, "discarder": None, "last_tile": True})
    assert eight["win"] and names(eight)["花牌"] == 3


def test_a_hand_below_eight_points_is_not_a_win() -> None:
    # "(二)起和分：和牌必须达到的最低分数(8分)"
    answer = scored(hand("jingji", "W1 W2 W3 W7 W8 W9 B3 B4 B5 T5 T6 T7 B8", "B8",
                         discarder="across"))
    assert not answer["win"] and not answer["meets_minimum"]
    assert "8" in answer["reason"]


def test_tiles_that_form_no_winning_hand_are_not_a_win() -> None:
    # "诈和：不符合《规则》规定条件而宣布和牌"
    answer = scored(hand("jingji", "W1 W2 W4 B4 B5 B6 T7 T8 T9 W5 W6 W7 B2", "B3",
                         discarder="left"))
    assert not answer["win"] and answer["reason"]


def test_five_of_one_tile_is_refused_not_scored() -> None:
    # "全副牌共有6类42种图案144张": four of each suit and honour tile.
    assert "W1" in refused(hand("jingji", "W1 W1 W1 W1 W2 W3 W4 B5 B6 B7 T2 T3 T4", "W1"))


@pytest.mark.parametrize("self_drawn", [True, False])
def test_payments_follow_the_rule_books_two_formulas(self_drawn: bool) -> None:
    # "1．自摸：(底分+基本分)×3方(未和牌方) 2．点和：底分×3方(未和牌方)＋基本分×1方(点和方)"
    declared = hand("jingji", "J1 J1 J1 J2 J2 J2 J3 J3 J3 W2 W3 W4 T5", "T5", seat="E",
                    self_drawn=self_drawn, discarder=None if self_drawn else "across")
    answer = scored(declared)
    base = answer["total"]
    if self_drawn:
        assert answer["payments"] == {"E": 3 * (8 + base), "S": -(8 + base),
                                      "W": -(8 + base), "N": -(8 + base)}
    else:
        assert answer["payments"] == {"E": 3 * 8 + base, "S": -8, "W": -8 - base, "N": -8}
    assert sum(answer["payments"].values()) == 0
