"""Tianjin 混 mahjong: the dealer's own wall, the 混, self-drawn wins, 坐庄 and 拉庄."""

from __future__ import annotations

from dataclasses import dataclass

from mjtable_core.schema import option

from ._spec import BASE_DEAL, DealerRule, Variant, VariantRules

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


RULES = VariantRules(
    name="tianjin", order=3,
    # Seed 001: "从自己面前的牌墩从右向左数，数到'两个筛子点数之和+1'那一墩开始拿牌".
    deal=Variant(name="tianjin", tiles=136, stacks_per_wall=17, flowers=(),
                 replacement="none", **{**BASE_DEAL, "break_wall": "dealer", "wild": "hun"}),
    # "庄家胡牌，则庄家继续做庄，闲家胡牌，则现任庄家的下一家坐庄…流局，
    #  当盘的庄家继续做下一盘的庄家"
    dealer=DealerRule(after_win=True, after_draw=True),
    scorer="rules.scoring.tianjin:score",
    drawn="rules.scoring.tianjin:score_drawn",
    params=TianjinParams,
    keys=frozenset({"hun", "zuozhuang", "lazhuang", "chan", "hun_discarded"}),
)
