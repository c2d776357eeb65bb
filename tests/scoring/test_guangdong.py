"""Guangdong 鸡平和: worked hands from the rule book's tables and special rules."""

from __future__ import annotations

import pytest

from .helpers import hand, meld, names, refused, scored, tiles


def gd(concealed: str, win: str, **kw) -> dict:
    kw.setdefault("self_drawn", False)
    if not kw["self_drawn"]:
        kw.setdefault("discarder", "left")
    return hand("guangdong", concealed, win, **kw)


# (hand, patterns expected, 番 total) - each line of the book's tables.
CASES = [
    ("鸡和: chows and a pung in three suits",
     gd("W2 W3 W4 B5 B5 B5 T3 T4 T5 W7 W8 J1 J1", "W9"), {"鸡和": 0}, 0),
    ("平和: 全部都是顺子没有刻子",
     gd("W2 W3 W4 B5 B6 B7 T3 T4 T5 W7 W8 B1 B1", "W9"), {"平和": 1}, 1),
    ("平和 with an honour pair (the literal reading)",
     gd("W2 W3 W4 B5 B6 B7 T3 T4 T5 W7 W8 F3 F3", "W9"), {"平和": 1}, 1),
    ("平和 self-drawn: 在爆和以内自摸+1番",
     gd("W2 W3 W4 B5 B6 B7 T3 T4 T5 W7 W8 B1 B1", "W9", self_drawn=True),
     {"平和": 1, "自摸": 1}, 2),
    ("碰碰和: 全部是刻子没有顺子",
     gd("W2 W2 W2 B5 B5 B5 T3 T3 W8 W8", "T3", melds=[meld("pung", "B9 B9 B9")]),
     {"碰碰和": 2}, 2),
    ("混一色: 字牌及另外单一花色",
     gd("W2 W3 W4 W5 W6 W7 W1 W1 W1 F4 F4 J3 J3", "J3"), {"混一色": 2, "三元牌": 1}, 3),
    ("平和 and 混一色 together",
     gd("W2 W3 W4 W5 W6 W7 W1 W2 W3 W7 W8 F4 F4", "W9"), {"平和": 1, "混一色": 2}, 3),
    ("混一色 + 自摸 + 箭刻 capped at 爆和 3番",
     gd("W2 W3 W4 W5 W6 W7 J1 J1 J1 W9 F4 F4 W9", "W9", self_drawn=True),
     {"混一色": 2, "自摸": 1, "三元牌": 1}, 3),
    ("门风 and 风圈 pungs: +1 each (seat S, round S)",
     gd("W2 W3 W4 B5 B6 B7 F2 F2 F2 W7 W8 B1 B1", "W9", prevalent="S"),
     {"鸡和": 0, "门风": 1, "风圈": 1}, 2),
    ("清一色 4番 (special: 自摸 adds nothing)",
     gd("B1 B2 B3 B4 B5 B6 B7 B8 B9 B2 B2 B5 B5", "B5", self_drawn=True), {"清一色": 4}, 4),
    ("混碰: 混一色 + 碰碰和",
     gd("T2 T2 T2 T5 T5 T5 F1 F1 F1 T9 T9 J2 J2", "J2"), {"混碰": 4}, 4),
    ("清碰: 清一色 + 碰碰和",
     gd("T2 T2 T2 T5 T5 T5 T7 T7 T7 T9 T9 T1 T1", "T1"), {"清碰": 5}, 5),
    ("混幺九: 由幺九牌和字牌组成",
     gd("W1 W1 W1 B9 B9 B9 T1 T1 T1 F3 F3 J2 J2", "J2"), {"混幺九": 5}, 5),
    ("小三元: 中发白, 其中一种是将",
     gd("J1 J1 J1 J2 J2 J2 J3 W2 W3 W4 B5 B6 B7", "J3"), {"小三元": 5}, 5),
    ("小四喜: 三组风刻, 一组风对",
     gd("F1 F1 F1 F2 F2 F2 F3 F3 F3 F4 W2 W3 W4", "F4"), {"小四喜": 5}, 5),
    ("字一色: 由字牌组合成的刻子",
     gd("F1 F1 F1 F2 F2 F2 J3 J3 J3 J1 J1 F4 F4", "J1"), {"字一色": 6}, 6),
    ("清幺九: 只由幺九两种牌组成的刻子",
     gd("W1 W1 W1 W9 W9 W9 B1 B1 B1 T9 T9 B9 B9", "B9"), {"清幺九": 6}, 6),
    ("大三元: 中、发、白三组刻子",
     gd("J1 J1 J1 J2 J2 J2 J3 J3 W2 W3 W4 B5 B5", "J3"), {"大三元": 6}, 6),
    ("大四喜: 东、南、西、北四组刻子",
     gd("F1 F1 F1 F2 F2 F2 F3 F3 F3 F4 F4 W5 W5", "F4"), {"大四喜": 6}, 6),
    ("九莲宝灯: 1112345678999 + any of the suit",
     gd("T1 T1 T1 T2 T3 T4 T5 T6 T7 T8 T9 T9 T9", "T6"), {"九莲宝灯": 6}, 6),
    ("十三幺: 1、9 万筒索, 东南西北中发白, 任意一张作将",
     gd("W1 W9 B1 B9 T1 T9 F1 F2 F3 F4 J1 J2 J3", "J2"), {"十三幺": 6}, 6),
    ("杠上开花: 不满3番牌型，按照3番满计算",
     gd("W2 W3 W4 T3 T4 T5 W7 W8 J1 J1", "W9", self_drawn=True, kong=True,
        melds=[meld("kong", "B5 B5 B5 B5", None)]),
     {"鸡和": 0, "自摸": 1, "满番": 2}, 3),
    ("海底捞月: 摸最后一张牌和牌, 按照3番满计算",
     gd("W2 W3 W4 B5 B5 B5 T3 T4 T5 W7 W8 J1 J1", "W9", self_drawn=True, last_tile=True),
     {"鸡和": 0, "自摸": 1, "满番": 2}, 3),
]


