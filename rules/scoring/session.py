"""A session at one table: scores per position hand by hand, rounds and the prevalent
wind, and who deals next by the variant's rule.

Positions are the table's 0-3 (docs/rules.md, Coordinates); a hand's answer pays by seat
wind, and the dealer of that hand is East, so seat wind w sits at (dealer + w) mod 4.
The state is a plain dict (`as_dict` / `from_dict`) so the firmware can keep it with the
same care as its journal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import RulesError
from ..i18n import _
from .declared import VARIANTS, WIND_LETTERS


@dataclass(frozen=True)
class DealerRule:
    """Whether the dealer deals again after his own win and after a drawn hand."""

    after_win: bool
    after_draw: bool


# Each rule with the rule book's words (docs/scoring.md, "Who deals next").
DEALER_RULES = {
    # "庄家、旁家：门风东者为庄家其余均为旁家。无论是否和牌庄家不连庄。"
    "mcr": DealerRule(after_win=False, after_draw=False),
    "jingji": DealerRule(after_win=False, after_draw=False),
    # "如果庄家和牌或流局则下盘依然由该庄家做庄。如果非庄家和牌则下一盘由庄家的下家玩家做庄。"
    "guangdong": DealerRule(after_win=True, after_draw=True),
    # "庄家胡牌，则庄家继续做庄，闲家胡牌，则现任庄家的下一家坐庄…流局，
    #  当盘的庄家继续做下一盘的庄家"
    "tianjin": DealerRule(after_win=True, after_draw=True),
    # "庄家如果胡牌，则下一把可继续连庄，否则即由庄家的下家做庄"
    "fuzhou": DealerRule(after_win=True, after_draw=False),
}
# The competition's standard points per table: "每桌每局按4、2、1、0折算标准分".
STANDARD_POINTS = (4, 2, 1, 0)
ROUNDS_PER_GAME = 4     # 圈: East, South, West, North ("每打完四圈…为一局")


@dataclass
class Session:
    """The running score of one table (see the module doc)."""

    variant: str
    first_dealer: int
    dealer: int = -1
    prevalent: int = 0                 # 0 E .. 3 N
    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    hands: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise RulesError(_("variant: unknown {name} (known: {known})").format(
                name=repr(self.variant), known=", ".join(VARIANTS)))
        if self.first_dealer not in range(4):
            raise RulesError(_("first_dealer: {got} is not a position 0-3").format(
                got=self.first_dealer))
        if self.dealer == -1:
            self.dealer = self.first_dealer

    @property
    def finished(self) -> bool:
        """Four rounds played: the game (局) is over."""
        return self.prevalent >= ROUNDS_PER_GAME

    def position_of(self, wind: str) -> int:
        """The table position of seat wind `wind` in the hand being played."""
        return (self.dealer + WIND_LETTERS.index(wind)) % 4

    def record(self, winner: str | None, payments: dict[str, int], cycle: int | None = None
               ) -> dict:
        """Book one hand: `winner` its seat wind (None for a drawn hand), `payments` the
        answer's by seat wind. Returns the hand's record and moves the dealer."""
        if self.finished:
            raise RulesError(_("the game is over: four rounds were played"))
        if sum(payments.values()) != 0:
            raise RulesError(_("payments: they sum to {total}, not 0").format(
                total=sum(payments.values())))
        by_position = {self.position_of(w): p for w, p in payments.items()}
        for position, points in by_position.items():
            self.scores[position] += points
        record = {"hand": len(self.hands) + 1, "cycle": cycle, "dealer": self.dealer,
                  "prevalent_wind": WIND_LETTERS[self.prevalent],
                  "winner": None if winner is None else self.position_of(winner),
                  "payments": {str(k): v for k, v in sorted(by_position.items())},
                  "scores": list(self.scores)}
        self.hands.append(record)
        self._next_dealer(record["winner"])
        return record

    def _next_dealer(self, winner: int | None) -> None:
        rule = DEALER_RULES[self.variant]
        keeps = rule.after_draw if winner is None else (rule.after_win and
                                                         winner == self.dealer)
        if keeps:
            return
        self.dealer = (self.dealer + 1) % 4     # 下家: play runs counter-clockwise
        if self.dealer == self.first_dealer:
            self.prevalent += 1                 # every position has dealt: the next round

    def standard_points(self) -> list[float]:
        """The competition's 4-2-1-0 by this game's scores; tied positions share the
        points of the places they hold."""
        order = sorted(range(4), key=lambda p: -self.scores[p])
        out = [0.0] * 4
        place = 0
        while place < 4:
            tied = [p for p in order if self.scores[p] == self.scores[order[place]]]
            share = sum(STANDARD_POINTS[place:place + len(tied)]) / len(tied)
            for p in tied:
                out[p] = share
            place += len(tied)
        return out

    def as_dict(self) -> dict:
        return {"variant": self.variant, "first_dealer": self.first_dealer,
                "dealer": self.dealer, "prevalent": self.prevalent,
                "scores": list(self.scores), "hands": list(self.hands)}

    @classmethod
    def from_dict(cls, saved: dict) -> Session:
        return cls(saved["variant"], saved["first_dealer"], saved["dealer"],
                   saved["prevalent"], list(saved["scores"]), list(saved["hands"]))
