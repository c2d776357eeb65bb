"""Mermaid state diagrams of the firmware's machines, generated from their own data.

`python -m firmware.diagrams docs/state-machines.md` rewrites the file; a test fails
when the file is stale. Only for docs: the daemon never builds a GraphMachine.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from transitions.extensions.diagrams import GraphMachine

from firmware import build, cycle, dice, lid, plate, side

MACHINES: list[tuple[str, ModuleType, str]] = [
    ("Table cycle", cycle, "firmware/cycle.py"),
    ("Build of one set", build, "firmware/build.py"),
    ("Side builder (one per side)", side, "firmware/side.py"),
    ("Lid", lid, "firmware/lid.py"),
    ("Wall lift plate (one per side)", plate, "firmware/plate.py"),
    ("Dice", dice, "firmware/dice.py"),
]


class _Model:
    pass


def mermaid(module: ModuleType) -> str:
    model = _Model()
    GraphMachine(model=model, states=module.STATES, transitions=module.TRANSITIONS,
                 initial=module.INITIAL, auto_transitions=False, graph_engine="mermaid",
                 show_conditions=True)
    text = model.get_graph().draw(None)  # type: ignore[attr-defined]
    # Drop the front matter and the "active state" styling: the docs show no run.
    lines = [line.rstrip() for line in text.splitlines()]
    start = lines.index("stateDiagram-v2")
    return "\n".join(line for line in lines[start:]
                     if not line.strip().startswith(("classDef", "Class ")) and line.strip())


def document() -> str:
    parts = ["# State machines", "",
             "Generated from the machines' own STATES and TRANSITIONS by",
             "`make diagrams` (`python -m firmware.diagrams docs/state-machines.md`).",
             "Do not edit by hand: a test fails when this file is stale.", ""]
    for title, module, source in MACHINES:
        parts += [f"## {title}", "", f"Source: `{source}`", "", "```mermaid",
                  mermaid(module), "```", ""]
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m firmware.diagrams FILE", file=sys.stderr)
        return 2
    Path(argv[0]).write_text(document(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
