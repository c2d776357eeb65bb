"""Tianjin 混 mahjong: the dealer's own wall, the 混, self-drawn wins, 坐庄 and 拉庄."""

from __future__ import annotations

from ..rulebook import BASE_DEAL, DealerRule, Variant, VariantRules
from ..scoring.tianjin import TianjinParams, score, score_drawn

RULES = VariantRules(
    name="tianjin", order=3,
    # Seed 001: "从自己面前的牌墩从右向左数，数到'两个筛子点数之和+1'那一墩开始拿牌".
    deal=Variant(name="tianjin", tiles=136, stacks_per_wall=17, flowers=(),
                 replacement="none", **{**BASE_DEAL, "break_wall": "dealer", "wild": "hun"}),
    # "庄家胡牌，则庄家继续做庄，闲家胡牌，则现任庄家的下一家坐庄…流局，
    #  当盘的庄家继续做下一盘的庄家"
    dealer=DealerRule(after_win=True, after_draw=True),
    score=score,
    score_drawn=score_drawn,
    params=TianjinParams,
    keys=frozenset({"hun", "zuozhuang", "lazhuang", "chan", "hun_discarded"}),
)
