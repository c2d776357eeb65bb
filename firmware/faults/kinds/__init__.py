"""The fault catalogue and the Fault record (the docs' fault tables are generated from it:
firmware/faults/tables.py).

Ids are stable: add, never rename. A code with `N` takes the side number.

A fault's behaviour lives on its kind, here and nowhere else: what its safe state
stops (`scope`), whether the counts of the set being built are trusted after it, what
answers it, its short name, causes, remedies, the evidence rule that ranks its causes
(firmware/diagnosis/differential.py) and the symptoms it explains
(firmware/diagnosis/guided.py). The firmware and the simulator's referee read these;
neither keeps sets of fault ids.
Adding a fault kind touches this file, the module that raises it and the translations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware.i18n import N_, _

ERROR, WARNING, INFO = "E", "W", "I"
# What a fault's safe state stops (the names firmware/faults/shutdown.py uses).
TABLE, BUILD = "table", "build"
# What answers a fault besides a technician's clear (`FaultKind.answer`).
CLEAR = "clear"          # a technician clears it once the cause is dealt with
REFEED = "refeed"        # the whole set goes in again, counted from zero
CASE_CLOSED = "case_closed"  # refused while the case switch still reads open
RELINK = "relink"        # the board's link clears it by itself; refused while lost


@dataclass(frozen=True)
class FaultKind:
    id: str
    code: str
    severity: str
    summary: str
    causes: tuple[str, ...]
    remedy: tuple[str, ...]
    # What a technician calls it at the table (the fault card), shorter than `summary`.
    short: str = ""
    # BUILD: its safe state is the build's motors only (players may finish the hand and
    # top up); TABLE: every output.
    scope: str = TABLE
    # After it the counts of the set being built cannot be trusted: built again.
    untrusts_count: bool = False
    answer: str = CLEAR
    # The evidence rule in firmware/diagnosis/differential.py that ranks its causes (None: the
    # catalogue's causes say it all).
    rule: str | None = None
    # The symptoms (firmware/diagnosis/guided.py) whose diagnosis shows it.
    symptoms: tuple[str, ...] = ()
    # For the docs' fault tables (firmware/faults/tables.py), English: what the firmware
    # sees that raises it, and how it clears where the answer alone does not say it.
    sees: str = ""
    clears: str = ""

    @property
    def family(self) -> str:
        """The mechanism its id names first (`lid`, `link`, `count`...)."""
        return self.id.partition(".")[0]

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


CATALOGUE: dict[str, FaultKind] = {k.id: k for k in [
    FaultKind("lid.not_rising", "E10", ERROR, N_("the lid did not reach its upper stop"),
              (N_("something blocks the lid"), N_("lift motor or gear"), N_("upper lid sensor")),
              (N_("clear the lid area"), N_("run the lid motor test"), N_("check lid.upper")),
              short=N_("lid does not rise"), rule="lid.rising",
              symptoms=("set_stays_on_table",),
              sees="lid motor up, `lid.upper` not reached in k·T"),
    FaultKind("lid.not_lowering", "E11", ERROR, N_("the lid did not reach its lower stop"),
              (N_("tiles or an object under the lid"),
               N_("lift motor"),
               N_("lower lid sensor"),
               N_("cable")),
              (N_("remove what is under the lid"),
               N_("run the lid motor test"),
               N_("check lid.lower")),
              short=N_("lid does not lower"), rule="lid.lowering",
              symptoms=("set_stays_on_table", "lid_not_lowering"),
              sees="lid motor down, `lid.lower` not reached in k·T"),
    FaultKind("lid.sensor_conflict", "E12", ERROR, N_("both lid sensors are active at once"),
              (N_("one lid sensor is stuck active"),),
              (N_("check which sensor stays active in the signal view"),
               N_("replace that sensor")),
              short=N_("lid sensors disagree"), rule="lid.conflict",
              symptoms=("set_stays_on_table", "lid_not_lowering"),
              sees="`lid.upper` and `lid.lower` both active"),
    FaultKind("head.jam", "E2N", ERROR, N_("the stacking head did not complete its turn"),
              (N_("a tile jammed in the head"), N_("head gap misadjusted"), N_("stiff slider")),
              (N_("open side {side}"), N_("remove the jammed tile"), N_("adjust the head gap")),
              short=N_("head jam"), scope=BUILD, rule="head",
              symptoms=("build_never_finishes",),
              sees="head motor on, `head_home` does not change within k·T"),
    FaultKind("plate.stuck", "E3N", ERROR, N_("the wall lift plate did not complete its turn"),
              (N_("debris in the plate rails"), N_("plate home switch"), N_("rocker arm")),
              (N_("clear the rails of side {side}"),
               N_("check plate_home"),
               N_("check the rocker arm")),
              short=N_("lift plate stuck"), rule="plate",
              symptoms=("set_stays_on_table", "walls_not_rising"),
              sees="plate cam does not leave or return to `plate_home`"),
    FaultKind("count.double", "E4N", ERROR, N_("two tile arrivals closer than physically possible"),
              (N_("dirty or misaligned count sensor"), N_("sensor threshold drift")),
              (N_("clean the count sensor of side {side}"), N_("re-adjust its threshold")),
              short=N_("double count"), scope=BUILD, untrusts_count=True, rule="double",
              symptoms=("wrong_tile_count",),
              sees="two arrivals closer than the physical minimum gap"),
    FaultKind("count.blind", "E6N", ERROR, N_("the belt is full but no tile is counted"),
              (N_("count sensor dead or covered"),),
              (N_("clean the count sensor of side {side}"), N_("replace it")),
              short=N_("count sensor blind"), scope=BUILD, untrusts_count=True, rule="blind",
              symptoms=("build_never_finishes", "wrong_tile_count"),
              sees="belt full (`side.N.full`) but no arrival counted"),
    FaultKind("build.tiles_missing", "E50", ERROR,
              N_("tiles stopped arriving before the set was complete"),
              (N_("a tile left on the table"),
               N_("a tile stuck on the disc"),
               N_("a tile without magnetism")),
              (N_("look for tiles on the table and disc"), N_("top up with both lift keys")),
              short=N_("tiles missing"), scope=BUILD, answer=REFEED, rule="missing",
              symptoms=("build_never_finishes", "wrong_tile_count"),
              sees="arrivals stop before the set is complete",
              clears="players top up (both lift keys) or technician clears"),
    FaultKind("build.extra_tiles", "E51", ERROR, N_("more tiles than the set holds"),
              (N_("mixed sets"), N_("a foreign tile")),
              (N_("remove the extra tiles"),),
              short=N_("extra tiles"), scope=BUILD, untrusts_count=True, answer=REFEED,
              rule="extra", symptoms=("wrong_tile_count",),
              sees="more tiles counted than the set holds"),
    FaultKind("build.slow", "W52", WARNING, N_("tiles arrive far slower than usual"),
              (N_("magnet ring misplaced"), N_("rubber strip loose"), N_("flip spring worn")),
              (N_("check the magnet ring"), N_("check the rubber strip and flip spring")),
              short=N_("slow build"), symptoms=("build_never_finishes",),
              sees="builds far slower than learned, in 2 of the last 3"),
    FaultKind("tile.face_up", "W60", WARNING, N_("a tile arrived face up at a head"),
              (N_("a tile with a reversed or weak magnet"),),
              (N_("replace that tile, not the set"),),
              short=N_("tile face up"), rule="face_up", symptoms=("tile_face_up",),
              sees="`face_up` at a head; once per cycle from one slot: one defective tile"),
    FaultKind("dice.stuck", "E70", ERROR, N_("the dice did not tumble"),
              (N_("jam under the dice plate"), N_("fuse"), N_("dice motor")),
              (N_("clear the dice plate"), N_("check the fuse"), N_("run the dice test")),
              short=N_("dice stuck"), rule="dice", symptoms=("dice_not_spinning",),
              sees=("dice motor on, `dice.spin` shows no tumbling, or a spin shorter than the "
                    "minimum")),
    FaultKind("link.lost", "E80", ERROR, N_("no frame from the I/O board within its heartbeat"),
              (N_("cable"), N_("board power")),
              (N_("check the cable and board power"),),
              # A tile that passed a counter while the link was down was never reported.
              short=N_("board link lost"), untrusts_count=True, answer=RELINK,
              sees="no frame from the I/O board within the link timeout",
              clears=("clears by itself when the board answers again (the host says HELLO until it"
                      " does; a clear is refused while the link is still lost); the interrupted "
                      "motion is issued again, a half-built set is held for a refeed (I94)")),
    FaultKind("link.version", "E81", ERROR, N_("the I/O board speaks another protocol version"),
              (N_("board firmware out of date"),),
              (N_("reflash the board"),),
              short=N_("board program mismatch"), answer=RELINK,
              sees="protocol version mismatch at the handshake",
              clears="technician clears; the interrupted motion is issued again"),
    FaultKind("timing.drift", "W90", WARNING, N_("a mechanism is slower than it used to be"),
              (N_("wear"), N_("friction"), N_("weak supply")),
              (N_("service the mechanism"), N_("check the supply")),
              short=N_("mechanism slowing"), rule="drift",
              sees="a mechanism slower than T·(1 + margin) in 3 of its last 5 runs"),
    FaultKind("sensor.degraded", "W91", WARNING, N_("running on a timed fallback for a sensor"),
              (N_("a failed position sensor"),),
              (N_("replace that sensor"),),
              short=N_("sensor failed, running on time"), rule="degraded",
              sees=("a lid stop missed, and the travel back to the other stop took its whole "
                    "learned time: running on the timed fallback")),
    FaultKind("sensor.silent", "W97", WARNING,
              N_("a sensor a build should light never seen lit"),
              (N_("a sensor failed dark (dead, unplugged or covered)"),),
              (N_("watch the sensor named in the signal view during a build; clean it, "
                  "check its plug and cable, then replace it"),),
              short=N_("sensor never lights"), rule="silent",
              sees=("a side's `full` or `count` sensor not seen lit over 20 builds in a row "
                    "(a sensor failed dark raises nothing by itself)"),
              clears="said once until the sensor lights again"),
    FaultKind("sensor.flaky", "W95", WARNING,
              N_("impossible edges from a sensor, filtered out"),
              (N_("a dirty, loose or failing sensor"),),
              (N_("clean the sensor named, check its plug and cable, then replace it"),),
              short=N_("sensor flickers"), rule="flaky",
              sees=("a head home sensor's home edge sooner than a turn allows, or a count "
                    "sensor dark for less than any gap between two tiles on one tile, 3 times "
                    "within 60 s: filtered, play goes on")),
    FaultKind("power.recovered", "I92", INFO, N_("started after an unclean stop"),
              (N_("power cut or crash"),),
              (N_("refeed the set if a build was in progress"),),
              short=N_("restarted after a power cut"),
              sees="boot after an unclean stop",
              clears=("the players refeed and hold both lift keys 2 s (display `rF`), or an "
                      "operator refeeds and clears with `--refed` (only when a build was in "
                      "progress)")),
    FaultKind("build.interrupted", "I94", INFO,
              N_("a set was half built when the table was stopped"),
              (N_("the table was switched off or restarted during a build"),),
              (N_("refeed that set: its stacks are not trusted"),),
              short=N_("set half built at stop"),
              sees="a set was half built when the table stopped",
              clears=("the players refeed and hold both lift keys 2 s (display `rF`), or an "
                      "operator refeeds and clears with `--refed` (only when a build was in "
                      "progress)")),
    FaultKind("software.error", "E99", ERROR,
              N_("an internal firmware error: the table stopped safe"),
              (N_("a firmware bug"),),
              (N_("note the event log entry and report it"), N_("clear the fault to re-home")),
              short=N_("firmware error"),
              sees="a state machine refused a trigger, or a callback failed",
              clears="technician clears; the table re-homes"),
    FaultKind("case.opened", "E93", ERROR, N_("the case was opened outside service mode"),
              (N_("tampering"), N_("service without service mode")),
              (N_("a technician must inspect and clear"),),
              short=N_("case opened"), answer=CASE_CLOSED, rule="case",
              sees="`case_open` outside service mode"),
    FaultKind("case.contacts", "E98", ERROR,
              N_("two contacts of the case switch disagree"),
              (N_("one contact of the case switch failed (stuck or broken wire)"),),
              (N_("open and close the case and watch both contacts in the signal view; "
                  "replace the switch or its wiring"),),
              short=N_("case contacts disagree"), rule="contacts",
              sees="`case_open` and `case_open_nc` (a two-contact switch) read differently",
              clears="technician clears once both contacts agree"),
    FaultKind("storage.failed", "E96", ERROR,
              N_("could not write the journal, handoff file or event log"),
              (N_("storage full"), N_("SD card worn or read-only"),
               N_("out of file descriptors")),
              (N_("free space or replace the SD card"), N_("then clear the fault")),
              short=N_("storage failed"),
              sees="a journal, handoff-file or event-log write failed",
              clears="technician clears once the storage works; saving is tried again"),
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
