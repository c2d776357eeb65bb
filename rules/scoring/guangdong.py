"""Guangdong 鸡平和: 番 from the rule book's tables, capped at 爆和, and payments in 分值.

Each pattern names the rule book's line it rests on (docs/scoring.md has the table).
A 番 doubles: 分值 = 2 ** 番 ("番是2倍的意思"; the table: 鸡和 0→1, 平和 1→2 … 6→64).
"""

from __future__ import annotations

from dataclasses import dataclass

from mjtable_core.schema import option

from ..i18n import _
from .declared import Declared
from .result import Fan, Result, not_a_win, pay
from .shapes import CODES, arrangements, counts_of


@dataclass(frozen=True)
class GuangdongParams:
    """Choices where the rule book is silent (docs/scoring.md, Guangdong).

    cap: 爆和, the most 番 of an ordinary hand ("爆和为3番"); 分值 is 2^番, so at most 13.
    pinghu_honour_pair: whether a pair of honours keeps 平和 ("全部都是顺子没有刻子" says
        nothing of the pair; True reads it literally).
    discard_pays: "discarder" (the discarder pays the 分值 alone) or "all" (each loser
        pays it); the book states no ordinary payment, only the 包 cases.
    kong_robbed_pays_all: 抢杠: "被抢杠者包三家".
    minimum: the fewest 番 that win (鸡和 is 0: "什么牌都可以和").
    """

    cap: int = option(3, minval=0, maxval=13)
    pinghu_honour_pair: bool = option(True)
    discard_pays: str = option("discarder", choices=("discarder", "all"))
    kong_robbed_pays_all: bool = option(True)
    minimum: int = option(0, minval=0, maxval=13)


ORPHANS = ("W1", "W9", "B1", "B9", "T1", "T9", "F1", "F2", "F3", "F4", "J1", "J2", "J3")


# (Chinese, English, 番) - the rule book's tables.
CHICKEN = ("鸡和", "Chicken Hand", 0)
ALL_CHOWS = ("平和", "All Chows", 1)
ALL_PUNGS = ("碰碰和", "All Pungs", 2)
HALF_FLUSH = ("混一色", "Half Flush", 2)
SELF_DRAWN = ("自摸", "Self-Drawn", 1)
SEAT_WIND = ("门风", "Seat Wind Pung", 1)
ROUND_WIND = ("风圈", "Prevalent Wind Pung", 1)
DRAGON = ("三元牌", "Dragon Pung", 1)
SPECIALS = {  # 爆和以外的牌型: no other 番 added to them
    "full_flush": ("清一色", "Full Flush", 4), "mixed_pungs": ("混碰", "Half Flush All Pungs", 4),
    "pure_pungs": ("清碰", "Full Flush All Pungs", 5),
    "terminals_honours": ("混幺九", "Terminals and Honours", 5),
    "small_dragons": ("小三元", "Little Three Dragons", 5),
    "small_winds": ("小四喜", "Little Four Winds", 5), "all_honours": ("字一色", "All Honours", 6),
    "all_terminals": ("清幺九", "All Terminals", 6),
    "big_dragons": ("大三元", "Big Three Dragons", 6),
    "big_winds": ("大四喜", "Big Four Winds", 6), "nine_gates": ("九莲宝灯", "Nine Gates", 6),
    "orphans": ("十三幺", "Thirteen Orphans", 6),
}
# 杠上开花, 抢杠, 海底捞月: "不满3番牌型，按照3番满计算".
AT_LEAST_CAP = ("满番", "Raised to the cap", 0)


def _fan(entry: tuple[str, str, int], points: int | None = None) -> Fan:
    return Fan(entry[1], entry[0], entry[2] if points is None else points)


def _groups(declared: Declared) -> list[list[tuple[str, int]]]:
    """Each reading of the whole hand as (kind, tile index) groups, melds included."""
    fixed = [("pung" if m.type == "kong" else m.type, CODES.index(m.tiles[0]))
             for m in declared.melds]
    readings = arrangements(counts_of(declared.full_hand), 0, 4 - len(declared.melds))
    return [fixed + [(kind, first) for kind, first, _ in reading] for reading in readings]


def _special(declared: Declared, groups: list[tuple[str, int]]) -> list[str]:
    tiles = [CODES[first] for _, first in groups]
    suits = {t[0] for t in tiles if t[0] in "WBT"}
    honours = any(t[0] in "FJ" for t in tiles)
    pungs = [CODES[f] for k, f in groups if k == "pung"]
    pair = next(CODES[f] for k, f in groups if k == "pair")
    all_pungs = all(k != "chow" for k, _ in groups)
    terminal_or_honour = all(k != "chow" and (CODES[f][0] in "FJ" or CODES[f][1] in "19")
                             for k, f in groups)
    found = []
    if not suits:
        found.append("all_honours")
    elif len(suits) == 1 and not honours:
        found.append("pure_pungs" if all_pungs else "full_flush")
    elif len(suits) == 1 and all_pungs:
        found.append("mixed_pungs")
    if terminal_or_honour:
        found.append("terminals_honours" if honours else "all_terminals")
    dragons = sum(p[0] == "J" for p in pungs)
    winds = sum(p[0] == "F" for p in pungs)
    if dragons == 3:
        found.append("big_dragons")
    elif dragons == 2 and pair[0] == "J":
        found.append("small_dragons")
    if winds == 4:
        found.append("big_winds")
    elif winds == 3 and pair[0] == "F":
        found.append("small_winds")
    return found


