"""The fault catalogue (docs/mechanics.md, Fault catalogue) and the Fault record.

Ids are stable: add, never rename. A code with `N` takes the side number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


CATALOGUE: dict[str, FaultKind] = {k.id: k for k in [
    FaultKind("lid.not_rising", "E10", ERROR, "the lid did not reach its upper stop",
              ("something blocks the lid", "lift motor or gear", "upper lid sensor"),
              ("clear the lid area", "run the lid motor test", "check lid.upper")),
    FaultKind("lid.not_lowering", "E11", ERROR, "the lid did not reach its lower stop",
              ("tiles or an object under the lid", "lift motor", "lower lid sensor", "cable"),
              ("remove what is under the lid", "run the lid motor test", "check lid.lower")),
    FaultKind("lid.sensor_conflict", "E12", ERROR, "both lid sensors are active at once",
              ("one lid sensor is stuck active",),
              ("check which sensor stays active in the signal view", "replace that sensor")),
    FaultKind("head.jam", "E2N", ERROR, "the stacking head did not complete its turn",
              ("a tile jammed in the head", "head gap misadjusted", "stiff slider"),
              ("open side N", "remove the jammed tile", "adjust the head gap")),
    FaultKind("plate.stuck", "E3N", ERROR, "the wall lift plate did not complete its turn",
              ("debris in the plate rails", "plate home switch", "rocker arm"),
              ("clear the rails of side N", "check plate_home", "check the rocker arm")),
    FaultKind("count.double", "E4N", ERROR, "two tile arrivals closer than physically possible",
              ("dirty or misaligned count sensor", "sensor threshold drift"),
              ("clean the count sensor of side N", "re-adjust its threshold")),
    FaultKind("count.blind", "E4N", ERROR, "the belt is full but no tile is counted",
              ("count sensor dead or covered",),
              ("clean the count sensor of side N", "replace it")),
    FaultKind("build.tiles_missing", "E50", ERROR,
              "tiles stopped arriving before the set was complete",
              ("a tile left on the table", "a tile stuck on the disc", "a tile without magnetism"),
              ("look for tiles on the table and disc", "top up with both lift keys")),
    FaultKind("build.extra_tiles", "E51", ERROR, "more tiles than the set holds",
              ("mixed sets", "a foreign tile"), ("remove the extra tiles",)),
    FaultKind("build.slow", "W52", WARNING, "tiles arrive far slower than usual",
              ("magnet ring misplaced", "rubber strip loose", "flip spring worn"),
              ("check the magnet ring", "check the rubber strip and flip spring")),
    FaultKind("tile.face_up", "W60", WARNING, "a tile arrived face up at a head",
              ("a tile with a reversed or weak magnet",),
              ("replace that tile, not the set",)),
    FaultKind("dice.stuck", "E70", ERROR, "the dice did not tumble",
              ("jam under the dice plate", "fuse", "dice motor"),
              ("clear the dice plate", "check the fuse", "run the dice test")),
    FaultKind("link.lost", "E80", ERROR, "no frame from the I/O board within its heartbeat",
              ("cable", "board power"), ("check the cable and board power",)),
    FaultKind("link.version", "E81", ERROR, "the I/O board speaks another protocol version",
              ("board firmware out of date",), ("reflash the board",)),
    FaultKind("timing.drift", "W90", WARNING, "a mechanism is slower than it used to be",
              ("wear", "friction", "weak supply"), ("service the mechanism", "check the supply")),
    FaultKind("sensor.degraded", "W91", WARNING, "running on a timed fallback for a sensor",
              ("a failed position sensor",), ("replace that sensor",)),
    FaultKind("power.recovered", "I92", INFO, "started after an unclean stop",
              ("power cut or crash",), ("refeed the set if a build was in progress",)),
    FaultKind("build.interrupted", "I94", INFO,
              "a set was half built when the table was stopped",
              ("the table was switched off or restarted during a build",),
              ("refeed that set: its stacks are not trusted",)),
    FaultKind("software.error", "E99", ERROR,
              "the firmware met an internal error and stopped the table safe",
              ("a firmware bug",),
              ("note the event log entry and report it", "clear the fault to re-home")),
    FaultKind("case.opened", "E93", ERROR, "the case was opened outside service mode",
              ("tampering", "service without service mode"),
              ("a technician must inspect and clear",)),
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

    @property
    def kind(self) -> FaultKind:
        return CATALOGUE[self.id]

    @property
    def code(self) -> str:
        return self.kind.display_code(self.side)

    def diagnosis(self) -> dict[str, Any]:
        side = "" if self.side is None else str(self.side)
        diagnosis: dict[str, Any] = {
            "summary": self.kind.summary,
            "severity": self.kind.severity,
            "causes": list(self.kind.causes),
            "remedy": [step.replace("side N", f"side {side}") for step in self.kind.remedy],
        }
        extra = self.diagnosis_extra or {}
        if extra.get("remedy_instead"):
            # The evidence rules the catalogue's remedy out (a good part to replace).
            diagnosis["remedy"] = list(extra["remedy_instead"])
        elif extra.get("remedy"):
            diagnosis["remedy"] = extra["remedy"] + diagnosis["remedy"]
        diagnosis.update({k: v for k, v in extra.items()
                          if k not in ("remedy", "remedy_instead")})
        return diagnosis

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "code": self.code, "where": self.where, "cycle": self.cycle,
                "sim_time_s": round(self.sim_time_s, 3), "evidence": self.evidence,
                "diagnosis": self.diagnosis(), "active": self.active}
