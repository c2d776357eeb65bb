"""Turning API replies into what a technician reads (shared by the CLI and the TUI).

Everything here is text in the current language; no Python repr reaches a person.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from firmware import words
from firmware.console.view import lamps_plain, lamps_text, picture, picture_plain, snap_from_status
from firmware.i18n import N_, _, join
from firmware.machines import homecoming
from firmware.printable import printable
from firmware.why import fault_why, worded

if TYPE_CHECKING:   # rich comes with the console extra; the one-shot commands need none
    from rich.text import Text

# Evidence keys as a technician reads them (the JSON keeps the keys).
EVIDENCE = {
    "set_in_play": N_("set in play"), "set_building": N_("set building"),
    "build": N_("build"), "lid": N_("lid"), "lid_faults": N_("lid faults"),
    "plate_faults": N_("plate faults"), "faults": N_("faults"), "plates": N_("plates"),
    "cycle": N_("table"), "counted": N_("tiles counted per side"),
    "stacked": N_("tiles stacked per side"), "target": N_("tiles per side"),
    "short_sides": N_("tiles still missing, by side"), "elapsed_s": N_("build time (s)"),
    "head_home_glitches": N_("head home sensor glitches, by side"),
    "face_up_sensor": N_("face-up sensor fitted"), "dice": N_("dice"),
    "faces": N_("dice faces"), "learned_down_s": N_("learned lowering time (s)"),
    "degraded": N_("sensors on a timed fallback"), "why": N_("why"),
    "reason": N_("reason"),
}


# Evidence whose value is a machine state.
STATE_KEYS = {"build", "lid", "cycle", "dice"}
# The checks guided diagnosis runs on the machine.
CHECKS = {"lid_check": N_("lid up-and-down check"), "dice_check": N_("dice spin check")}


def check_name(name: str) -> str:
    label = CHECKS.get(name)
    return _(label) if label else name


def plain(value: Any) -> str:
    """A value for a person: no Python reprs (None, True, dicts, quotes)."""
    if value is None:
        return "-"
    if value is True:
        return _("yes")
    if value is False:
        return _("no")
    if isinstance(value, dict):
        if "code" in value and "id" in value:      # a fault
            return fault_ref(value)
        return ", ".join(f"{k}: {plain(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list | tuple):
        return ", ".join(plain(v) for v in value) or "-"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def labelled(label: str, value: str) -> str:
    """"label: value" with the current language's colon."""
    return _("{label}: {value}").format(label=label, value=value)


# The lid motor's direction as the API reports it.
DIRECTIONS = {"off": N_("off"), "up": N_("up"), "down": N_("down")}


def signal_value(value: Any) -> str:
    """A signal's value as a meter shows it: on/off for a switch or sensor, a motor's
    direction in words."""
    if isinstance(value, bool):
        return _("on") if value else _("off")
    if isinstance(value, str) and value in DIRECTIONS:
        return _(DIRECTIONS[value])
    return plain(value)


def fault_ref(fault: dict[str, Any]) -> str:
    """A fault named in one short phrase."""
    state = "" if fault.get("active", True) else " " + _("(cleared)")
    return words.fault_at(fault["code"], fault["id"], fault["where"]) + state


def table_text(status: dict[str, Any], rows: int | None = None) -> Text:
    """The table from above, with lamps, display, plates and sets.

    `rows` folds the side walls into that many rows (short screens).
    """
    from rich.text import Text

    snap, lines, modes = _table(status)
    mode = [Text(text, style=style) for text, style in modes]
    return Text.assemble(picture(snap, rows), "\n", lamps_text(snap["lamps"]), "\n",
                         "\n".join(lines), *(["\n", *mode] if mode else []))


def table_plain(status: dict[str, Any], rows: int | None = None) -> str:
    """`table_text` without colours: the one-shot console needs no rich."""
    snap, lines, modes = _table(status)
    return "\n".join([picture_plain(snap, rows), lamps_plain(snap["lamps"]), *lines,
                      *(["".join(text for text, _style in modes)] if modes else [])])


