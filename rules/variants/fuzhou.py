"""Fuzhou (福州/福建): sixteen tiles, honours as flowers, the 金, and 18 tiles left."""

from __future__ import annotations

from dataclasses import dataclass

from mjtable_core.schema import option

from ..tiles import FLOWERS, HONOURS
from ._spec import BASE_DEAL, DealerRule, Variant, VariantRules

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


RULES = VariantRules(
    name="fuzhou", order=4,
    # "一般情况下最后留18张" - the reserve; kongs and four alike flowers add to it (wall).
    deal=Variant(name="fuzhou", tiles=144, stacks_per_wall=18, flowers=FLOWERS + HONOURS,
                 replacement="round_robin",
                 **{**BASE_DEAL, "deal": "16+1", "wild": "gold", "reserve": 18}),
    # "庄家如果胡牌，则下一把可继续连庄，否则即由庄家的下家做庄"
    dealer=DealerRule(after_win=True, after_draw=False),
    scorer="rules.scoring.fuzhou:score",
    drawn="rules.scoring.fuzhou:score_drawn",
    params=FuzhouParams,
    keys=frozenset({"gold", "also_won", "qiangjin", "wall"}),
)
