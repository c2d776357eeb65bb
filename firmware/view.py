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
from typing import TYPE_CHECKING, Any

from firmware.controller import Controller

if TYPE_CHECKING:   # rich comes with the `console` extra; a headless table logs lines
    from rich.panel import Panel
    from rich.text import Text

STACK_BUILT, STACK_HALF, STACK_EMPTY = "▮", "▪", "·"
LAMPS = ["lamp.ready", "lamp.building", *[f"lamp.dealer.{n}" for n in range(4)]]


def snapshot(ctl: Controller) -> dict[str, Any]:
    """Everything the picture needs, copied inside the loop."""
    return {
        "table": ctl.config.table.id,
        "t": ctl.clock.now(),
        "hand": ctl.cycle.number,
        "state": ctl.cycle.state,
        "build": ctl.build.state,
        "lid": ctl.lid.state,
        "dice": list(ctl.dice.faces),
        "display": ctl.hal.read("display"),
        "lamps": {name: bool(ctl.hal.read(name)) for name in LAMPS},
        "sides": [(s.state, s.stacked, s.target) for s in ctl.sides],
        "set_in_play": ctl.cycle.set_in_play,
        "set_building": ctl.cycle.set_building,
        "faults": [(f.code, f.id, f.where, f.kind.summary, f.diagnosis()["remedy"])
                   for f in ctl.faults if f.active],
    }


def _wall(side: tuple[str, int, int]) -> str:
    _, stacked, target = side
    stacks = target // 2
    full, half = divmod(stacked, 2)
    return (STACK_BUILT * full + STACK_HALF * half + STACK_EMPTY * stacks)[:stacks]


def live_view_available() -> bool:
    """Whether the live picture can be drawn (rich, from the `console` extra, is installed)."""
    return importlib.util.find_spec("rich") is not None


def picture(snap: dict[str, Any]) -> Text:
    """The table from above: four walls around the lid."""
    from rich.text import Text

    sides = snap["sides"]
    stacks = sides[0][2] // 2
    # A character cell is twice as tall as wide: space the horizontal walls out.
    top, bottom = " ".join(_wall(sides[2])), " ".join(_wall(sides[0])[::-1])
    left, right = _wall(sides[3])[::-1], _wall(sides[1])
    inner = 2 * stacks + 1
    dice = "-".join(map(str, snap["dice"])) or "·"
    centre = {stacks // 2 - 1: f"lid {snap['lid']}", stacks // 2: f"dice {dice}"}

    def label(n: int) -> str:
        state, stacked, target = sides[n]
        return f"side {n} {state} {stacked}/{target}"

    lines = [" " + label(2).center(inner), "  " + top]
    lines += [f"{left[i]}{centre.get(i, '').center(inner - 2)}{right[i]}"
              for i in range(stacks)]
    lines += ["  " + bottom, " " + label(0).center(inner)]
    text = Text("\n".join(lines))
    text.highlight_regex(f"[{STACK_BUILT}{STACK_HALF}]", "green")
    return Text.assemble(text, "\n", f"◀ {label(3)}   {label(1)} ▶")


def screen(snap: dict[str, Any], speed: float = 1.0) -> Panel:
    """The whole live view."""
    from rich.panel import Panel
    from rich.text import Text

    lamps = Text("  ").join(
        Text(("● " if on else "○ ") + name.removeprefix("lamp."),
             style="bold yellow" if on else "dim")
        for name, on in snap["lamps"].items())
    in_play = snap["set_in_play"] or "none yet"
    body = Text.assemble(
        picture(snap), "\n\n", lamps, "\n",
        f"set in play: {in_play}   set building: {snap['set_building']} ({snap['build']})\n",
        f"display: {snap['display'] or '·'}\n")
    for code, fault_id, where, summary, remedy in snap["faults"]:
        body.append(f"{code} {fault_id} at {where}: {summary} — {'; '.join(remedy)}\n",
                    style="bold red")
    if not snap["faults"]:
        body.append("no faults\n", style="green")
    body.append("Ctrl-C stops the table (every motor off)", style="dim")
    title = (f"mjtable · {snap['table']} · hand {snap['hand']} · {snap['state']}"
             f" · t={snap['t']:.0f}s" + (f" · ×{speed:g}" if speed != 1 else ""))
    return Panel(body, title=title, expand=False)


def log_line(event: dict[str, Any]) -> str | None:
    """One plain line per event worth logging (stdout is not a terminal)."""
    kind, t = event["kind"], event["t"]
    if kind == "phase":
        return f"{t:10.3f} hand {event['cycle']}: {event['state']}"
    if kind in ("build.started", "build.staged"):
        extra = f" in {event['build_s']} s" if "build_s" in event else ""
        return f"{t:10.3f} {kind} set {event['set']}{extra}"
    if kind == "handoff":
        return f"{t:10.3f} handoff hand {event['cycle']} set {event['set']} {event['commitment']}"
    if kind == "fault":
        return (f"{t:10.3f} FAULT {event['code']} {event['id']} at {event['where']}: "
                f"{'; '.join(event['diagnosis']['remedy'])}")
    if kind in ("start", "stop", "software.error", "handoff.refused"):
        detail = {k: v for k, v in event.items() if k not in ("t", "kind")}
        return f"{t:10.3f} {kind} {detail}" if detail else f"{t:10.3f} {kind}"
    return None
