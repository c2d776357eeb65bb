"""A hand's deal and its score together: the scores file beside the deal records.

Each score line names its hand's `cycle` and the deal's `commitment`; a line whose
commitment is not the deal record of its cycle is reported, never shown as that hand's.
"""

from __future__ import annotations

import json
from typing import Any

from ..i18n import _


def pair_scores(records: list[tuple[int, dict[str, Any] | None]],
                score_lines: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Each dealt hand with its score line (or none), and the problems found."""
    # Both files may be crafted: only the shapes the firmware writes are paired.
    deals = {r["table"]["cycle"]: r for _, r in records
             if isinstance(r, dict) and isinstance(r.get("table"), dict)
             and _cycle(r["table"].get("cycle")) and isinstance(r.get("commitment"), str)}
    scores: dict[int, dict[str, Any]] = {}
    problems: list[str] = []
    for number, line in enumerate(score_lines, start=1):
        if not line.strip():
            continue
        try:
            score = json.loads(line)
        except (ValueError, RecursionError):    # not JSON, or nested past the parser
            problems.append(_("scores line {line}: not JSON").format(line=number))
            continue
        cycle = score.get("cycle") if isinstance(score, dict) else None
        deal = deals.get(cycle) if _cycle(cycle) else None
        if deal is None or deal.get("commitment") != score.get("commitment"):
            problems.append(_("scores line {line}: no deal record of cycle {cycle} with its "
                              "commitment").format(line=number,
                                                   cycle=cycle if _cycle(cycle) else "?"))
            continue
        if "fine" in score:
            continue    # a failed declaration's fine: the hand's result is its own line
        # A drawn hand pays only where its rule book says so (Tianjin's 铲), and its
        # answer says it was drawn.
        answer = score.get("answer")
        drawn_pays = isinstance(answer, dict) and answer.get("drawn") is True
        if score.get("hand") is not None and not _hand(score["hand"], drawn_pays):
            problems.append(_("scores line {line}: not a scored hand (winner and "
                              "payments)").format(line=number))
            continue
        scores[cycle] = _beside(scores.get(cycle), score)
    hands = [{"cycle": cycle, "commitment": deal["commitment"],
              "dealer_position": deal["table"].get("dealer_position"),
              "score": scores.get(cycle, {}).get("hand")}
             for cycle, deal in sorted(deals.items())]
    return hands, problems


def _beside(kept: dict[str, Any] | None, score: dict[str, Any]) -> dict[str, Any]:
    """A cycle's score line after `kept`: another winner on the same discard (Guangdong's
    一炮多响, one line each, named in the first's `also_won`) joins the hand, its payments
    added; any other line replaces it (a cut between line and journal has the hand entered
    again: the last line stands)."""
    before, hand = (kept or {}).get("hand"), score.get("hand")
    if not (isinstance(before, dict) and isinstance(hand, dict)
            and before.get("winner") is not None and hand.get("winner") is not None
            and hand["winner"] in before.get("also_won", ())
            and hand["winner"] not in before.get("winners", [before["winner"]])):
        return score
    payments = dict(before["payments"])
    for seat, points in hand["payments"].items():
        payments[seat] = payments.get(seat, 0) + points
    return {**score, "hand": {**hand, "winner": before["winner"],
                              "winners": [*before.get("winners", [before["winner"]]),
                                          hand["winner"]], "payments": payments}}


def _cycle(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _hand(value: Any, drawn_pays: bool = False) -> bool:
    """A scored hand as the firmware writes it: a winner (or none) and payments, which
    pass between the players (they sum to zero) and only when someone won, or on a draw
    the rule book prices (`drawn_pays`)."""
    if not (isinstance(value, dict) and (value.get("winner") is None or isinstance(
            value.get("winner"), int | str)) and isinstance(value.get("payments"), dict)):
        return False
    paid = list(value["payments"].values())
    return all(_cycle(v) for v in paid) and sum(paid) == 0 and (
        value.get("winner") is not None or drawn_pays or not any(paid))


def hand_line(hand: dict[str, Any]) -> str:
    """One hand as a person reads it: the deal's commitment, its dealer, its score."""
    score = hand["score"]
    if score is None:
        result = _("not scored")
    elif score["winner"] is None:
        result = _("drawn")
    elif "winners" in score:
        result = _("won by positions {winners}").format(
            winners=", ".join(str(w) for w in score["winners"]))
    else:
        result = _("won by position {winner}").format(winner=score["winner"])
    payments = "" if not score or not score["payments"] else " " + ", ".join(
        f"{p}:{v:+d}" for p, v in score["payments"].items())
    return _("cycle {cycle}: {commitment} dealer {dealer}: {result}").format(
        cycle=hand["cycle"], commitment=hand["commitment"][:15], dealer=hand["dealer_position"],
        result=result) + payments