def _nine_gates(declared: Declared) -> bool:
    if declared.melds:
        return False
    suit = declared.win_tile[0]
    held = sorted(declared.concealed)
    return suit in "WBT" and held == sorted(f"{suit}{n}" for n in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8,
                                                                  9, 9, 9))


def _orphans(declared: Declared) -> bool:
    hand = declared.full_hand
    return not declared.melds and set(hand) == set(ORPHANS)


def _ordinary(declared: Declared, groups: list[tuple[str, int]],
              params: GuangdongParams) -> list[Fan]:
    tiles = [CODES[first] for _, first in groups]
    suits = {t[0] for t in tiles if t[0] in "WBT"}
    honours = any(t[0] in "FJ" for t in tiles)
    pair = next(CODES[f] for k, f in groups if k == "pair")
    fans = []
    if all(k != "pung" for k, _ in groups) and (params.pinghu_honour_pair or pair[0] in "WBT"):
        fans.append(_fan(ALL_CHOWS))
    if all(k != "chow" for k, _ in groups):
        fans.append(_fan(ALL_PUNGS))
    if len(suits) == 1 and honours:
        fans.append(_fan(HALF_FLUSH))
    if not fans:
        fans.append(_fan(CHICKEN))
    if declared.self_drawn:
        fans.append(_fan(SELF_DRAWN))
    pungs = [CODES[f] for k, f in groups if k == "pung"]
    winds = ("F1", "F2", "F3", "F4")
    if winds[declared.seat_wind] in pungs:
        fans.append(_fan(SEAT_WIND))
    if winds[declared.prevalent_wind] in pungs:
        fans.append(_fan(ROUND_WIND))
    dragons = sum(p[0] == "J" for p in pungs)
    if dragons:
        fans.append(Fan(DRAGON[1], DRAGON[0], 1, dragons))
    return fans


def _value(fans: list[Fan]) -> int:
    return sum(f.points * f.count for f in fans)


def score(declared: Declared, params: GuangdongParams) -> Result:
    """Score a checked declared win under Guangdong 鸡平和."""
    if declared.passed_win:
        # "若玩家A为叫和的状态下,如下家B打出一张玩家A可以和的牌而玩家A却放弃不和,那若对家C或
        #  上家D打出相同的一张牌时,玩家A是不能和那一张的。除非玩家A有进行动牌的情况"
        return not_a_win(_("漏和: a discard of this tile was passed and the winner has not "
                           "moved since (不能和那一张)"))
    if declared.kong_robbed == "concealed":
        return not_a_win(_("a concealed kong is not robbed (暗杠不可抢杠和)"))
    candidates: list[tuple[int, list[Fan], bool]] = []   # (番, fans, special)
    if _orphans(declared):
        candidates.append((6, [_fan(SPECIALS["orphans"])], True))
    if _nine_gates(declared):
        candidates.append((6, [_fan(SPECIALS["nine_gates"])], True))
    for groups in _groups(declared):
        specials = _special(declared, groups)
        if specials:
            best = max((SPECIALS[s] for s in specials), key=lambda e: e[2])
            candidates.append((best[2], [_fan(best)], True))
        else:
            fans = _ordinary(declared, groups, params)
            candidates.append((_value(fans), fans, False))
    if not candidates:
        return not_a_win(_("the tiles do not form a winning hand"))
    fan_total, fans, special = max(candidates, key=lambda c: c[0])
    if not special:
        # "一炮三响…和牌者不满3番牌型,按照3番满计算": three wins on one discard.
        raised = (declared.kong or (declared.self_drawn and declared.last_tile)
                  or len(declared.also_won) == 2)
        if raised and fan_total < params.cap:
            fans = [*fans, _fan(AT_LEAST_CAP, params.cap - fan_total)]
        fan_total = min(max(fan_total, params.cap if raised else 0), params.cap)
    if fan_total < params.minimum:
        return not_a_win(_("{points} 番: below the {minimum}-番 minimum").format(
            points=fan_total, minimum=params.minimum), fans, fan_total)
    value = 2 ** fan_total
    robbed = declared.kong and not declared.self_drawn
    if robbed and params.kong_robbed_pays_all:
        payments = pay(declared, each=value, discarder_pays_all=True)   # 被抢杠者包三家
    elif len(declared.also_won) == 2 and params.discard_pays == "all":
        payments = pay(declared, each=value, discarder_pays_all=True)   # 一炮三响: 点炮者包三家
    elif declared.self_drawn or params.discard_pays == "all":
        payments = pay(declared, each=value)
    else:
        payments = pay(declared, each=0, discarder_extra=value)
    return Result(True, "", fans, fan_total, True, payments)
