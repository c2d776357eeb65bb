"""Guided diagnosis: from what a technician sees to a verdict with its evidence.

`diagnose(ctl, symptom, done)` looks at what the firmware knows (faults, counts,
sensors, learned timings) and, where it is safe, runs a targeted check on the machine
(move the lid and watch both sensors, spin the dice and watch for tumbling). Without
`done` it answers at once from what is known; with `done` it runs the checks and calls
`done(result)` when they end. Motions go through the same machines and supervision as
the table's own, so a failing check takes the fault path like any other motion, and a
check first takes its mechanism from the table's owner (`owner.py`): while the cycle,
a self-test, a jog or another check uses it, the check is not run and says why.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from firmware import words
from firmware.diagnosis.symptoms import AmbiguousSymptom, UnknownSymptom, match
from firmware.faults.kinds import lid, plate
from firmware.i18n import N_, _, keep_language
from firmware.machines.lid import LidState

if TYPE_CHECKING:
    from firmware.diagnosis.table import Checked

Result = dict[str, Any]
Done = Callable[[Result], None]

SYMPTOMS = {
    "set_stays_on_table": N_("one set of tiles always stays on the table"),
    "tile_face_up": N_("a tile shows its face in the wall"),
    "walls_not_rising": N_("the walls do not rise"),
    "lid_not_lowering": N_("the centre lid does not lower"),
    "build_never_finishes": N_("the build never finishes"),
    "wrong_tile_count": N_("a wall has too many or too few tiles"),
    "dice_not_spinning": N_("the dice do not spin"),
}
CHECK_LIMIT_S = 15.0


def diagnose(ctl: Checked, symptom: str, done: Done | None = None) -> Result | None:
    """Diagnose `symptom`: a name in SYMPTOMS or what a technician says, in English or
    Chinese (firmware/diagnosis/symptoms.py). Returns the result, or None when `done` will
    receive it after the checks on the machine. Raises UnknownSymptom (and its
    AmbiguousSymptom) with the candidates in the message."""
    said = symptom
    symptom = match(said, SYMPTOMS)
    result = PASSIVE[symptom](ctl)
    result = {"symptom": symptom, "said": said, "described": _(SYMPTOMS[symptom]),
              "checks": [], **result}
    check = ACTIVE.get(symptom)
    if done is None or check is None:
        return result
    why_not = _busy(ctl) or _take(ctl, check)
    if why_not:
        result["checks"].append({"check": check.__name__, "run": False, "why": why_not})
        done(result)
        return None
    check(ctl, result, done)
    return None


def _state(ctl: Checked, machine: Any) -> str:
    """A machine's state as evidence: one halted by test mode or the e-stop is said so,
    never "fault" (the status picture's `held_by`)."""
    held = ctl.status()["held_by"] if machine.faulted else None
    return held or machine.state


def _busy(ctl: Checked) -> str | None:
    """A check moves a mechanism: only when the table is not using it."""
    if any(f.active and f.kind.severity == "E" for f in ctl.faults):
        return _("an error fault is active; the checks run once it is cleared")
    if not ctl.cycle.in_play:
        return _("the table is busy ({state})").format(state=words.state(_state(ctl, ctl.cycle)))
    if ctl.build.part_built:
        return _("a set is being built: the disc turns under the lid")
    return None


HOLDER = "diagnosis"
MOVES = {"lid_check": ["lid"], "dice_check": ["dice"]}


def _take(ctl: Checked, check: Callable[..., None]) -> str | None:
    """Hold the check's mechanism for it, or say who has it."""
    from firmware.machines.owner import Busy
    from firmware.why import in_use

    mechanisms = MOVES[check.__name__]
    for mechanism in mechanisms:
        user = ctl.owner.user(mechanism)     # another check holds it too: one at a time
        if user is not None:
            return in_use(Busy(mechanism, user))
    try:
        ctl.owner.acquire(HOLDER, mechanisms, check.__name__)
    except Busy as exc:
        return in_use(exc)
    return None


def _faults(ctl: Checked, symptom: str,
            family: ModuleType | None = None) -> list[dict[str, Any]]:
    """The last faults that explain `symptom` (their kinds say which), of one family
    (its module in firmware/faults/kinds/)."""
    return [f.as_dict() for f in ctl.faults if symptom in f.kind.symptoms and (
        family is None or f.kind in family.KINDS)][-5:]


# -- what is known ------------------------------------------------------------------


def _set_stays(ctl: Checked) -> Result:
    lids = _faults(ctl, "set_stays_on_table", lid)
    plates = _faults(ctl, "set_stays_on_table", plate)
    evidence = {"set_in_play": ctl.cycle.set_in_play, "set_building": ctl.cycle.set_building,
                "build": _state(ctl, ctl.build), "lid": _state(ctl, ctl.lid),
                "lid_faults": lids, "plate_faults": plates}
    active = [f for f in lids + plates if f["active"]]
    if active:
        where = ", ".join(words.fault_at(f["code"], f["id"], f["where"]) for f in active)
        return {"normal": False, "verdict": _("not normal: {faults}").format(faults=where),
                "evidence": evidence, "remedy": active[0]["diagnosis"]["remedy"]}
    return {"normal": True, "evidence": evidence,
            "verdict": _("normal: a two-set table always has one set on the table while "
                         "the other is built inside; at the end of a hand the played set "
                         "goes into the hole and the other rises"),
            "remedy": [_("nothing to repair; push the played set in with the lift key")]}


def _tile_face_up(ctl: Checked) -> Result:
    seen = [f for f in ctl.faults if "tile_face_up" in f.kind.symptoms]
    if not seen:
        fitted = any(s.has_face_up for s in ctl.sides)
        return {"normal": True, "evidence": {"face_up_sensor": fitted},
                "verdict": _("no tile was seen face up") if fitted else
                _("no tile was seen face up (this table has no face-up sensor: watch the "
                  "walls)"),
                "remedy": [_("if a wall shows a face, note its place and ask again")]}
    last = seen[-1].as_dict()
    diagnosis = last["diagnosis"]
    if diagnosis.get("recurring"):
        return {"normal": False, "verdict": diagnosis["verdict"], "evidence": last["evidence"],
                "now_at": diagnosis["now_at"], "remedy": diagnosis["remedy"]}
    return {"normal": False, "evidence": last["evidence"],
            "verdict": _("a tile arrived face up once: watch whether it comes back in the "
                         "next builds of the same set"),
            "remedy": [_("if it recurs it is one defective tile: replace that tile, not the "
                         "set"),
                       _("if different tiles come face up, check the flip spring")]}


def _walls_not_rising(ctl: Checked) -> Result:
    plates = {p.side: {"state": _state(ctl, p), "home": bool(ctl.hal.read(p.sensor)),
                       "learned_s": round(ctl.supervisor.learned(p.key), 3)}
              for p in ctl.plates}
    stuck = [f for f in _faults(ctl, "walls_not_rising") if f["active"]]
    evidence = {"plates": plates, "build": _state(ctl, ctl.build),
                "cycle": _state(ctl, ctl.cycle), "counted": [s.counted for s in ctl.sides]}
    if stuck:
        return {"normal": False,
                "verdict": _("the lift plate of {where} is stuck").format(
                    where=stuck[-1]["where"]),
                "evidence": evidence, "remedy": stuck[-1]["diagnosis"]["remedy"]}
    if not ctl.build.staged:
        return {"normal": True, "evidence": evidence,
                "verdict": _("walls rise only when a set is staged; the build is {state} at "
                             "{counted}/{tiles} tiles").format(
                    state=words.state(_state(ctl, ctl.build)),
                    counted=sum(s.counted for s in ctl.sides),
                    tiles=ctl.config.table.tiles),
                "remedy": [_("wait for the ready lamp, then use the lift key")]}
    return {"normal": True, "evidence": evidence,
            "verdict": _("a set is staged and the plates are at home: the walls rise after "
                         "the lid opens and closes (lift key twice)"),
            "remedy": [_("press a lift key, push the played set in, press it again")]}


def _lid_not_lowering(ctl: Checked) -> Result:
    faults = _faults(ctl, "lid_not_lowering")
    evidence = {"lid": _state(ctl, ctl.lid), "lid.upper": bool(ctl.hal.read("lid.upper")),
                "lid.lower": bool(ctl.hal.read("lid.lower")),
                "learned_down_s": round(ctl.supervisor.learned("lid.down"), 3),
                "degraded": sorted(ctl.supervisor.degraded), "faults": faults}
    active = [f for f in faults if f["active"]]
    if active:
        return {"normal": False, "verdict": active[-1]["diagnosis"]["summary"],
                "evidence": evidence, "remedy": active[-1]["diagnosis"]["remedy"]}
    return {"normal": True, "evidence": evidence,
            "verdict": _("no lid fault is recorded; run the check to move the lid"),
            "remedy": []}


def _build_never_finishes(ctl: Checked) -> Result:
    target = ctl.config.tiles_per_side
    short = {s.side: target - s.counted for s in ctl.sides if s.counted < target}
    faults = _faults(ctl, "build_never_finishes")
    evidence = {"build": _state(ctl, ctl.build), "counted": [s.counted for s in ctl.sides],
                "short_sides": short, "faults": faults,
                "elapsed_s": round(ctl.clock.now() - ctl.build.started_at, 3)
                if ctl.build.running else None}
    active = [f for f in faults if f["active"]]
    if active:
        return {"normal": False, "verdict": active[-1]["diagnosis"]["summary"],
                "evidence": evidence, "remedy": active[-1]["diagnosis"]["remedy"]}
    if ctl.build.running and short:
        missing = sum(short.values())
        return {"normal": False, "evidence": evidence,
                "verdict": _("{missing} tiles still to come, on sides {sides}").format(
                    missing=missing, sides=", ".join(map(str, short))),
                "remedy": [_("look for tiles left on the table or stuck on the disc"),
                           _("top up with both lift keys")]}
    return {"normal": True, "evidence": evidence, "verdict": _("no build is stuck now"),
            "remedy": []}


def _wrong_tile_count(ctl: Checked) -> Result:
    faults = _faults(ctl, "wrong_tile_count")
    glitches = {s.side: s.glitches for s in ctl.sides if s.glitches}
    evidence = {"counted": [s.counted for s in ctl.sides],
                "stacked": [s.stacked for s in ctl.sides],
                "target": ctl.config.tiles_per_side, "faults": faults,
                "head_home_glitches": glitches}
    if faults:
        last = faults[-1]
        return {"normal": False, "verdict": f"{last['diagnosis']['summary']} "
                                            f"({last['where']})",
                "evidence": evidence, "remedy": last["diagnosis"]["remedy"]}
    if glitches:
        sides = ", ".join(map(str, glitches))
        return {"normal": False, "evidence": evidence,
                "verdict": _("the head home sensor of side {sides} glitches").format(
                    sides=sides),
                "remedy": [_("clean or replace the head home sensor of side {sides}").format(
                    sides=sides)]}
    return {"normal": True, "evidence": evidence,
            "verdict": _("every side counted its target and no count fault is recorded"),
            "remedy": [_("count the walls by hand; if a side is off, run the count check")]}


def _dice_not_spinning(ctl: Checked) -> Result:
    faults = _faults(ctl, "dice_not_spinning")
    evidence = {"dice": _state(ctl, ctl.dice), "faces": ctl.dice.faces, "faults": faults}
    active = [f for f in faults if f["active"]]
    if active:
        return {"normal": False, "verdict": active[-1]["diagnosis"]["summary"],
                "evidence": evidence, "remedy": active[-1]["diagnosis"]["remedy"]}
    return {"normal": True, "evidence": evidence,
            "verdict": _("no dice fault is recorded; run the check to spin them"),
            "remedy": [_("the dealer's dice key starts a throw after the walls rise")]}


PASSIVE: dict[str, Callable[[Checked], Result]] = {
    "set_stays_on_table": _set_stays,
    "tile_face_up": _tile_face_up,
    "walls_not_rising": _walls_not_rising,
    "lid_not_lowering": _lid_not_lowering,
    "build_never_finishes": _build_never_finishes,
    "wrong_tile_count": _wrong_tile_count,
    "dice_not_spinning": _dice_not_spinning,
}


# -- checks on the machine ------------------------------------------------------------


class _Watcher:
    """Records input edges during a check, on the controller's clock."""

    def __init__(self, ctl: Checked) -> None:
        self.ctl = ctl
        self.start = ctl.clock.now()
        self.edges: list[tuple[float, str, Any]] = []
        ctl.input_watchers.append(self._seen)

    def _seen(self, name: str, value: Any) -> None:
        self.edges.append((round(self.ctl.clock.now() - self.start, 3), name, value))

    def stop(self) -> list[tuple[float, str, Any]]:
        self.ctl.input_watchers.remove(self._seen)
        return self.edges


def lid_check(ctl: Checked, result: Result, done: Done) -> None:
    """Open and close the lid, watching both sensors."""
    watcher = _Watcher(ctl)
    faults_before = len(ctl.faults)
    steps: list[str] = []

    def finish(ok: bool, note: str) -> None:
        timer.cancel()
        ctl.owner.release(HOLDER)
        edges = watcher.stop()
        new = [f.as_dict() for f in ctl.faults[faults_before:]]
        result["checks"].append({"check": "lid_check", "run": True, "ok": ok, "note": note,
                                 "steps": steps, "edges": edges, "faults": new})
        if not ok:
            result["normal"] = False
            if new:
                result["verdict"] = _("{summary} (seen in the check)").format(
                    summary=new[-1]["diagnosis"]["summary"])
                result["remedy"] = new[-1]["diagnosis"]["remedy"]
            else:
                result["verdict"] = note
        elif "lid" in result["symptom"]:
            result["verdict"] = _("the lid opens and closes, both sensors change as they "
                                  "should")
        done(result)

    def poll() -> None:
        state = ctl.lid.state
        if state == LidState.FAULT:
            finish(False, _("the lid did not complete its move"))
        elif state == LidState.OPEN and steps == ["open"]:
            steps.append("close")
            ctl.lid.close()
            poll_later()
        elif state == LidState.CLOSED and steps == ["open", "close"]:
            finish(True, _("lid moved both ways"))
        else:
            poll_later()

    def poll_later() -> None:
        ctl.clock.call_later(0.1, keep_language(poll))

    def give_up() -> None:
        finish(False, _("the check did not finish in {seconds} s").format(
            seconds=CHECK_LIMIT_S))

    timer = ctl.clock.call_later(CHECK_LIMIT_S, keep_language(give_up))
    steps.append("open")
    ctl.lid.open()
    poll_later()


def dice_check(ctl: Checked, result: Result, done: Done) -> None:
    """Run the dice motor for the minimum spin and watch for tumbling."""
    watcher = _Watcher(ctl)
    spin_s = ctl.timing.dice_min_spin_s
    ctl.hal.write("motor.dice", True, holder=HOLDER)

    def stop() -> None:
        ctl.hal.write("motor.dice", False)
        ctl.owner.release(HOLDER)
        edges = watcher.stop()
        seen = [t for t, name, value in edges if name == "dice.spin" and value]
        ok = bool(seen)
        result["checks"].append({"check": "dice_check", "run": True, "ok": ok,
                                 "spin_seen_after_s": seen[0] if seen else None,
                                 "edges": edges})
        result["normal"] = ok
        if ok:
            result["verdict"] = _("the dice tumble (seen {seconds} s after the motor "
                                  "started)").format(seconds=seen[0])
        else:
            result["verdict"] = _("the dice do not tumble while their motor runs")
            result["remedy"] = [_("clear the dice plate"), _("check the fuse"),
                                _("test the motor")]
        done(result)

    ctl.clock.call_later(spin_s, keep_language(stop))


ACTIVE: dict[str, Callable[[Checked, Result, Done], None]] = {
    "set_stays_on_table": lid_check,
    "lid_not_lowering": lid_check,
    "dice_not_spinning": dice_check,
}

__all__ = ["SYMPTOMS", "AmbiguousSymptom", "UnknownSymptom", "diagnose"]
