"""Guangdong 鸡平和: three dice, no flowers, 番 doubling the stake up to 爆和."""

from __future__ import annotations

from dataclasses import dataclass

from mjtable_core.schema import option

from ._spec import BASE_DEAL, DealerRule, Variant, VariantRules


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


RULES = VariantRules(
    name="guangdong", order=2,
    deal=Variant(name="guangdong", tiles=136, stacks_per_wall=17, flowers=(),
                 replacement="none", **{**BASE_DEAL, "dice": 3}),
    # "如果庄家和牌或流局则下盘依然由该庄家做庄。如果非庄家和牌则下一盘由庄家的下家玩家做庄。"
    dealer=DealerRule(after_win=True, after_draw=True),
    scorer="rules.scoring.guangdong:score",
    params=GuangdongParams,
    keys=frozenset({"also_won", "passed_win", "kong_robbed"}),
)
