"""What `mjtable run` shows: a picture of the table seen from above, or log lines.

Seen from above, position 0 sits at the bottom and positions run counter-clockwise:
1 on the right, 2 at the top, 3 on the left. Stack k = 0 is at each owner's right
end, so the bottom wall fills from the right, the right wall from the top, the top
wall from the left and the left wall from below.

The picture is drawn from a `snapshot` taken inside the loop, so drawing never reads
controller state and costs the loop only the copy.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any, Protocol

from firmware import words
from firmware.i18n import N_, _, join
from firmware.printable import printable
from firmware.why import fault_why

if TYPE_CHECKING:   # rich comes with the `console` extra; a headless table logs lines
    from rich.panel import Panel
    from rich.text import Text

STACK_BUILT, STACK_HALF, STACK_EMPTY = "▮", "▪", "·"
# Rows the full screen needs besides the side walls; below that the walls fold.
# The log's names of the table's own events: the event kind is the id, what a person
# reads is the name (English keeps the kind, so a journal's greps still find it).
EVENT_NAMES = {"build.started": N_("build.started"), "build.staged": N_("build.staged"),
               "start": N_("start"), "stop": N_("stop"),
               "software.error": N_("software.error"),
               "handoff.refused": N_("handoff.refused"),
               "handoff.refused.revealed": N_("handoff.refused.revealed")}
FIXED_ROWS = 13
MAX_FAULT_LINES = 3


class Pictured(Protocol):
    """A table that draws its one status picture (the controller's `status`)."""

    def status(self) -> dict[str, Any]: ...


def snapshot(ctl: Pictured) -> dict[str, Any]:
    """Everything the picture needs, copied inside the loop from the one status."""
    return snap_from_status(ctl.status())


def snap_from_status(status: dict[str, Any]) -> dict[str, Any]:
    """The picture's snapshot of a status (`Controller.status`, or an API reply)."""
    return {
        "table": status.get("table", "?"), "t": status.get("t", 0.0),
        "hand": status.get("cycle", 0), "state": status.get("state", "?"),
        "build": status.get("build", "?"), "lid": status.get("lid", "?"),
        "dice": list(status.get("dice", {}).get("faces", [])),
        "display": status.get("display", ""), "lamps": status.get("lamps", {}),
        "sides": [(s["state"], s["stacked"], s["target"]) for s in status.get("sides", [])],
        "set_in_play": status.get("set_in_play"), "set_building": status.get("set_building"),
        "held_by": status.get("held_by"),
        "faults": [(f["code"], f["id"], f["where"], f["diagnosis"]["summary"],
                    f["diagnosis"]["remedy"]) for f in status.get("faults", [])],
    }


def _wall(side: tuple[str, int, int]) -> str:
    _state, stacked, target = side
    stacks = target // 2
    full, half = divmod(stacked, 2)
    return (STACK_BUILT * full + STACK_HALF * half + STACK_EMPTY * stacks)[:stacks]


def _fold(wall: str, rows: int) -> str:
    """A side wall drawn in `rows` rows: each row shows several stacks."""
    per = -(-len(wall) // rows)
    out = []
    for i in range(0, len(wall), per):
        part = wall[i:i + per]
        out.append(STACK_EMPTY if set(part) == {STACK_EMPTY} else
                   STACK_BUILT if set(part) == {STACK_BUILT} else STACK_HALF)
    return "".join(out)


def live_view_available() -> bool:
    """Whether the live picture can be drawn (rich, from the `console` extra, is installed)."""
    return importlib.util.find_spec("rich") is not None


def center(text: str, width: int) -> str:
    """`text` centred in `width` terminal cells (a CJK character takes two)."""
    gap = max(0, width - words.cells(text))
    return " " * (gap // 2) + text + " " * (gap - gap // 2)


def picture(snap: dict[str, Any], rows: int | None = None) -> Text:
    """The table from above: four walls around the lid, built stacks in green.

    `rows` folds the side walls into fewer rows, for short screens.
    """
    from rich.text import Text

    text = Text(picture_plain(snap, rows))
    text.highlight_regex(f"[{STACK_BUILT}{STACK_HALF}]", "green")
    return text


def picture_plain(snap: dict[str, Any], rows: int | None = None) -> str:
    """`picture` without colours (no rich needed: a headless install's console)."""
    sides = snap["sides"]
    held_by = snap.get("held_by")
    stacks = sides[0][2] // 2
    # A character cell is twice as tall as wide: space the horizontal walls out.
    top, bottom = " ".join(_wall(sides[2])), " ".join(_wall(sides[0])[::-1])
    left, right = _wall(sides[3])[::-1], _wall(sides[1])
    if rows is not None and rows < stacks:
        left, right = _fold(left, rows), _fold(right, rows)
    height = len(left)
    inner = 2 * stacks + 1
    dice = "-".join(map(str, snap["dice"])) or "·"
    centre = {height // 2 - 1: _("lid {state}").format(state=words.state(snap["lid"],
                                                                          held_by)),
              height // 2: _("dice {faces}").format(faces=dice)}

    def label(n: int) -> str:
        state, stacked, target = sides[n]
        return f"{words.side(n)} {words.state(state, held_by)} {stacked}/{target}"

    lines = [" " + center(label(2), inner), "  " + top]
    lines += [f"{left[i]}{center(centre.get(i, ''), inner - 2)}{right[i]}"
              for i in range(height)]
    lines += ["  " + bottom, " " + center(label(0), inner)]
    return "\n".join([*lines, f"◀ {label(3)}   {label(1)} ▶"])


def lamps_text(lamps: dict[str, bool]) -> Text:
    """The lamps, lit ones bright."""
    from rich.text import Text

    return Text("  ").join(
        Text(("● " if on else "○ ") + words.lamp(name), style="bold yellow" if on else "dim")
        for name, on in lamps.items())


def lamps_plain(lamps: dict[str, bool]) -> str:
    """`lamps_text` without colours."""
    return "  ".join(("● " if on else "○ ") + words.lamp(name) for name, on in lamps.items())


def screen(snap: dict[str, Any], speed: float = 1.0,
           size: tuple[int, int] | None = None) -> Panel:
    """The whole live view; `size` (columns, rows) of the terminal fits it there."""
    from rich.panel import Panel
    from rich.text import Text

    stacks = snap["sides"][0][2] // 2
    rows = None
    width = None
    if size is not None:
        width = size[0]
        # Whatever does not fit goes first from the side walls, which fold.
        spare = size[1] - FIXED_ROWS - min(len(snap["faults"]), MAX_FAULT_LINES)
        rows = max(2, min(stacks, spare))
    in_play = words.set_name(snap["set_in_play"])
    body = Text.assemble(
        picture(snap, rows), "\n", lamps_text(snap["lamps"]), "\n",
        _("set in play: {in_play}   building: {building} ({state})").format(
            in_play=in_play, building=words.set_name(snap["set_building"]),
            state=words.state(snap["build"], snap.get("held_by"))), "\n",
        _("display: {display}").format(display=snap["display"] or "·"), "\n")
    faults = snap["faults"]
    shown = faults if size is None else faults[:MAX_FAULT_LINES]
    for code, fault_id, where, summary, remedy in shown:
        said = _("{fault}: {summary} — {remedy}").format(
            fault=words.fault_at(code, fault_id, where), summary=summary, remedy=join(remedy))
        line = Text(said, style="bold red")
        if width is not None:
            line.truncate(width - 4, overflow="ellipsis")
        body.append_text(line)
        body.append("\n")
    if len(shown) < len(faults):
        body.append(_("… and {n} more faults (mjtable console faults)").format(
            n=len(faults) - len(shown)) + "\n", style="bold red")
    held_by = snap.get("held_by")
    if held_by:
        body.append(words.state(held_by).upper() + "\n", style="bold black on yellow")
    elif not faults:
        body.append(_("no faults") + "\n", style="green")
    body.append(_("Ctrl-C stops the table (every motor off)"), style="dim")
    title = _("mjtable · {table} · hand {hand} · {state} · t={t}s").format(
        table=snap["table"], hand=snap["hand"],
        state=words.phase(snap["state"], held_by, snap["set_in_play"]), t=f"{snap['t']:.0f}")
    if speed != 1:
        title += f" · ×{speed:g}"
    return Panel(body, title=title, expand=False)


def log_line(event: dict[str, Any]) -> str | None:
    """One plain line per event worth logging (stdout is not a terminal); strings from
    outside never reach it with their control characters."""
    line = _log_line(event)
    return printable(line) if line is not None else None


def _log_line(event: dict[str, Any]) -> str | None:
    kind, t = event["kind"], event["t"]
    if kind == "phase":
        return _("{t} hand {hand}: {state}").format(t=f"{t:10.3f}", hand=event["cycle"],
                                                     state=words.state(event["state"],
                                                                 event.get("held_by")))
    if kind in ("build.started", "build.staged"):
        extra = (" " + _("in {seconds} s").format(seconds=event["build_s"])
                 if "build_s" in event else "")
        return f"{t:10.3f} {_(EVENT_NAMES[kind])} {words.set_name(event['set'])}{extra}"
    if kind == "walls.committed":
        # Before the deal: players note it and check the hand's record later.
        return _("{t} walls up hand {hand}: commitment {commitment}").format(
            t=f"{t:10.3f}", hand=event["cycle"], commitment=event["commitment"])
    if kind == "handoff":
        return _("{t} handoff hand {hand} set {set} {commitment}").format(
            t=f"{t:10.3f}", hand=event["cycle"], set=event["set"],
            commitment=event["commitment"])
    if kind == "fault":
        where = words.fault_at(event["code"], event["id"], event["where"])
        line = f"{t:10.3f} " + _("FAULT") + f" {where}: {join(event['diagnosis']['remedy'])}"
        seen = fault_why(event.get("evidence"))
        return line + " " + _("(seen: {why})").format(why=seen) if seen else line
    if kind in ("start", "stop", "software.error", "handoff.refused",
                "handoff.refused.revealed"):
        detail = " ".join(f"{k}={_plain(v)}" for k, v in event.items()
                          if k not in ("t", "kind"))
        name = _(EVENT_NAMES[kind])
        return f"{t:10.3f} {name} {detail}" if detail else f"{t:10.3f} {name}"
    return None


def _plain(value: Any) -> str:
    """A value for a person: no Python reprs (dicts, None, quotes)."""
    if value is None:
        return "-"
    if isinstance(value, dict):
        return ",".join(f"{k}:{_plain(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ",".join(_plain(v) for v in value)
    return str(value)
