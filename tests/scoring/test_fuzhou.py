"""Fuzhou: sixteen tiles and 金, the page's three ways of pricing a win and its own
worked figures."""

from __future__ import annotations

import pytest

from .helpers import hand, meld, names, refused, scored, tiles

PLAIN = "W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B5 B5 B5 T2"      # waits on T2
YOUJIN = "W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B5 B5 B5 T5"     # a 金 held alone


def fz(concealed: str, win: str, flowers=0, dealer: bool = False, **kw) -> dict:
    kw.setdefault("self_drawn", False)
    if not kw["self_drawn"]:
        kw.setdefault("discarder", "across")
    return hand("fuzhou", concealed, win, gold="T5", flowers=flowers,
                seat="E" if dealer else "S", **kw)


def _each(answer: dict, seat: str) -> list[int]:
    return [p for s, p in answer["payments"].items() if s != seat]


BIANFENG = [
    # "普通胡牌的银两计算为底分＋花分": discarder pays twice ("出冲的一方付出…２倍")
    ("屁胡 with two flowers", fz(PLAIN, "T2", ["F1", "H3"]), {"底分": 1, "花": 2}, 3),
    ("自摸: （底分＋花分）Ｘ2", fz(PLAIN, "T2", ["F1", "H3"], self_drawn=True),
     {"底分": 2, "花": 4}, 6),
    ("平胡: no flower, no kong, priced as 抢金 ×30", fz(PLAIN, "T2", 0), {"平胡": 30}, 30),
    ("four 东 count six flowers", fz(PLAIN, "T2", ["F1", "F1", "F1", "F1", "H1"]),
     {"底分": 1, "四花": 6, "花": 1}, 8),
    ("春夏秋冬 count six", fz(PLAIN, "T2", ["H1", "H2", "H3", "H4"]),
     {"底分": 1, "四花": 6}, 7),
    ("一个明杠算一朵花，一个暗杠算两朵花",
     fz("W1 W2 W3 W4 W5 W6 B1 B2 B3 T2", "T2", 1,
        melds=[meld("kong", "W9 W9 W9 W9"), meld("kong", "B7 B7 B7 B7", None)]),
     {"底分": 1, "花": 1, "明杠": 1, "暗杠": 2}, 5),
    ("a 金 standing in a chow counts one flower",
     fz("W1 W2 W3 W4 T5 W6 W7 W8 W9 B1 B2 B3 B5 B5 B5 T2", "T2", 1),
     {"底分": 1, "花": 1, "金": 1}, 3),
    ("三金倒: three 金 win whatever the shape, ×40, flowers as self-drawn",
     fz("W1 W3 W5 W7 W9 B1 B3 B5 B7 B9 T1 T3 T7 T9 T5 T5", "T5", 1, self_drawn=True),
     {"三金倒": 40, "花": 2, "金": 6}, 48),
    ("金雀: two 金 as the pair, ×60",
     fz("W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B5 B5 B5 T5", "T5", 1, self_drawn=True),
     {"金雀": 60, "花": 2, "金": 4}, 66),
]


@pytest.mark.parametrize(("title", "h", "patterns", "total"), BIANFENG,
                         ids=[c[0] for c in BIANFENG])
def test_bianfeng(title: str, h: dict, patterns: dict, total: int) -> None:
    answer = scored(h)
    assert answer["win"], answer
    assert names(answer) == patterns
    assert answer["total"] == total
    if h["self_drawn"]:
        assert _each(answer, h["seat_wind"]) == [-total] * 3
    else:
        assert sorted(_each(answer, h["seat_wind"])) == [-2 * total, 0, 0]
    assert sum(answer["payments"].values()) == 0