def _table(status: dict[str, Any]) -> tuple[dict[str, Any], list[str], list[tuple[str, str]]]:
    """The snapshot, the lines under the lamps, and the modes with their styles."""
    snap = snap_from_status(status)
    held = snap["held_by"]
    plates = " ".join(f"{n}:{words.state(state, held)}"
                      for n, state in enumerate(status.get("plates", [])))
    service = status.get("service", {})
    modes = []
    if status.get("estopped"):
        modes.append((_("E-STOP ACTIVE"), "bold white on red"))
    if service.get("test_mode"):
        running = service.get("running") or _("idle")
        modes.append((_("TEST MODE ({running})").format(running=running),
                      "bold black on yellow"))
    lines = [
        _("display: {display}   plates: {plates}").format(
            display=snap["display"] or "·", plates=plates),
        _("set in play: {in_play}   building: {building} ({state})").format(
            in_play=words.set_name(snap["set_in_play"]),
            building=words.set_name(snap["set_building"]),
            state=words.state(snap["build"], held)),
        _("hand {hand} · {state}").format(
            hand=snap["hand"], state=words.phase(snap["state"], held, snap["set_in_play"]))]
    return snap, lines, modes


def fault_lines(faults: list[dict[str, Any]]) -> list[str]:
    """Each fault: what, where, likely causes, what to do."""
    lines = []
    for f in faults:
        d = f["diagnosis"]
        ref = f"#{f['ref']} " if "ref" in f else ""
        state = "" if f.get("active", True) else " " + _("(cleared)")
        lines.append(_("{ref}{fault} (hand {hand}, t={t} s){state}: {summary}").format(
            ref=ref, fault=words.fault_at(f["code"], f["id"], f["where"]), hand=f["cycle"],
            t=f["sim_time_s"], state=state, summary=d["summary"]))
        why = fault_why(f.get("evidence"))
        if why:
            lines.append("    " + _("seen: {why}").format(why=why))
        lines.append("    " + _("likely: {causes}").format(causes=join(d["causes"])))
        lines.append("    " + _("do: {remedy}").format(remedy=join(d["remedy"])))
    return lines


# Longest value an event line shows; the whole value is in --json and `console walls`.
DETAIL_CELLS = 72


def event_detail(event: dict[str, Any], skip: set[str]) -> str:
    """An event's fields as "key=value", states in the current language; a nested
    record (a handoff's dealt walls) is "…" so one event stays one readable line."""
    parts = []
    for key, value in event.items():
        if key in skip:
            continue
        seen = fault_why(value) if key == "evidence" else None
        if key == "state" and isinstance(value, str):
            text = words.state(value, event.get("held_by"))
        elif seen:
            key, text = "why", seen         # a fault's evidence: what was seen, in words
        elif (isinstance(value, dict) and not ("code" in value and "id" in value)) or (
                isinstance(value, list) and any(isinstance(v, dict) for v in value)):
            text = "…"      # a nested record (a test's sensor log): --json has it
        else:
            text = plain(worded(key, value))
        # A why is one sentence of ours, and its end says what to do: never cut it.
        if len(text) > DETAIL_CELLS and key != "why":
            text = text[:DETAIL_CELLS - 1] + "…"
        parts.append(f"{key}={text}")
    return " ".join(parts)


def recording_detail(row: dict[str, Any]) -> str:
    """A flight recording in one line: whose, how long, and how to replay it."""
    fault = row.get("fault") if isinstance(row.get("fault"), dict) else {}
    entries = row.get("entries") if isinstance(row.get("entries"), list) else []
    return _("{code} {id}: {n} edges and commands before it (mjtable replay {seq})").format(
        code=fault.get("code"), id=fault.get("id"), n=len(entries), seq=row.get("seq"))


