"""Tianjin: the 混 from the page's own examples, self-drawn wins only, no chows claimed,
and the named patterns at the documented default values."""

from __future__ import annotations

import pytest

from rules.scorekeeper import read_declared
from rules.scoring.declared import wild_tiles

from .helpers import hand, meld, names, refused, scored


def tj(concealed: str, win: str, hun: str = "B3", **kw) -> dict:
    kw.setdefault("self_drawn", True)
    return hand("tianjin", concealed, win, hun=hun, **kw)


@pytest.mark.parametrize(("turned", "wild"), [
    # "如翻开的是3筒，则3筒和4筒都是混，如翻开的是9条，则9条和1条都是混。
    #  如果翻开的是西风，则西风和北风都是混"
    ("B3", {"B3", "B4"}), ("T9", {"T9", "T1"}), ("F3", {"F3", "F4"}), ("F4", {"F4", "F1"}),
    ("J3", {"J3", "J1"}),
])
def test_the_hun_is_the_turned_tile_and_the_next(turned: str, wild: set[str]) -> None:
    h = tj("W1 W2 W3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B7", "B7", hun=turned)
    assert wild_tiles(read_declared(h)) == wild


CASES = [
    ("提溜 where the venue lets it win (tiliu_wins): a 混 stands in a chow",
     tj("W1 W2 W3 W4 W5 W6 T2 B4 T4 T7 T7 T7 B8", "B8", params={"tiliu_wins": True}),
     {"胡": 1}, 1),
    ("素: no 混 in the hand",
     tj("W1 W2 W3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B8", "B8"), {"胡": 1, "素": 2}, 2),
    ("素 with 杠开: no 混, the win on a kong's replacement (杠开番数翻倍)",
     tj("W1 W2 W3 W5 W6 W7 F1 F1 F1 T7", "T7", kong=True,
        melds=[meld("kong", "J2 J2 J2 J2", None)]), {"胡": 1, "素": 2, "杠开": 2}, 4),
    ("混吊: a 混 waits as the pair's single tile",
     tj("W1 W2 W3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B4", "F2"), {"胡": 1, "混吊": 2}, 2),
    ("捉五: the five of characters caught into 4-5-6",
     tj("W4 W6 T2 T3 T4 B6 B7 B8 T7 T7 T7 F1 F1", "W5"), {"胡": 1, "捉五": 2, "素": 2}, 4),
    ("捉五 with a 混 drawn for the five (最后上一张伍万（或混）)",
     tj("W4 W6 T2 T3 T4 B6 B7 B8 T7 T7 T7 F1 F1", "B4"), {"胡": 1, "捉五": 2}, 2),
    ("捉五 with a 混 for the six",
     tj("W4 B4 T2 T3 T4 B6 B7 B8 T7 T7 T7 F1 F1", "W5"), {"胡": 1, "捉五": 2}, 2),
    ("龙: 1 to 9 of one suit, a 混 standing in",
     tj("T1 T2 T3 T4 B4 T6 T7 T8 T9 W5 W5 W5 F2", "F2"), {"胡": 1, "龙": 2}, 2),
    ("龙 素: the straight with no 混",
     tj("T1 T2 T3 T4 T5 T6 T7 T8 T9 W5 W5 W5 F2", "F2"), {"胡": 1, "龙": 2, "素": 2}, 4),
    ("本混龙: the straight in the 混's suit (龙的花色和混儿相同); the 混 held, so not 素",
     tj("B1 B2 B3 B4 B5 B6 B7 B8 B9 W5 W5 W5 F2", "F2"), {"胡": 1, "本混龙": 4}, 4),
    ("本混龙 with a 混 standing for another tile of the straight",
     tj("B1 B2 B3 B4 B4 B6 B7 B8 B9 W5 W5 W5 F2", "F2"), {"胡": 1, "本混龙": 4}, 4),
    ("捉五 in a characters 龙",
     tj("W1 W2 W3 W4 W6 W7 W8 W9 T1 T1 T1 B4 F1", "W5"), {"胡": 1, "捉五": 2, "龙": 2}, 4),
    ("pungs claimed (许碰)",
     tj("W1 W2 W3 T7 T7 T7 F1", "F1", melds=[meld("pung", "J2 J2 J2"),
                                             meld("pung", "W9 W9 W9", "left")]),
     {"胡": 1, "素": 2}, 2),
    ("a concealed kong, 素",
     tj("W1 W2 W3 W5 W6 W7 F1 F1 F1 T7", "T7", melds=[meld("kong", "J2 J2 J2 J2", None)]),
     {"胡": 1, "素": 2}, 2),
    ("two different 混 as a pair",
     tj("W1 W2 W3 W6 W7 W8 T2 T3 T4 T7 T7 T7 B4", "B3"), {"胡": 1, "混吊": 2}, 2),
]


