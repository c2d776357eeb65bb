"""MCR (国标) and the competition's supplements: fans from PyMahjongGB, the rest ours.

PyMahjongGB counts fans and nothing else: it scores five copies of a tile, takes a meld
with no discarder as concealed and never applies the 8-point minimum. `read_declared`
has refused every impossible hand before we get here; this module adds the minimum
(flowers not counting toward it) and the payments.
"""

from __future__ import annotations

from MahjongGB import MahjongFanCalculator, MahjongShanten

from ..errors import RulesError
from ..i18n import _
from .declared import Declared, Meld
from .mcr_fans import BASE, BY_NAME, FLOWER_FAN, MINIMUM
from .result import Fan, Result, not_a_win, pay

_OFFER = {"left": 1, "across": 2, "right": 3}


def _pack(meld: Meld) -> tuple[str, str, int]:
    if meld.type == "chow":
        # The middle tile, and which of the three (1..3) was taken from the left.
        return ("CHI", meld.tiles[1], meld.tiles.index(meld.claimed) + 1)
    offer = 0 if meld.source is None else _OFFER[meld.source]
    return ("PENG" if meld.type == "pung" else "GANG", meld.tiles[0], offer)


def calculator_fans(declared: Declared) -> list[Fan] | None:
    """PyMahjongGB's fans for a checked hand, or None when the tiles do not form a win."""
    try:
        found = MahjongFanCalculator(
            pack=tuple(_pack(m) for m in declared.melds), hand=declared.concealed,
            winTile=declared.win_tile, flowerCount=declared.flowers,
            isSelfDrawn=declared.self_drawn, is4thTile=declared.fourth_tile,
            isAboutKong=declared.kong, isWallLast=declared.last_tile,
            seatWind=declared.seat_wind, prevalentWind=declared.prevalent_wind, verbose=True)
    except TypeError as exc:
        if str(exc) == "ERROR_NOT_WIN":
            return None
        # Our checks should have refused anything else the calculator refuses.
        raise RulesError(_("the hand is impossible: {problem}").format(problem=exc)) from None
    return [Fan(en, zh, points, count) for points, count, zh, en in found]


# Seed, the competition's supplementary rules (补充细则):
# (11) "A、同时有一明杠和一暗杠，计明杠1分、暗杠2分。B、三杠中含有暗杠……只计三杠32分，
#      不另计暗杠分。C、四杠只记88分，不记暗杠分。"
# (12) "七对胡牌只能加计清一色，混一色，四归一，海底捞月，妙手回春，自摸，断幺九，无字，
#      缺一门，其余不计"
SEVEN_PAIRS_COMPANIONS = frozenset({"清一色", "混一色", "四归一", "海底捞月", "妙手回春", "自摸",
                                    "断幺", "无字", "缺一门", FLOWER_FAN, "七对"})
_CONCEALED_KONG_FANS = frozenset({"暗杠", "双暗杠", "明暗杠"})


def competition_fans(fans: list[Fan]) -> list[Fan]:
    """MCR's fans turned into the competition's by its supplementary rules."""
    names = {f.name_zh for f in fans}
    out = list(fans)
    if "明暗杠" in names:
        out = [f for f in out if f.name_zh != "明暗杠"]
        out += [_fan("明杠"), _fan("暗杠")]
    if names & {"三杠", "四杠"}:
        out = [f for f in out if f.name_zh not in _CONCEALED_KONG_FANS]
    if "七对" in names:
        out = [f for f in out if f.name_zh in SEVEN_PAIRS_COMPANIONS]
    return out


def _fan(zh: str) -> Fan:
    _, en, points = BY_NAME[zh]
    return Fan(en, zh, points)


def shanten(declared: Declared) -> int:
    """Tiles the hand before the winning tile is short of waiting (0: waiting), in any of
    MCR's forms; PyMahjongGB's count."""
    return MahjongShanten(pack=tuple(_pack(m) for m in declared.melds),
                          hand=declared.concealed)


def first_in_turn(declared: Declared) -> bool:
    """Of several wins on one discard, whether this one is the first in turn from the
    discarder: "一盘只能有一位和牌者。如有一人以上同时表示和牌时从打牌者按逆时针方向，
    顺序在前者被定为'和牌者'"."""
    discarder = declared.seat_of(declared.discarder)
    mine = (declared.seat_wind - discarder) % 4
    return all(mine < (c.seat - discarder) % 4 for c in declared.also_won)


def score(declared: Declared, params: None = None) -> Result:
    """Score a checked declared win under MCR, or the competition's supplements."""
    fans = calculator_fans(declared)
    if fans is None:
        return not_a_win(_("the tiles do not form a winning hand"), failed=True,
                         short=shanten(declared))
    if declared.variant == "jingji":
        fans = competition_fans(fans)
    total = sum(f.points * f.count for f in fans)
    counted = total - sum(f.points * f.count for f in fans if f.name_zh == FLOWER_FAN)
    if counted < MINIMUM:
        return not_a_win(_("{points} points without flowers: below the {minimum}-point "
                           "minimum").format(points=counted, minimum=MINIMUM), fans, total,
                         failed=True)
    if declared.also_won and not first_in_turn(declared):
        return not_a_win(_("another player nearer the discarder in turn won on it (一盘只能有"
                           "一位和牌者)"), fans, total)
    # "自摸：(底分+基本分)×3方；点和：底分×3方(未和牌方)＋基本分×1方(点和方)"
    return Result(True, "", fans, total, True,
                  pay(declared, each=BASE + (total if declared.self_drawn else 0),
                      discarder_extra=0 if declared.self_drawn else total))
