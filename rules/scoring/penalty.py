"""A failed declaration of a win, fined as the variant's rule book says (its `Fines`).

Seed 000 (中国麻将竞赛规则, 第十四条 违例行为及处罚):
"错和：和牌没有达到起和分(8分)而宣布和牌者即予停和，并罚向各家支付10分";
"和错牌。听牌以后误以为他人打出的牌是自己的和牌，从而宣布和牌(处罚同错和)";
"诈和，尚差一张牌才能听牌却误以为已经听牌…本盘停和并罚给各家20分";
"有意诈和。差两张以上的牌才能听牌却宣布和牌，即为有意诈和应予取消比赛资格".
The hand goes on after a fine ("该盘继续比赛"): the fine is booked beside the hand's
result, never instead of it.
"""

from __future__ import annotations

from dataclasses import replace

from ..i18n import _
from ..rulebook import Fines
from .declared import Declared
from .result import Penalty, Result

WRONG = ("Declared Win Below the Minimum or on a Wrong Tile", "错和")
FALSE = ("False Declaration, One Tile Short of Waiting", "诈和")
DELIBERATE = ("Deliberate False Declaration", "有意诈和")


def fined(declared: Declared, result: Result, fines: Fines) -> Result:
    """`result` (a failed declaration) with its fine: the declarer pays each other player."""
    short = result.short
    if short is None or short == 0:
        (en, zh), each, out = WRONG, fines.wrong, False
    elif short == 1:
        (en, zh), each, out = FALSE, fines.false, False
    else:
        # 有意诈和 is a 诈和 as the supplement prices it (""诈和"赔每家20分"), and more.
        (en, zh), each, out = DELIBERATE, fines.false, fines.disqualifies
    winner = declared.seat_wind
    payments = {s: each for s in range(4) if s != winner}
    payments[winner] = -3 * each
    reason = result.reason + "; " + _("{name}: the declarer pays each player {each}").format(
        name=zh, each=each)
    if out:
        reason += "; " + _("disqualified (取消比赛资格)")
    return replace(result, reason=reason, payments=payments,
                   penalty=Penalty(en, zh, each, out))