@pytest.mark.parametrize(("title", "h", "patterns", "total"), CASES, ids=[c[0] for c in CASES])
def test_worked_hand(title: str, h: dict, patterns: dict, total: int) -> None:
    answer = scored(h)
    assert answer["win"], answer
    assert names(answer) == patterns
    assert answer["total"] == total
    others = [p for seat, p in answer["payments"].items() if seat != h["seat_wind"]]
    assert others == [-total] * 3 and sum(answer["payments"].values()) == 0


def test_a_discard_is_never_a_win() -> None:
    # "胡牌时只能自摸"
    answer = scored(tj("W1 W2 W3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B8", "B8", self_drawn=False,
                       discarder="left"))
    assert not answer["win"] and "only by self-draw" in answer["reason"]
    assert set(answer["payments"].values()) == {0}


def test_not_a_winning_shape() -> None:
    answer = scored(tj("W1 W2 W3 W4 W5 W7 T2 T3 T5 T7 T7 T7 B8", "B9"))
    assert not answer["win"]


def test_a_chow_claimed_is_refused() -> None:
    # "许碰不许吃"
    h = tj("W1 W2 W3 T7 T7 T7 F1 W4 W5 W6", "F1", melds=[meld("chow", "T1 T2 T3", "left")])
    assert "Tianjin claims no chow" in refused(h)


def test_the_turned_tile_is_out_of_play() -> None:
    h = tj("B3 B3 B3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B8", "B3")
    assert "B3: declared 4 times; the set the table dealt holds 3" in refused(h)


def test_the_hun_is_required_and_flowers_are_refused() -> None:
    h = tj("W1 W2 W3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B8", "B8")
    assert "hun: the tianjin variant needs its wild tile" in refused({**h, "hun": None})
    assert "plays without flowers" in refused({**h, "flowers": 2})
    assert "gold: not a key of the tianjin variant" in refused({**h, "gold": "B3"})


def test_the_dealer_sitting_doubles_to_and_from_him() -> None:
    # "如果坐庄，庄家胡后其他三家付两倍，若闲家胡，庄家付两倍，闲家付一倍" - chosen per hand.
    plain = tj("W1 W2 W3 W4 W5 W6 T2 B4 T4 T7 T7 T7 B8", "B8", zuozhuang=True,
               params={"tiliu_wins": True})
    assert scored(plain)["payments"] == {"E": -2, "S": 4, "W": -1, "N": -1}
    dealer = {**plain, "seat_wind": "E"}
    assert scored(dealer)["payments"] == {"E": 6, "S": -2, "W": -2, "N": -2}


def test_a_venue_sets_its_own_values() -> None:
    h = tj("W1 W2 W3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B8", "B8", params={"su": 3, "base": 2})
    assert scored(h)["total"] == 6


@pytest.mark.parametrize(("title", "concealed", "win"), [
    # "提溜：就是普通牌型…注：天津麻将中，不能和提溜"
    ("a 混 stands in a chow", "W1 W2 W3 W4 W5 W6 T2 B4 T4 T7 T7 T7 B8", "B8"),
    # "素的：只要求手中没有混": a 混 held as itself is still a 混 in the hand.
    ("a 混 held as itself is not 素", "W1 W2 W3 B2 B3 B4 T2 T3 T4 T7 T7 T7 B8", "B8"),
])
def test_a_plain_hand_does_not_win(title: str, concealed: str, win: str) -> None:
    answer = scored(tj(concealed, win))
    assert not answer["win"] and "提溜" in answer["reason"], title
    assert set(answer["payments"].values()) == {0}
