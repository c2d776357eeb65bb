"""The fault catalogue (docs/mechanics.md, Fault catalogue) and the Fault record.

Ids are stable: add, never rename. A code with `N` takes the side number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware.i18n import N_, _

ERROR, WARNING, INFO = "E", "W", "I"


@dataclass(frozen=True)
class FaultKind:
    id: str
    code: str
    severity: str
    summary: str
    causes: tuple[str, ...]
    remedy: tuple[str, ...]

    def display_code(self, side: int | None) -> str:
        return self.code.replace("N", str(side if side is not None else 0))

    def texts(self, side: int | str | None = None) -> dict[str, Any]:
        """Summary, causes and remedy in the current language, for `side` (the fault
        card passes "N", standing for any side)."""
        where = "" if side is None else str(side)
        return {"summary": _(self.summary),
                "causes": [_(cause) for cause in self.causes],
                "remedy": [side_step(step, where) for step in self.remedy]}


def side_step(step: str, side: str) -> str:
    """A remedy step translated, with its side filled in."""
    # "side N" is the older spelling of the placeholder: keep it working.
    return _(step).replace("{side}", side).replace("side N", f"side {side}")


def ranked(extra: dict[str, Any], side: str) -> dict[str, Any]:
    """The differential diagnosis (firmware/differential.py) in the current language:
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


CATALOGUE: dict[str, FaultKind] = {k.id: k for k in [
    FaultKind("lid.not_rising", "E10", ERROR, N_("the lid did not reach its upper stop"),
              (N_("something blocks the lid"), N_("lift motor or gear"), N_("upper lid sensor")),
              (N_("clear the lid area"), N_("run the lid motor test"), N_("check lid.upper"))),
    FaultKind("lid.not_lowering", "E11", ERROR, N_("the lid did not reach its lower stop"),
              (N_("tiles or an object under the lid"),
               N_("lift motor"),
               N_("lower lid sensor"),
               N_("cable")),
              (N_("remove what is under the lid"),
               N_("run the lid motor test"),
               N_("check lid.lower"))),
    FaultKind("lid.sensor_conflict", "E12", ERROR, N_("both lid sensors are active at once"),
              (N_("one lid sensor is stuck active"),),
              (N_("check which sensor stays active in the signal view"),
               N_("replace that sensor"))),
    FaultKind("head.jam", "E2N", ERROR, N_("the stacking head did not complete its turn"),
              (N_("a tile jammed in the head"), N_("head gap misadjusted"), N_("stiff slider")),
              (N_("open side {side}"), N_("remove the jammed tile"), N_("adjust the head gap"))),
    FaultKind("plate.stuck", "E3N", ERROR, N_("the wall lift plate did not complete its turn"),
              (N_("debris in the plate rails"), N_("plate home switch"), N_("rocker arm")),
              (N_("clear the rails of side {side}"),
               N_("check plate_home"),
               N_("check the rocker arm"))),
    FaultKind("count.double", "E4N", ERROR, N_("two tile arrivals closer than physically possible"),
              (N_("dirty or misaligned count sensor"), N_("sensor threshold drift")),
              (N_("clean the count sensor of side {side}"), N_("re-adjust its threshold"))),
    FaultKind("count.blind", "E6N", ERROR, N_("the belt is full but no tile is counted"),
              (N_("count sensor dead or covered"),),
              (N_("clean the count sensor of side {side}"), N_("replace it"))),
    FaultKind("build.tiles_missing", "E50", ERROR,
              N_("tiles stopped arriving before the set was complete"),
              (N_("a tile left on the table"),
               N_("a tile stuck on the disc"),
               N_("a tile without magnetism")),
              (N_("look for tiles on the table and disc"), N_("top up with both lift keys"))),
    FaultKind("build.extra_tiles", "E51", ERROR, N_("more tiles than the set holds"),
              (N_("mixed sets"), N_("a foreign tile")),
              (N_("remove the extra tiles"),)),
    FaultKind("build.slow", "W52", WARNING, N_("tiles arrive far slower than usual"),
              (N_("magnet ring misplaced"), N_("rubber strip loose"), N_("flip spring worn")),
              (N_("check the magnet ring"), N_("check the rubber strip and flip spring"))),
    FaultKind("tile.face_up", "W60", WARNING, N_("a tile arrived face up at a head"),
              (N_("a tile with a reversed or weak magnet"),),
              (N_("replace that tile, not the set"),)),
    FaultKind("dice.stuck", "E70", ERROR, N_("the dice did not tumble"),
              (N_("jam under the dice plate"), N_("fuse"), N_("dice motor")),
              (N_("clear the dice plate"), N_("check the fuse"), N_("run the dice test"))),
    FaultKind("link.lost", "E80", ERROR, N_("no frame from the I/O board within its heartbeat"),
              (N_("cable"), N_("board power")),
              (N_("check the cable and board power"),)),
    FaultKind("link.version", "E81", ERROR, N_("the I/O board speaks another protocol version"),
              (N_("board firmware out of date"),),
              (N_("reflash the board"),)),
    FaultKind("timing.drift", "W90", WARNING, N_("a mechanism is slower than it used to be"),
              (N_("wear"), N_("friction"), N_("weak supply")),
              (N_("service the mechanism"), N_("check the supply"))),
    FaultKind("sensor.degraded", "W91", WARNING, N_("running on a timed fallback for a sensor"),
              (N_("a failed position sensor"),),
              (N_("replace that sensor"),)),
    FaultKind("power.recovered", "I92", INFO, N_("started after an unclean stop"),
              (N_("power cut or crash"),),
              (N_("refeed the set if a build was in progress"),)),
    FaultKind("build.interrupted", "I94", INFO,
              N_("a set was half built when the table was stopped"),
              (N_("the table was switched off or restarted during a build"),),
              (N_("refeed that set: its stacks are not trusted"),)),
    FaultKind("software.error", "E99", ERROR,
              N_("an internal firmware error: the table stopped safe"),
              (N_("a firmware bug"),),
              (N_("note the event log entry and report it"), N_("clear the fault to re-home"))),
    FaultKind("case.opened", "E93", ERROR, N_("the case was opened outside service mode"),
              (N_("tampering"), N_("service without service mode")),
              (N_("a technician must inspect and clear"),)),
    FaultKind("storage.failed", "E96", ERROR,
              N_("could not write the journal, handoff file or event log"),
              (N_("storage full"), N_("SD card worn or read-only"),
               N_("out of file descriptors")),
              (N_("free space or replace the SD card"), N_("then clear the fault"))),
]}


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
