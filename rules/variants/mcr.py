"""MCR (国标), the Chinese Official rules: the deal, the dealer, the scorer and the fines.

The rule book fixes every value, so MCR has no scoring parameters (docs/scoring.md).
"""

from __future__ import annotations

from ..rulebook import BASE_DEAL, DealerRule, Fines, Variant, VariantRules
from ..scoring.mcr import score
from ..tiles import FLOWERS

# Seed 000, 第十四条 违例行为及处罚: "错和…罚向各家支付10分", "诈和…罚给各家20分",
# "有意诈和…应予取消比赛资格"; the supplement (4): ""错和"者赔每家10分"诈和"赔每家20分".
COMPETITION_FINES = Fines(wrong=10, false=20, disqualifies=True)

RULES = VariantRules(
    name="mcr", order=0,
    deal=Variant(name="mcr", tiles=144, stacks_per_wall=18, flowers=FLOWERS,
                 replacement="depth_first", **{**BASE_DEAL, "break_throws": 2}),
    # "庄家、旁家：门风东者为庄家其余均为旁家。无论是否和牌庄家不连庄。"
    dealer=DealerRule(after_win=False, after_draw=False),
    score=score,
    keys=frozenset({"also_won"}),
    fines=COMPETITION_FINES,
)
