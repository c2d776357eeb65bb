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
from ..scoring.declared import WIND_LETTERS
from ..variants import REGISTRY, rules_of

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
    # Fines for failed declarations (错和, 诈和): in the scores, but no hand's result -
    # the hand went on ("该盘继续比赛") and is booked with `record` when it ends.
    fines: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        rules_of(self.variant)      # an unknown variant: one line
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

    def _book(self, payments: dict[str, int]) -> dict[int, int]:
        """Add `payments` (by seat wind, summing to 0) to the scores; by position."""
        if self.finished:
            raise RulesError(_("the game is over: four rounds were played"))
        if sum(payments.values()) != 0:
            raise RulesError(_("payments: they sum to {total}, not 0").format(
                total=sum(payments.values())))
        by_position = {self.position_of(w): p for w, p in payments.items()}
        for position, points in by_position.items():
            self.scores[position] += points
        return by_position

    def record(self, winner: str | None, payments: dict[str, int], cycle: int | None = None,
               discarder: str | None = None, also_won: tuple[str, ...] = ()) -> dict:
        """Book one hand: `winner` its seat wind (None for a drawn hand), `payments` the
        answer's by seat wind; with `also_won`, the others who won on the same discard
        (seat winds) and its `discarder`, kept for their own results (`also_won()`).
        Returns the hand's record and moves the dealer."""
        by_position = self._book(payments)
        record = {"hand": len(self.hands) + 1, "cycle": cycle, "dealer": self.dealer,
                  "prevalent_wind": WIND_LETTERS[self.prevalent],
                  "winner": None if winner is None else self.position_of(winner),
                  "payments": {str(k): v for k, v in sorted(by_position.items())},
                  "scores": list(self.scores)}
        if also_won and discarder is not None:
            record["discarder"] = self.position_of(discarder)
            record["also_won"] = sorted(self.position_of(w) for w in also_won)
        self.hands.append(record)
        self._next_dealer(record["winner"])
        return record

    def also_won(self, winner: str, payments: dict[str, int], cycle: int | None = None
                 ) -> dict:
        """Book another winner of the hand just booked, on the same discard (Guangdong:
        "允许一炮多响"): `winner` by the hand's seat winds, its own payments. The dealer moves
        as for the hand's winners together: he keeps the deal if he is one of them ("如果一炮
        多响包括庄家在内和牌,下一轮庄家继续当庄"), by the variant's rule after a win."""
        last = self.hands[-1] if self.hands else None
        if last is None or last["cycle"] != cycle or last["winner"] is None:
            raise RulesError(_("cycle {cycle}: no win of this hand is booked to win beside"
                               ).format(cycle=cycle))
        if sum(payments.values()) != 0:
            raise RulesError(_("payments: they sum to {total}, not 0").format(
                total=sum(payments.values())))
        # The hand as it was dealt: its dealer and wind, before the first winner moved them.
        self.dealer = last["dealer"]
        self.prevalent = WIND_LETTERS.index(last["prevalent_wind"])
        position = self.position_of(winner)
        winners = [h["winner"] for h in self.hands if h["cycle"] == cycle]
        if position in winners:
            raise RulesError(_("position {position} has already won this hand").format(
                position=position))
        by_position = {self.position_of(w): p for w, p in payments.items()}
        for seat, points in by_position.items():
            self.scores[seat] += points
        record = {**last, "winner": position,
                  "payments": {str(k): v for k, v in sorted(by_position.items())},
                  "scores": list(self.scores)}
        self.hands.append(record)
        self._next_dealer(self.dealer if self.dealer in [*winners, position] else position)
        return record

    def fine(self, declarer: str, payments: dict[str, int], penalty: dict,
             cycle: int | None = None) -> dict:
        """Book a failed declaration's fine (`payments` by seat wind, the answer's) in the
        scores; the dealer does not move and the hand is still to be booked."""
        by_position = self._book(payments)
        record = {"fine": penalty.get("name_zh"), "cycle": cycle,
                  "declarer": self.position_of(declarer),
                  "disqualified": bool(penalty.get("disqualified")),
                  "payments": {str(k): v for k, v in sorted(by_position.items())},
                  "scores": list(self.scores)}
        self.fines.append(record)
        return record

    def _next_dealer(self, winner: int | None) -> None:
        rule = REGISTRY[self.variant].dealer
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
                "scores": list(self.scores), "hands": list(self.hands),
                "fines": list(self.fines)}

    @classmethod
    def from_dict(cls, saved: dict) -> Session:
        return cls(saved["variant"], saved["first_dealer"], saved["dealer"],
                   saved["prevalent"], list(saved["scores"]), list(saved["hands"]),
                   list(saved.get("fines", [])))