def log_line(row: dict[str, Any]) -> str:
    """One event-log row as a line."""
    skip = {"seq", "run", "wall", "t", "cycle", "kind", "chain", "held_by"}
    wall = row.get("wall")
    when = (datetime.datetime.fromtimestamp(wall).strftime("%Y-%m-%d %H:%M:%S")
            if isinstance(wall, int | float) else "-")
    detail = (recording_detail(row) if row.get("kind") == "flight.recording"
              else event_detail(row, skip))
    cycle = row.get("cycle")
    hand = _("hand")
    # Names and params come from outside: never raw control characters on a terminal.
    return printable(f"{row.get('seq', ''):>6} {when} t={row.get('t', 0):9.3f} "
                     f"{hand} {cycle if cycle is not None else '-':>3} {row.get('kind')} "
                     f"{detail}")


def test_lines(results: list[dict[str, Any]]) -> list[str]:
    """Self-test results: number, name, pass or fail, and the diagnosis of a failure."""
    lines = []
    for r in results:
        # The test's label in the reader's language ("测试 1 中心升降上下", not "lid").
        name = r.get("label") or r["test"]
        lines.append(_("test {number} {name} {result}  {detail} ({seconds} s)").format(
            number=f"{r['number']:>2}", name=name + " " * max(0, 11 - words.cells(name)),
            result=r["result"],
            detail=r["detail"], seconds=r["took_s"]))
        diagnosis = r.get("diagnosis")
        if diagnosis:
            lines.append(f"    {diagnosis['code']} {diagnosis['fault']}: " + _(
                "likely: {causes}").format(causes=join(diagnosis["causes"])))
            lines.append("    " + _("do: {remedy}").format(remedy=join(diagnosis["remedy"])))
    return lines


# Keys inside a per-side evidence entry (the plates: state, home switch, learned time).
INNER = {"home": N_("at home"), "learned_s": N_("learned time (s)")}


def _inner(entry: dict[str, Any]) -> str:
    """One side's entry: its state first, the other facts labelled."""
    parts = [words.state(v) if k == "state" and isinstance(v, str)
             else labelled(_(INNER[k]) if k in INNER else k, plain(v))
             for k, v in entry.items()]
    return _(", ").join(parts)


def evidence_lines(evidence: dict[str, Any]) -> list[str]:
    """What the verdict rests on, one fact a line; a per-side entry one side a line."""
    lines = []
    for key, value in evidence.items():
        label = _(EVIDENCE[key]) if key in EVIDENCE else key
        if isinstance(value, dict) and value and all(isinstance(v, dict)
                                                     for v in value.values()):
            lines.append(("    " + labelled(label, "")).rstrip())
            lines.extend("      " + labelled(words.side(int(k)) if str(k).isdigit()
                                             else str(k), _inner(v))
                         for k, v in value.items())
            continue
        shown = words.state(value) if key in STATE_KEYS and isinstance(value, str) else (
            plain(worded(key, value)))
        lines.append("    " + labelled(label, shown))
    return lines


def diagnosis_lines(result: dict[str, Any]) -> list[str]:
    """A guided diagnosis as a technician reads it: verdict, evidence, checks, what to do."""
    mark = _("normal") if result.get("normal") else _("NOT NORMAL")
    lines = [labelled(result["described"], mark), f"  {result['verdict']}"]
    evidence = result.get("evidence") or {}
    if evidence:
        lines.append("  " + _("evidence:"))
        lines += evidence_lines(evidence)
    for check in result.get("checks", []):
        if not check.get("run"):
            lines.append("  " + _("check {check} not run: {why}").format(
                check=check_name(check["check"]), why=check["why"]))
            continue
        outcome = _("passed") if check.get("ok") else _("FAILED")
        head = _("check {check} {outcome}").format(check=check_name(check["check"]),
                                                   outcome=outcome)
        lines.append("  " + (labelled(head, check["note"]) if check.get("note") else head))
        for at, name, value in check.get("edges", []):
            lines.append(f"    {at:7.3f} s  {name} -> {signal_value(value)}")
    remedy = result.get("remedy", [])
    if remedy:
        lines.append("  " + _("what to do:"))
    for step in remedy:
        lines.append(f"  - {step}")
    return lines