@pytest.mark.parametrize(("title", "h", "patterns", "fan"), CASES, ids=[c[0] for c in CASES])
def test_worked_hand(title: str, h: dict, patterns: dict, fan: int) -> None:
    answer = scored(h)
    assert answer["win"], answer
    assert names(answer) == patterns
    assert answer["total"] == fan
    value = 2 ** fan          # 分值: 鸡和 1, 平和 2, 碰碰和 4 … 64
    if h["self_drawn"]:
        assert answer["payments"][h["seat_wind"]] == 3 * value
    else:
        assert sorted(answer["payments"].values()) == [-value, 0, 0, value]


def test_robbing_a_kong_the_robbed_pays_for_all_three() -> None:
    # 抢杠: "被抢杠者包三家" and raised to 3番: 8 from each of three, all paid by the robbed.
    answer = scored(gd("W2 W3 W4 B5 B5 B5 T3 T4 T5 W7 W8 J1 J1", "W9", kong=True,
                       discarder="across"))
    assert answer["total"] == 3
    assert answer["payments"] == {"E": 0, "S": 24, "W": 0, "N": -24}


def test_not_a_winning_shape() -> None:
    answer = scored(gd("W2 W3 W4 B5 B5 B5 T3 T4 T5 W7 W8 J1 J2", "W9"))
    assert not answer["win"] and "do not form a winning hand" in answer["reason"]
    assert answer["payments"] == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_a_venue_that_lets_an_honour_pair_break_pinghu() -> None:
    h = gd("W2 W3 W4 B5 B6 B7 T3 T4 T5 W7 W8 F3 F3", "W9",
           params={"pinghu_honour_pair": False})
    assert names(scored(h)) == {"鸡和": 0}


def test_a_minimum_above_chicken_makes_chicken_not_a_win() -> None:
    answer = scored(gd("W2 W3 W4 B5 B5 B5 T3 T4 T5 W7 W8 J1 J1", "W9", params={"minimum": 1}))
    assert not answer["win"] and "below the 1-番 minimum" in answer["reason"]


def test_every_loser_pays_when_the_venue_says_so() -> None:
    answer = scored(gd("W2 W3 W4 B5 B6 B7 T3 T4 T5 W7 W8 B1 B1", "W9",
                       params={"discard_pays": "all"}))
    assert answer["payments"] == {"E": -2, "S": 6, "W": -2, "N": -2}


@pytest.mark.parametrize(("change", "expected"), [
    ({"flowers": 1}, "plays without flowers"),
    ({"flowers": ["H1"]}, "is not a flower of the guangdong variant"),
    ({"win_tile": "H2"}, "is not a tile code"),
    ({"concealed": tiles("W1 W1 W1 B6 B7 T3 T4 T5 W7 W8 B1 B1")}, "make 12 tiles"),
    ({"params": {"cap": "3"}}, "params.cap: expected int"),
    ({"params": {"discard_pays": "nobody"}}, "params.discard_pays"),
    ({"params": {"jackpot": 1}}, "params.jackpot: unknown parameter"),
])
def test_refused(change: dict, expected: str) -> None:
    h = {**gd("W2 W3 W4 B5 B6 B7 T3 T4 T5 W7 W8 B1 B1", "W9"), **change}
    assert expected in refused(h)


def test_five_copies_refused_in_a_136_set() -> None:
    h = gd("W9 W9 W9 B5 B6 B7 T3 T4 T5 W7 W8 B1 B1", "W9",
           melds=[], discarder="left")
    h["concealed"] = tiles("W9 W9 W9 W9 B6 B7 B8 T3 T4 T5 W7 W8 W6")
    assert "W9: declared 5 times" in refused(h)