# The page's own figures for its second scheme ("很多现实玩倒科的都用这种算法").
DAOKE = [
    ("4番屁糊，散家就是5+4=9番", fz(PLAIN, "T2", 4), 9),
    ("庄家是10+4是14番", fz(PLAIN, "T2", 4, dealer=True), 14),
    ("4番自摸散家是10+4*2=18番", fz(PLAIN, "T2", 4, self_drawn=True), 18),
    ("庄家是20+4*2=28番", fz(PLAIN, "T2", 4, dealer=True, self_drawn=True), 28),
    ("4番游金散家是15+4*3=27番", fz(YOUJIN, "T8", 3, self_drawn=True), 27),
    ("庄家是30+4*3=42番", fz(YOUJIN, "T8", 3, dealer=True, self_drawn=True), 42),
    ("我是庄家我第一把1番屁糊，那就是一人11番", fz(PLAIN, "T2", 1, dealer=True), 11),
]


@pytest.mark.parametrize(("title", "h", "total"), DAOKE, ids=[c[0] for c in DAOKE])
def test_daoke_the_pages_figures(title: str, h: dict, total: int) -> None:
    answer = scored({**h, "params": {"scheme": "daoke"}})
    assert answer["total"] == total
    assert _each(answer, h["seat_wind"]) == [-total] * 3   # "一人11番"


SIMPLE = [
    # "屁胡一番，如果是庄家就是两番，自摸两番，庄家4番。游金3番，庄家6番。两个花一番，一个金一番"
    ("屁胡 with two flowers", fz(PLAIN, "T2", 2), 2),
    ("庄家 自摸 with four flowers", fz(PLAIN, "T2", 4, dealer=True, self_drawn=True), 6),
    ("游金 with its 金", fz(YOUJIN, "T8", 0, self_drawn=True), 4),
    ("庄家 游金", fz(YOUJIN, "T8", 0, dealer=True, self_drawn=True), 7),
    ("光杠1番，暗杠2番", fz("W1 W2 W3 W4 W5 W6 B1 B2 B3 T2", "T2", 0,
                          melds=[meld("kong", "W9 W9 W9 W9"),
                                 meld("kong", "B7 B7 B7 B7", None)]), 4),
]


@pytest.mark.parametrize(("title", "h", "total"), SIMPLE, ids=[c[0] for c in SIMPLE])
def test_simple_scheme(title: str, h: dict, total: int) -> None:
    assert scored({**h, "params": {"scheme": "simple"}})["total"] == total


def test_three_golds_priced_sixty_when_the_venue_reads_the_second_line() -> None:
    h = fz("W1 W3 W5 W7 W9 B1 B3 B5 B7 B9 T1 T3 T7 T9 T5 T5", "T5", 0, self_drawn=True,
           params={"sanjindao": 60})
    assert names(scored(h))["三金倒"] == 60


def test_not_a_winning_shape() -> None:
    answer = scored(fz("W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B5 B5 B6 T2", "T2", 1))
    assert not answer["win"]


@pytest.mark.parametrize(("change", "expected"), [
    ({"concealed": tiles("W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 F1")}, "F1 is a flower"),
    ({"concealed": tiles("W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B5")}, "a fuzhou hand holds 16"),
    ({"concealed": tiles("W1 W2 W3 W4 W5 W6 W7 W8 W9 T5 T5 T5 B5 B5 B5 T2"),
      "win_tile": "T5"}, "T5: declared 4 times; the set the table dealt holds 3"),
    ({"gold": None}, "gold: the fuzhou variant needs its wild tile"),
    ({"flowers": ["F1"] * 5}, "F1: declared 5 times"),
    ({"flowers": 37}, "not a count from 0 to 36"),
    ({"params": {"scheme": "other"}}, "params.scheme"),
    # An honour is a flower here: a turned flower is set aside, never the 金.
    ({"gold": "F1"}, "gold: F1 is a flower of the fuzhou variant"),
    ({"gold": "H3"}, "gold: H3 is a flower of the fuzhou variant"),
])
def test_refused(change: dict, expected: str) -> None:
    assert expected in refused({**fz(PLAIN, "T2", 1), **change})