# -- replies to actions (the CLI and the TUI say the same) ----------------------------


def testmode_lines(result: dict[str, Any]) -> list[str]:
    # Test mode and the e-stop are named as such, never as a fault.
    held = result.get("held_by") or (words.TEST_MODE if result["test_mode"] else None)
    said = (_("test mode on (table: {state})") if result["test_mode"] else
            _("test mode off (table: {state})"))
    lines = [said.format(state=words.state(result["cycle"], held))]
    if result.get("refeed_hold"):
        lines.append(_(homecoming.REFEED_NOTE))
    return lines


def jog_stopped(stopped: Any) -> str:
    """Why a jog stopped, in words. The record keeps the maintenance module's fixed
    forms ("time up", "reached lid.upper", "aborted: e-stop"): scripts match on them."""
    if not isinstance(stopped, str):
        return plain(stopped)
    if stopped == "time up":
        return _("time up")
    head, _sep, rest = stopped.partition(" ")
    if head == "reached" and rest:
        return _("reached {sensor}").format(sensor=rest)
    if head == "aborted:" and rest:
        return _("aborted: {why}").format(why=_(rest))
    return _(stopped)


def jog_lines(result: dict[str, Any]) -> list[str]:
    return [_("jog {motor} {direction}: ran {seconds} s, stopped: {stopped}").format(
        motor=result["motor"], direction=result["direction"], seconds=result["ran_s"],
        stopped=jog_stopped(result["stopped"]))]


def clear_lines(result: dict[str, Any]) -> list[str]:
    lines = [_("cleared {fault}").format(fault=fault_ref(f)) for f in result["cleared"]]
    if result["resumed"]:
        lines.append(_("table re-homing and building again"))
    else:
        why = (_("e-stop active") if result["estopped"] else
               _("test mode") if result["test_mode"] else
               _("faults still active: {n}").format(n=len(result["still_active"])))
        lines.append(_("table still stopped: {why}").format(why=why))
    return lines


def estop_lines(result: dict[str, Any]) -> list[str]:
    if result.get("estopped"):
        return [_("E-STOP: every motor off; release with `mjtable console --technician "
                  "NAME estop --release`")]
    if result.get("resumed"):
        return [_("e-stop released, table re-homing")]
    return [_("e-stop released")]


# What a throw of the dice was for (the record's "purpose").
THROW_PURPOSES = {"break": N_("break the wall"),
                  "second_thrower": N_("pick who throws next")}


def throws_text(throws: Any) -> str:
    """A record's dice throws as "seat 1 threw 3+2 (break the wall)"."""
    if not isinstance(throws, list):
        return plain(throws)
    parts = []
    for throw in throws:
        if not isinstance(throw, dict):
            parts.append(plain(throw))
            continue
        purpose = throw.get("purpose")
        parts.append(_("seat {seat} threw {faces} ({purpose})").format(
            seat=plain(throw.get("thrower")),
            faces="+".join(str(f) for f in throw.get("faces") or []) or "-",
            purpose=_(THROW_PURPOSES[purpose]) if purpose in THROW_PURPOSES
            else plain(purpose)))
    return "; ".join(parts) or "-"


def walls_lines(result: dict[str, Any]) -> list[str]:
    commitment = result["commitment"]
    lines = [_("commitment now: {commitment}").format(commitment=commitment)
             if commitment else _("commitment now: none (no hand dealt yet)")]
    for record in result["records"]:
        table = record.get("table", {})
        lines.append(_("hand {hand} set {set}: commitment {commitment} dice {dice}").format(
            hand=plain(table.get("cycle")), set=plain(table.get("set")),
            commitment=plain(record.get("commitment")),
            dice=throws_text(record.get("dice"))))
    if not result["records"]:
        lines.append(_("no handoffs yet"))
    return lines


# The daemon's counters as a technician reads them (the JSON keeps the keys).
COUNTERS = {
    "hands": N_("hands"), "handoffs": N_("handoffs"), "faults_total": N_("faults in all"),
    "faults_active": N_("faults now"), "events_logged": N_("events logged"),
    "tiles_counted": N_("tiles counted"), "clients": N_("consoles connected"),
}


