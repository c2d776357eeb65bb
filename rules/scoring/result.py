"""The answer to a declared win: the fans, the total, the minimum and who pays whom."""

from __future__ import annotations

from dataclasses import dataclass, field

from .declared import WIND_LETTERS, Declared


@dataclass(frozen=True)
class Fan:
    """One fan or pattern as scored: its points each time and how many times."""

    name_en: str
    name_zh: str
    points: int
    count: int = 1

    def as_dict(self) -> dict:
        return {"name_en": self.name_en, "name_zh": self.name_zh, "points": self.points,
                "count": self.count}


@dataclass
class Result:
    """What `mjtable score` prints (docs/scoring.md, "The answer")."""

    win: bool
    reason: str = ""
    fans: list[Fan] = field(default_factory=list)
    total: int = 0
    meets_minimum: bool = False
    payments: dict[int, int] = field(default_factory=dict)  # seat wind -> points (+ gets)
    # A hand that does not win by its tiles (not by a rule of play such as 漏和): how many
    # tiles it is short of waiting (0: waiting, the wrong tile; None: the tiles form a win
    # below the minimum). A variant with fines prices the failed declaration by it.
    failed: bool = False
    short: int | None = None
    penalty: Penalty | None = None
    notes: dict = field(default_factory=dict)   # further answer keys ("reserve", ...)

    def as_dict(self) -> dict:
        out: dict = {"win": self.win}
        if not self.win:
            out["reason"] = self.reason
        out.update(fans=[f.as_dict() for f in self.fans], total=self.total,
                   meets_minimum=self.meets_minimum,
                   payments={WIND_LETTERS[s]: p for s, p in sorted(self.payments.items())})
        if self.penalty is not None:
            out["penalty"] = self.penalty.as_dict()
        out.update(self.notes)
        return out


@dataclass(frozen=True)
class Penalty:
    """A failed declaration's fine: what the declarer pays each other player."""

    name_en: str
    name_zh: str
    each: int
    disqualified: bool = False

    def as_dict(self) -> dict:
        return {"name_en": self.name_en, "name_zh": self.name_zh, "each": self.each,
                "disqualified": self.disqualified}


def not_a_win(reason: str, fans: list[Fan] | None = None, total: int = 0, *,
              failed: bool = False, short: int | None = None) -> Result:
    """A declared hand that does not win: nobody pays (unless the variant fines it)."""
    return Result(False, reason, fans or [], total, False, dict.fromkeys(range(4), 0),
                  failed=failed, short=short)


def pay(declared: Declared, *, each: int, discarder_extra: int = 0,
        discarder_pays_all: bool = False) -> dict[int, int]:
    """Payments where every loser pays `each` and the discarder `discarder_extra` more;
    `discarder_pays_all`: the discarder also pays the others' shares (包).

    Self-drawn: every other seat pays `each`. A discard win whose discarder was not
    given: no payments (the table cannot know who discarded; docs/scoring.md)."""
    winner = declared.seat_wind
    others = [s for s in range(4) if s != winner]
    if not declared.self_drawn and declared.discarder is None:
        return {}
    owed = dict.fromkeys(others, each)
    if not declared.self_drawn:
        discarder = declared.seat_of(declared.discarder)
        owed[discarder] += discarder_extra
        if discarder_pays_all:
            owed = {s: (sum(owed.values()) if s == discarder else 0) for s in others}
    out = {s: -p for s, p in owed.items()}
    out[winner] = sum(owed.values())
    return out
