"""Turning API replies into what a technician reads (shared by the CLI and the TUI)."""

from __future__ import annotations

import datetime
from typing import Any

from rich.text import Text

from firmware.printable import printable
from firmware.view import picture


def snap_from_status(status: dict[str, Any]) -> dict[str, Any]:
    """The live view's snapshot, rebuilt from an API status reply."""
    return {
        "table": status.get("table", "?"), "t": status.get("t", 0.0),
        "hand": status.get("cycle", 0), "state": status.get("state", "?"),
        "build": status.get("build", "?"), "lid": status.get("lid", "?"),
        "dice": list(status.get("dice", {}).get("faces", [])),
        "display": status.get("display", ""), "lamps": status.get("lamps", {}),
        "sides": [(s["state"], s["stacked"], s["target"]) for s in status.get("sides", [])],
        "set_in_play": status.get("set_in_play"), "set_building": status.get("set_building"),
        "faults": [(f["code"], f["id"], f["where"], f["diagnosis"]["summary"],
                    f["diagnosis"]["remedy"]) for f in status.get("faults", [])],
    }


def table_text(status: dict[str, Any]) -> Text:
    """The table from above, with lamps, display, plates and sets."""
    snap = snap_from_status(status)
    lamps = Text("  ").join(
        Text(("● " if on else "○ ") + name.removeprefix("lamp."),
             style="bold yellow" if on else "dim")
        for name, on in snap["lamps"].items())
    plates = " ".join(f"{n}:{state}" for n, state in enumerate(status.get("plates", [])))
    service = status.get("service", {})
    mode = []
    if status.get("estopped"):
        mode.append(Text("E-STOP ACTIVE", style="bold white on red"))
    if service.get("test_mode"):
        mode.append(Text(f"TEST MODE ({service.get('running') or 'idle'})",
                         style="bold black on yellow"))
    return Text.assemble(
        picture(snap), "\n", lamps, "\n",
        f"display: {snap['display'] or '·'}   plates: {plates}\n",
        f"set in play: {snap['set_in_play'] or 'none yet'}   set building: "
        f"{snap['set_building']} ({snap['build']})   hand {snap['hand']} · {snap['state']}",
        *(["\n", *mode] if mode else []))


def fault_lines(faults: list[dict[str, Any]]) -> list[str]:
    lines = []
    for f in faults:
        d = f["diagnosis"]
        ref = f"#{f['ref']} " if "ref" in f else ""
        state = "" if f.get("active", True) else " (cleared)"
        lines.append(f"{ref}{f['code']} {f['id']} at {f['where']} (hand {f['cycle']}, "
                     f"t={f['sim_time_s']} s){state}: {d['summary']}")
        lines.append(f"    likely: {'; '.join(d['causes'])}")
        lines.append(f"    do: {'; '.join(d['remedy'])}")
    return lines


def log_line(row: dict[str, Any]) -> str:
    """One event-log row as a line."""
    skip = {"seq", "run", "wall", "t", "cycle", "kind", "chain"}
    wall = row.get("wall")
    when = (datetime.datetime.fromtimestamp(wall).strftime("%Y-%m-%d %H:%M:%S")
            if isinstance(wall, int | float) else "-")
    detail = " ".join(f"{k}={v}" for k, v in row.items() if k not in skip)
    cycle = row.get("cycle")
    # Names and params come from outside: never raw control characters on a terminal.
    return printable(f"{row.get('seq', ''):>6} {when} t={row.get('t', 0):9.3f} "
                     f"hand {cycle if cycle is not None else '-':>3} {row.get('kind')} "
                     f"{detail}")


def test_lines(results: list[dict[str, Any]]) -> list[str]:
    lines = []
    for r in results:
        lines.append(f"test {r['number']:>2} {r['test']:<11} {r['result']}  {r['detail']} "
                     f"({r['took_s']} s)")
        diagnosis = r.get("diagnosis")
        if diagnosis:
            lines.append(f"    {diagnosis['code']} {diagnosis['fault']}: "
                         f"likely {'; '.join(diagnosis['causes'])}")
            lines.append(f"    do: {'; '.join(diagnosis['remedy'])}")
    return lines


def diagnosis_lines(result: dict[str, Any]) -> list[str]:
    """A guided diagnosis as a technician reads it: verdict, checks, what to do."""
    mark = "normal" if result.get("normal") else "NOT NORMAL"
    lines = [f"{result['described']}: {mark}", f"  {result['verdict']}"]
    for check in result.get("checks", []):
        if not check.get("run"):
            lines.append(f"  check {check['check']} not run: {check['why']}")
            continue
        outcome = "passed" if check.get("ok") else "FAILED"
        lines.append(f"  check {check['check']} {outcome}"
                     + (f": {check['note']}" if check.get("note") else ""))
        for at, name, value in check.get("edges", []):
            lines.append(f"    {at:7.3f} s  {name} -> {value}")
    for step in result.get("remedy", []):
        lines.append(f"  - {step}")
    return lines