def counters_line(counters: dict[str, Any]) -> str:
    """The counters on one line, each labelled in the current language."""
    return "   ".join(labelled(_(COUNTERS[k]) if k in COUNTERS else k, plain(v))
                      for k, v in counters.items())


# `console info` keys as a technician reads them.
INFO = {
    "name": N_("program"), "protocol": N_("protocol version"), "table": N_("table name"),
    "t": N_("time on the table clock (s)"), "methods": N_("commands"),
    "technician_needed": N_("commands that need a technician"),
    "event_log_run": N_("event log run"), "event_log_head": N_("event log chain head"),
    "access": N_("who may use each command"),
}
# Access levels of the API's methods (firmware/api/access.py), as said.
ACCESS = {"open": N_("anyone"), "technician": N_("a technician"),
          "motion": N_("a technician (motion: test mode while a hand is in play)")}


def info_lines(result: dict[str, Any]) -> list[str]:
    """`console info`: labelled lines, the self-tests one a line."""
    lines = []
    for key, value in result.items():
        if key == "tests" and isinstance(value, list):
            lines.append(labelled(_("self-tests"), ""))
            lines.extend(f"  {plain(t.get('number')):>3}  {plain(t.get('name')):<12} "
                         f"{plain(t.get('label'))}" for t in value if isinstance(t, dict))
            continue
        if key == "access" and isinstance(value, dict):
            value = {method: _(ACCESS[level]) if level in ACCESS else level
                     for method, level in value.items()}
        lines.append(labelled(_(INFO[key]) if key in INFO else key, plain(value)))
    return lines


def health_lines(report: dict[str, Any], today: datetime.date) -> list[str]:
    """The table's health: warnings first (each with its date), then the trends, the
    run-hours and the schedule by usage."""
    lines = [_("hands dealt: {hands}; table time: {hours} h").format(
        hands=report.get("hands", 0), hours=report.get("table_hours", 0))]
    warnings = report.get("warnings") or []
    lines.append(_("maintenance warnings:") if warnings else _("maintenance warnings: none"))
    for w in warnings:
        measure = w.get("measure") or {}
        where = {"side": w.get("side"), "set": measure.get("set")}
        due = today + datetime.timedelta(days=int(w.get("due_days", 0)))
        when = (_("today") if w.get("due_days", 0) <= 0 else
                _("within a day") if w["due_days"] <= 1 else _("within a week"))
        lines.append("  " + _("{job} {when} (by {date}): {part}, {why}").format(
            job=_(w["job"]).format(**where), when=when, date=due.isoformat(),
            part=_(w["part"]).format(**where), why=_(w["why"]).format(**measure)))
    trends = report.get("trends") or {}
    if trends:
        lines.append(_("travel and build times against new:"))
        lines += ["  " + _("{mechanism}: {percent:+d} % (new {new} s)").format(
            mechanism=_(t["part"]).format(side=t.get("side")) if "part" in t and (
                "." not in m) else m,
            percent=round((t["ratio"] - 1) * 100), new=t["as_new_s"])
            for m, t in trends.items()]
    hours = report.get("run_hours") or {}
    if hours:
        lines.append(_("motor run-hours: {hours}").format(
            hours=", ".join(f"{m.removeprefix('motor.')} {h:g}" for m, h in hours.items())))
    lines.append(_("maintenance schedule (by hands dealt):"))
    every = {"daily": _("daily"), "weekly": _("weekly"), "monthly": _("monthly")}
    for job in report.get("schedule") or []:
        state = _("DUE") if job["due"] else _("ok")
        lines.append("  " + _("[{state}] {every} ({hands} hands) {job}: {text}; {since} "
                              "hands since last done").format(
            state=state, every=every.get(job["every"], job["every"]),
            hands=job["every_hands"], job=job["job"], text=_(job["text"]),
            since=job["since_hands"]))
    return lines
