"""Fuzhou (福州/福建): sixteen tiles, honours as flowers, and the 金 that stands for any tile.

The rule book's page gives three ways of pricing a win; `scheme` picks one (docs/scoring.md,
Fuzhou). Each number below names the page's line it rests on.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from mjtable_core.schema import option

from ..errors import RulesError
from ..i18n import _
from ..rulebook import Variant
from .declared import Declared, Wall
from .drawn import Drawn, drawn_result
from .result import Fan, Result, not_a_win
from .shapes import arrangements, counts_of

STAKE = 1_000_000      # no table's stake is above it; a bigger number is a typo
MULTIPLE = 1000


@dataclass(frozen=True)
class FuzhouParams:
    """Choices among the page's schemes and numbers (docs/scoring.md).

    scheme: "bianfeng" (底分 + 花分, the page's worked payments: the default), "simple"
        ("屁胡一番…游金3番", the first of its two 游金 schemes) or "daoke" ("屁胡5番…游金15番").
    base: 底分, the stake; each flower, 金 and kong is worth it too ("每朵花的银两与底分相同").
    pinghu: 平胡 (no flower, no kong) as a multiple of the base ("平胡的得分按抢金计算").
    qiangjin: 抢金 as a multiple of the base ("抢金的底分按牌局底分的３０倍计").
    sanjindao: 三金倒 as a multiple of the base. The page prices it twice, 40 and 60; the
        60 stands in the line where 金雀 (60) belongs, so 40 is the default.
    jinque: 金雀 (the pair made of two 金) ("金雀的底分按牌局底分的6０倍计").
    discard_multiplier: the discarder pays this times the win ("出冲的一方付出…２倍").
    """

    scheme: str = option("bianfeng", choices=("bianfeng", "simple", "daoke"))
    base: int = option(1, minval=1, maxval=STAKE)
    pinghu: int = option(30, minval=1, maxval=MULTIPLE)
    qiangjin: int = option(30, minval=1, maxval=MULTIPLE)
    sanjindao: int = option(40, minval=1, maxval=MULTIPLE)
    jinque: int = option(60, minval=1, maxval=MULTIPLE)
    discard_multiplier: int = option(2, minval=1, maxval=10)


SEASONS, PLANTS = ("H1", "H2", "H3", "H4"), ("H5", "H6", "H7", "H8")


def _flower_points(declared: Declared, golds: int) -> tuple[int, list[Fan]]:
    """花分 in flowers: each flower 1, four alike (four 东, or 春夏秋冬) 6, an exposed kong 1
    and a concealed kong 2 ("一个明杠算一朵花，一个暗杠算两朵花"), each 金 held 1; the caller
    prices a flower at the base ("每朵花的银两与底分相同", "每张金的银两与底分相同")."""
    fans: list[Fan] = []
    flowers = declared.flowers
    fours = _four_alike(declared)
    if fours:
        fans.append(Fan("Four Alike Flowers", "四花", 6, len(fours)))
        flowers -= 4 * len(fours)
    if flowers:
        fans.append(Fan("Flower", "花", 1, flowers))
    exposed = sum(1 for m in declared.melds if m.type == "kong" and not m.concealed)
    hidden = sum(1 for m in declared.melds if m.type == "kong" and m.concealed)
    if exposed:
        fans.append(Fan("Exposed Kong", "明杠", 1, exposed))
    if hidden:
        fans.append(Fan("Concealed Kong", "暗杠", 2, hidden))
    if golds:
        fans.append(Fan("Gold", "金", 1, golds))
    return sum(f.points * f.count for f in fans), fans


def _four_alike(declared: Declared) -> list[str]:
    """"抓齐４个一样的花（如４个东或者春夏秋冬一套）": four alike, or a season or plant set."""
    held = Counter(declared.flower_tiles)
    fours = [code for code, n in held.items() if n == 4]
    return fours + [name for name, group in (("春夏秋冬", SEASONS), ("梅兰竹菊", PLANTS))
                    if all(held[c] for c in group)]


def _shapes(declared: Declared) -> tuple[bool, bool, bool]:
    """(a winning shape, 金雀 reading, 游金 reading) of the standing tiles and the draw."""
    gold = declared.wild
    sets = 5 - len(declared.melds)
    plain = [t for t in declared.full_hand if t != gold]
    wilds = len(declared.full_hand) - len(plain)
    readings = arrangements(counts_of(plain), wilds, sets)
    # 金雀: two 金 as the pair, as themselves.
    jinque = wilds >= 2 and bool(arrangements(counts_of(plain), wilds - 2, sets, pair=False))
    # 游金: a 金 held alone pairs with whatever is drawn.
    held = [t for t in declared.concealed if t != gold]
    youjin = (declared.self_drawn and len(held) < len(declared.concealed)
              and bool(arrangements(counts_of(held), len(declared.concealed) - len(held) - 1,
                                    sets, pair=False)))
    return bool(readings), jinque, youjin


def reserve(deal: Variant, wall: Wall) -> int:
    """Tiles left unplayed when the hand is drawn: "一般情况下最后留18张，但每当有人有一个明杠
    则多留一张，有一个暗杠则多留两张（4个一样的花也算暗杠多留两张）"; the 18 is the deal row's
    `reserve`."""
    base = deal.reserve
    return base + wall.exposed_kongs + 2 * (wall.concealed_kongs + wall.flower_sets)


def _check_wall(declared: Declared, wall: Wall) -> int:
    left = reserve(declared.deal, wall)
    held = _four_alike(declared)
    if len(held) > wall.flower_sets:
        raise RulesError(_("wall.flower_sets: the winner alone holds {n} sets of four alike "
                           "flowers").format(n=len(held)))
    if wall.tiles_left < left:
        raise RulesError(_("wall.tiles_left: {got} is below the {left} tiles left unplayed "
                           "(18, +1 an exposed kong, +2 a concealed kong or four alike "
                           "flowers)").format(got=wall.tiles_left, left=left))
    if not declared.self_drawn and wall.tiles_left < left + 4:
        # "最后可抓的4张牌…为最后一出牌，最后一出牌不再补花和出牌": nothing is discarded.
        raise RulesError(_("wall.tiles_left: the last four tiles are drawn without discards "
                           "(最后一出牌不再…出牌), so no win on a discard"))
    return left


def score_drawn(drawn: Drawn, params: FuzhouParams) -> Result:
    """A drawn hand (和局): nobody pays; with its wall, the tiles left must be the reserve:
    "最后可抓的4张牌…如果４人均没自摸，即为和局"."""
    if drawn.wall is None:
        return drawn_result(dict.fromkeys(range(4), 0))
    left = reserve(drawn.deal, drawn.wall)
    if drawn.wall.tiles_left != left:
        raise RulesError(_("wall.tiles_left: a hand is drawn when only the {left} tiles left "
                           "unplayed remain, not {got}").format(left=left,
                                                                got=drawn.wall.tiles_left))
    return drawn_result(dict.fromkeys(range(4), 0), reserve=left)


def _loses_priority(declared: Declared, jinque: bool) -> bool:
    """Several wins on one discard: "在一人以上听同一张牌时，不论位置先后，金雀优先胡";
    among equals the first in turn from the discarder, as the rule books order them."""
    if not declared.also_won:
        return False
    discarder = declared.seat_of(declared.discarder)
    mine = (not jinque, (declared.seat_wind - discarder) % 4)
    return any((not c.jinque, (c.seat - discarder) % 4) < mine for c in declared.also_won)


def score(declared: Declared, params: FuzhouParams) -> Result:
    """Score a checked declared win under Fuzhou."""
    notes = {}
    if declared.wall is not None:
        notes["reserve"] = _check_wall(declared, declared.wall)
    golds = declared.full_hand.count(declared.wild)
    shape, jinque, youjin = _shapes(declared)
    sanjindao = golds >= 3     # "只要抓到三只金，就可胡牌，不用根据基本牌型"
    if not (shape or sanjindao):
        return not_a_win(_("the tiles do not form a winning hand"), failed=True)
    if _loses_priority(declared, jinque):
        return not_a_win(_("another win on the same discard comes first (金雀优先胡, then "
                           "the turn from the discarder)"))
    result = _priced(declared, params, golds, sanjindao, jinque, youjin)
    result.notes.update(notes)
    return result


def _priced(declared: Declared, params: FuzhouParams, golds: int, sanjindao: bool,
            jinque: bool, youjin: bool) -> Result:
    flower_points, flower_fans = _flower_points(declared, golds)
    dealer = declared.seat_wind == 0
    if params.scheme == "bianfeng":
        return _bianfeng(declared, params, flower_points, flower_fans, sanjindao, jinque)
    if declared.qiangjin:
        raise RulesError(_("qiangjin: priced only in the bianfeng scheme (抢金的底分按牌局底分的"
                           "３０倍计)"))
    # The page's two 番 schemes: 屁胡 / 自摸 / 游金, doubled for the dealer.
    kind = "youjin" if youjin else "zimo" if declared.self_drawn else "pihu"
    names = {"pihu": ("屁胡", "Plain Win"), "zimo": ("自摸", "Self-Drawn"),
             "youjin": ("游金", "Swimming Gold")}
    if params.scheme == "simple":
        # "屁胡一番…自摸两番…游金3番…两个花一番，一个金一番，光杠1番，暗杠2番"
        base = {"pihu": 1, "zimo": 2, "youjin": 3}[kind] * (2 if dealer else 1)
        extra = declared.flowers // 2 + golds + sum(
            (2 if m.concealed else 1) for m in declared.melds if m.type == "kong")
        fans = [Fan(names[kind][1], names[kind][0], base)]
        if extra:
            fans.append(Fan("Flowers, Gold and Kongs", "花金杠", extra))
        total = base + extra
    else:
        # "屁胡5番，庄家10翻，自摸10番，庄家20番。游金15番，庄家30番" + 番 × 1, 2 or 3:
        # "4番屁糊，散家就是5+4=9番 … 4番自摸散家是10+4*2=18番 … 4番游金散家是15+4*3=27番"
        base = {"pihu": 5, "zimo": 10, "youjin": 15}[kind] * (2 if dealer else 1)
        extra = (declared.flowers + golds) * {"pihu": 1, "zimo": 2, "youjin": 3}[kind]
        fans = [Fan(names[kind][1], names[kind][0], base)]
        if extra:
            fans.append(Fan("Flowers and Gold", "花金", extra))
        total = base + extra
    # "那就是一人11番": every other player pays the total.
    payments = {s: -total for s in range(4) if s != declared.seat_wind}
    payments[declared.seat_wind] = 3 * total
    return Result(True, "", fans, total, True, payments)


def _bianfeng(declared: Declared, params: FuzhouParams, flower_points: int,
              flower_fans: list[Fan], sanjindao: bool, jinque: bool) -> Result:
    """"普通胡牌的银两计算为底分＋花分，自摸的计分为（底分＋花分）Ｘ2"; the special wins: their
    multiple of the base, "花牌的分数按自摸计". A flower, a 金 and a kong's flowers are each
    worth the base: "每朵花的银两与底分相同", "每张金的银两与底分相同"."""
    base = params.base
    flower_fans = [Fan(f.name_en, f.name_zh, f.points * base, f.count) for f in flower_fans]
    flower_value = flower_points * base
    specials = []
    no_kong = not any(m.type == "kong" for m in declared.melds)
    if declared.qiangjin:
        specials.append((params.qiangjin, "抢金", "Robbing the Gold"))
    if declared.flowers == 0 and no_kong:
        specials.append((params.pinghu, "平胡", "No Flowers"))
    if sanjindao:
        specials.append((params.sanjindao, "三金倒", "Three Golds"))
    if jinque:
        specials.append((params.jinque, "金雀", "Golden Pair"))
    if specials:
        multiple, zh, en = max(specials)
        fans = [Fan(en, zh, base * multiple), *_doubled(flower_fans)]
        total = base * multiple + 2 * flower_value
    else:
        factor = 2 if declared.self_drawn else 1
        fans = [Fan("Stake", "底分", base * factor)]
        fans += _doubled(flower_fans) if factor == 2 else flower_fans
        total = (base + flower_value) * factor
    if declared.self_drawn:
        owed = {s: total for s in range(4) if s != declared.seat_wind}
    elif declared.discarder is None:
        return Result(True, "", fans, total, True, {})
    else:
        owed = {declared.seat_of(declared.discarder): total * params.discard_multiplier}
    payments = {s: -owed.get(s, 0) for s in range(4) if s != declared.seat_wind}
    payments[declared.seat_wind] = sum(owed.values())
    return Result(True, "", fans, total, True, payments)


def _doubled(fans: list[Fan]) -> list[Fan]:
    return [Fan(f.name_en, f.name_zh, 2 * f.points, f.count) for f in fans]
