"""Guangdong 鸡平和: three dice, no flowers, 番 doubling the stake up to 爆和."""

from __future__ import annotations

from ..rulebook import BASE_DEAL, DealerRule, Variant, VariantRules
from ..scoring.guangdong import GuangdongParams, score

RULES = VariantRules(
    name="guangdong", order=2,
    deal=Variant(name="guangdong", tiles=136, stacks_per_wall=17, flowers=(),
                 replacement="none", **{**BASE_DEAL, "dice": 3}),
    # "如果庄家和牌或流局则下盘依然由该庄家做庄。如果非庄家和牌则下一盘由庄家的下家玩家做庄。"
    dealer=DealerRule(after_win=True, after_draw=True),
    score=score,
    params=GuangdongParams,
    keys=frozenset({"also_won", "passed_win", "kong_robbed"}),
)
