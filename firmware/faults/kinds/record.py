"""A raised fault: its kind, place, evidence and diagnosis."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware.faults.kinds.catalogue import CATALOGUE
from firmware.faults.kinds.kind import FaultKind, side_step


def ranked(extra: dict[str, Any], side: str) -> dict[str, Any]:
    """The differential diagnosis (firmware/diagnosis/differential.py) in the current language:
    the suspects ranked, their causes as the causes, and the test that tells them apart."""
    suspects = [{"part": s["part"], "cause": side_step(s["cause"], _side_of(s["part"], side))}
                for s in extra["suspects"]]
    out: dict[str, Any] = {"suspects": suspects, "causes": [s["cause"] for s in suspects]}
    if extra.get("test"):
        out["test"] = side_step(extra["test"], extra.get("test_side") or side)
    return out


def _side_of(part: str, side: str) -> str:
    """The side a suspect part is at (`motor.side.2.conveyor`), else the fault's."""
    words = part.split(".")
    return next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "side"), side)



@dataclass
class Fault:
    """One raised fault with its evidence and diagnosis."""

    id: str
    where: str
    side: int | None
    cycle: int
    sim_time_s: float
    evidence: dict[str, Any] = field(default_factory=dict)
    active: bool = True
    # Diagnosis learned beyond the catalogue (a recurring tile, say): it goes first.
    diagnosis_extra: dict[str, Any] | None = None
    # What each machine this fault parked was doing (recovery.py); used once, at resume.
    parked: dict[str, str] = field(default_factory=dict, repr=False)
    # One cause, one fault: raised again while active, it counts here (a flaky sensor
    # is one fault with a count and a rate, never one fault per edge).
    repeats: int = 1
    last_s: float | None = None

    def repeated(self, now: float, evidence: dict[str, Any]) -> None:
        """The same fault at the same place again while this one is active."""
        self.repeats += 1
        self.last_s = now
        self.evidence = {**evidence, "first_evidence": self.evidence.get(
            "first_evidence", {k: v for k, v in self.evidence.items()
                               if k not in ("repeats", "per_minute")}),
                         "repeats": self.repeats, "per_minute": self.per_minute()}

    def per_minute(self) -> float | None:
        if self.last_s is None or self.last_s <= self.sim_time_s:
            return None
        return round((self.repeats - 1) * 60.0 / (self.last_s - self.sim_time_s), 2)

    @property
    def kind(self) -> FaultKind:
        return CATALOGUE[self.id]

    @property
    def code(self) -> str:
        return self.kind.display_code(self.side)

    def diagnosis(self) -> dict[str, Any]:
        texts = self.kind.texts(self.side)
        diagnosis: dict[str, Any] = {
            "summary": texts["summary"],
            "severity": self.kind.severity,
            "causes": texts["causes"],
            "remedy": texts["remedy"],
        }
        extra = self.diagnosis_extra or {}
        if extra.get("remedy_instead"):
            # The evidence rules the catalogue's remedy out (a good part to replace).
            diagnosis["remedy"] = list(extra["remedy_instead"])
        elif extra.get("remedy"):
            diagnosis["remedy"] = extra["remedy"] + diagnosis["remedy"]
        diagnosis.update({k: v for k, v in extra.items()
                          if k not in ("remedy", "remedy_instead", "suspects", "test",
                                       "test_side")})
        if extra.get("suspects"):
            diagnosis.update(ranked(extra, "" if self.side is None else str(self.side)))
            if diagnosis.get("test") and not extra.get("remedy_instead"):
                # The evidence cannot tell: the test that tells comes first.
                diagnosis["remedy"] = [diagnosis["test"], *diagnosis["remedy"]]
        return diagnosis

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "code": self.code, "where": self.where, "cycle": self.cycle,
                "sim_time_s": round(self.sim_time_s, 3), "evidence": self.evidence,
                "diagnosis": self.diagnosis(), "active": self.active}
