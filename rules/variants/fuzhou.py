"""Fuzhou (福州/福建): sixteen tiles, honours as flowers, the 金, and 18 tiles left."""

from __future__ import annotations

from ..rulebook import BASE_DEAL, DealerRule, Variant, VariantRules
from ..scoring.fuzhou import FuzhouParams, score, score_drawn
from ..tiles import FLOWERS, HONOURS

RULES = VariantRules(
    name="fuzhou", order=4,
    # "一般情况下最后留18张" - the reserve; kongs and four alike flowers add to it (wall).
    deal=Variant(name="fuzhou", tiles=144, stacks_per_wall=18, flowers=FLOWERS + HONOURS,
                 replacement="round_robin",
                 **{**BASE_DEAL, "deal": "16+1", "wild": "gold", "reserve": 18}),
    # "庄家如果胡牌，则下一把可继续连庄，否则即由庄家的下家做庄"
    dealer=DealerRule(after_win=True, after_draw=False),
    score=score,
    score_drawn=score_drawn,
    params=FuzhouParams,
    keys=frozenset({"gold", "also_won", "qiangjin", "wall"}),
)
