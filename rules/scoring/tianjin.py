"""Tianjin 混 mahjong: self-drawn wins only, pungs but no chows claimed, and the 混.

The rule book (a game's page) names the patterns - "混吊, 捉五, 一条龙, 本混龙, 素的提溜" - and
"许碰不许吃, 胡牌时只能自摸", then stops before any value: every value here is a
parameter whose default is ours (docs/scoring.md, Tianjin). A pattern multiplies the
base; each loser pays the product, doubled to and from the dealer when he sits 坐庄
("如果坐庄，庄家胡后其他三家付两倍，若闲家胡，庄家付两倍，闲家付一倍"), chosen per hand
(the declared win's `zuozhuang`), and again for each 拉庄 of the non-dealer paying or paid.
"""

from __future__ import annotations

from dataclasses import dataclass

from mjtable_core.schema import option

from ..errors import RulesError
from ..i18n import _
from .declared import Declared, wild_tiles
from .drawn import Drawn, drawn_result
from .result import Fan, Result, not_a_win
from .shapes import INDEX, arrangements, counts_of

STAKE = 1_000_000      # no table's stake is above it; a bigger number is a typo
MULTIPLE = 100


@dataclass(frozen=True)
class TianjinParams:
    """The values the page does not give (all defaults ours; docs/scoring.md).

    base: what each loser pays for a win before its patterns.
    su: multiplier of 素 ("素的：只要求手中没有混，并且可以胡牌").
    hun_diao: multiplier of 混吊 (a 混 held as the single tile of the pair: any draw wins).
    zhuo_wu: multiplier of 捉五 (the 5 of characters drawn into 4-5-6).
    long: multiplier of 龙 (一条龙, 1 to 9 of one suit).
    ben_hun_long: multiplier of 本混龙 ("龙的花色和混儿相同"), instead of `long`.
    gang_kai: multiplier of 杠开, the win on a kong's replacement ("杠开番数翻倍").
    tiliu_wins: a plain hand (提溜) with none of the patterns wins. The page says it does
        not ("天津麻将中，不能和提溜"); a venue that lets it win sets true.
    chan: a 明杠's points, which the dealer pays each other player for 铲 before 坐庄 and
        拉庄 double it. The page says "一个明杠的分(2分)" and, for a 坐庄 dealer, "付A两分，
        付B四分，付C八分": 1 doubled by 坐庄 is the only value that keeps both its example and
        "坐庄和拉庄都要翻番".
    hun_kong_claimed: a kong of 混 may be claimed from a discard. The page allows only the
        concealed one ("手上有四个相同的混时，玩家可以暗杠") and forbids the pung
        ("其它人打出一张相同的混，不能碰").
    """

    base: int = option(1, minval=1, maxval=STAKE)
    su: int = option(2, minval=1, maxval=MULTIPLE)
    hun_diao: int = option(2, minval=1, maxval=MULTIPLE)
    zhuo_wu: int = option(2, minval=1, maxval=MULTIPLE)
    long: int = option(2, minval=1, maxval=MULTIPLE)
    ben_hun_long: int = option(4, minval=1, maxval=MULTIPLE)
    gang_kai: int = option(2, minval=1, maxval=MULTIPLE)
    tiliu_wins: bool = option(False)
    chan: int = option(1, minval=0, maxval=STAKE)
    hun_kong_claimed: bool = option(False)


NAMES = {"su": ("素", "No Wild Used"), "hun_diao": ("混吊", "Wild Pair Wait"),
         "zhuo_wu": ("捉五", "Catch the Five"), "long": ("龙", "Straight"),
         "ben_hun_long": ("本混龙", "Straight in the Wild's Suit"),
         "gang_kai": ("杠开", "Win on a Kong's Replacement")}
PATTERNS = ("su", "hun_diao", "zhuo_wu", "long", "ben_hun_long")


class _Pool:
    """Tiles left to read: ordinary tiles by index, and the 混 held."""

    def __init__(self, counts: list[int], wilds: int, wild_codes: frozenset[str]):
        self.counts, self.wilds, self.wild_codes = counts, wilds, wild_codes
        self.stand_ins = 0      # a 混 used for another tile
        self.in_place = 0       # a 混 used as itself

    def copy(self) -> _Pool:
        out = _Pool(list(self.counts), self.wilds, self.wild_codes)
        out.stand_ins, out.in_place = self.stand_ins, self.in_place
        return out

    def take(self, code: str) -> bool:
        if code in self.wild_codes:
            if self.wilds:
                self.wilds -= 1
                self.in_place += 1
                return True
            return False
        if self.counts[INDEX[code]]:
            self.counts[INDEX[code]] -= 1
            return True
        if self.wilds:
            self.wilds -= 1
            self.stand_ins += 1
            return True
        return False


def _pool(tiles, wilds: frozenset[str]) -> _Pool:
    plain = [t for t in tiles if t not in wilds]
    return _Pool(list(counts_of(plain)), len(tiles) - len(plain), wilds)


