"""The competition (竞技): MCR with the tournament's supplementary rules (补充细则)."""

from __future__ import annotations

from dataclasses import replace

from ..rulebook import BASE_DEAL, DealerRule, Variant, VariantRules
from ..scoring.mcr import score
from ..tiles import FLOWERS
from .mcr import COMPETITION_FINES

RULES = VariantRules(
    name="jingji", order=1,
    # Seed 001: "如7即为从对家的第七墩抓牌" - the dealer grabs the 7th stack itself.
    deal=Variant(name="jingji", tiles=144, stacks_per_wall=18, flowers=FLOWERS,
                 replacement="depth_first", **{**BASE_DEAL, "head_offset": 0}),
    dealer=DealerRule(after_win=False, after_draw=False),
    score=score,
    keys=frozenset({"also_won"}),
    # The supplement (4): ""诈和""错和"后允许自摸和牌" - where the rule book's 第十四条
    # stops the fined player winning at all (停和).
    fines=replace(COMPETITION_FINES, self_drawn_after=True),
)