def _readings(declared: Declared, wilds: frozenset[str]) -> list[set[str]]:
    """The pattern sets of every reading of the hand as four sets and a pair."""
    sets = 4 - len(declared.melds)
    found: list[set[str]] = []
    # "捉5…最后上一张"伍万"（或混）": the five drawn, or a 混 drawn for it.
    waits = [None, "hun_diao"] + (["zhuo_wu"] if declared.win_tile == "W5"
                                  or declared.win_tile in wilds else [])
    for wait in waits:
        start = _pool(declared.concealed, wilds)
        pair = True
        if wait == "hun_diao":
            # A 混 from the standing tiles pairs with the drawn tile, whatever it is.
            if not start.wilds:
                continue
            start.wilds -= 1
            pair = False
        elif wait == "zhuo_wu":
            if not (start.take("W4") and start.take("W6")):
                continue
        else:
            start = _pool(declared.full_hand, wilds)
        need = sets - (1 if wait == "zhuo_wu" else 0)
        for suit in (None, "W", "B", "T"):
            pool = start.copy()
            # With 捉五 the 4-5-6 of a characters 龙 is the chow the five was caught into.
            numbers = _dragon_numbers(suit, wait)
            if suit is not None and (need < len(numbers) // 3 or not all(
                    pool.take(f"{suit}{n}") for n in numbers)):
                continue
            left = need - len(numbers) // 3
            if not arrangements(tuple(pool.counts), pool.wilds, left, pair):
                continue
            patterns = set()
            if wait:
                patterns.add(wait)
            if suit:
                # "本混（龙）：龙的花色和混儿相同，即成为本混儿龙"
                patterns.add("ben_hun_long" if suit == declared.wild[0] else "long")
            found.append(patterns)
    return found


def _dragon_numbers(suit: str | None, wait: str | None) -> tuple[int, ...]:
    if suit is None:
        return ()
    if wait == "zhuo_wu" and suit == "W":
        return (1, 2, 3, 7, 8, 9)
    return tuple(range(1, 10))


def _check_melds(declared: Declared, wilds: frozenset[str], params: TianjinParams) -> None:
    for i, meld in enumerate(declared.melds):
        if meld.type == "chow":
            raise RulesError(_("melds[{i}]: Tianjin claims no chow (许碰不许吃)").format(i=i))
        if meld.concealed or meld.tiles[0] not in wilds:
            continue
        # "手上有四个相同的混时，玩家可以暗杠；手上有两个相同的混，其它人打出一张相同的混，不能碰"
        if meld.type == "pung" or not params.hun_kong_claimed:
            raise RulesError(_("melds[{i}]: a discarded 混 ({tile}) is not claimed: "
                               "其它人打出一张相同的混，不能碰 (only the concealed kong "
                               "of four 混)").format(i=i, tile=meld.tiles[0]))


def score(declared: Declared, params: TianjinParams) -> Result:
    """Score a checked declared win under Tianjin."""
    wilds = wild_tiles(declared)
    _check_melds(declared, wilds, params)
    if not declared.self_drawn:
        return not_a_win(_("Tianjin wins only by self-draw (胡牌时只能自摸)"))
    if declared.hun_discarded:
        # "如果玩家把手上的混打出，算作小相公，该局此玩家不能胡牌"
        return not_a_win(_("小相公: the winner discarded a 混 this hand and cannot win it"))
    readings = _readings(declared, wilds)
    if not readings:
        return not_a_win(_("the tiles do not form a winning hand"))
    # "素的：只要求手中没有混，并且可以胡牌" - no 混 at all, whatever it would stand for.
    if not any(t in wilds for t in declared.full_hand) and not any(
            t in wilds for m in declared.melds for t in m.tiles):
        readings = [p | {"su"} for p in readings]
    if declared.kong:
        readings = [p | {"gang_kai"} for p in readings]    # "杠开番数翻倍"
    if not params.tiliu_wins:
        # "提溜：就是普通牌型…注：天津麻将中，不能和提溜"
        readings = [p for p in readings if p & set(PATTERNS)]
        if not readings:
            return not_a_win(_("a plain hand (提溜) does not win in Tianjin: it needs 素, "
                               "混吊, 捉五 or 龙 (不能和提溜)"))

    def value(patterns: set[str]) -> int:
        out = params.base
        for name in patterns:
            out *= getattr(params, name)
        return out

    best = max(readings, key=lambda p: (value(p), sorted(p)))
    fans = [Fan("Win", "胡", params.base)] + [Fan(NAMES[n][1], NAMES[n][0], getattr(params, n))
            for n in (*PATTERNS, "gang_kai") if n in best]
    total = value(best)
    return Result(True, "", fans, total, True, payments(declared, total, params))


def doubling(facts: Declared | Drawn, seat: int) -> int:
    """How many times a payment between the dealer (East) and `seat` doubles: once for
    坐庄, once for each 拉庄 of that non-dealer ("每拉一庄倍数加倍"); 1 between two others
    ("其他闲家付分不加倍")."""
    factor = 2 if facts.zuozhuang else 1
    return factor * 2 ** facts.lazhuang.get(seat, 0)


def payments(declared: Declared, total: int, params: TianjinParams) -> dict[int, int]:
    """Each loser pays the total, doubled to and from the dealer; then 铲."""
    winner = declared.seat_wind
    out = dict.fromkeys(range(4), 0)
    for seat in range(4):
        if seat == winner:
            continue
        factor = doubling(declared, max(seat, winner)) if 0 in (seat, winner) else 1
        out[seat] -= total * factor
        out[winner] += total * factor
    return add_chan(out, declared, params)


def add_chan(out: dict[int, int], facts: Declared | Drawn,
             params: TianjinParams) -> dict[int, int]:
    """铲, after the hand's own payments, won or drawn: "在正常结算之后（无论是否流局），由庄家
    付给三个闲家每人一个明杠的分…坐庄和拉庄都要翻番"."""
    if facts.chan:
        for seat in (1, 2, 3):
            owed = params.chan * doubling(facts, seat)
            out[0] -= owed
            out[seat] += owed
    return out


def score_drawn(drawn: Drawn, params: TianjinParams) -> Result:
    """A drawn hand (流局): nobody wins; 铲 is still paid."""
    return drawn_result(add_chan(dict.fromkeys(range(4), 0), drawn, params))
