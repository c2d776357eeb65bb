"""Mermaid state diagrams of the firmware's machines, generated from their own data.

`python -m firmware.diagrams docs/state-machines.md` rewrites the file; a test fails
when the file is stale. Only for docs: the daemon never builds a GraphMachine.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from transitions.extensions.diagrams import GraphMachine

from firmware.machines import build, cycle, dice, lid, plate, side

MACHINES: list[tuple[str, ModuleType, str]] = [
    ("Table cycle", cycle, "firmware/machines/cycle.py"),
    ("Build of one set", build, "firmware/machines/build.py"),
    ("Side builder (one per side)", side, "firmware/machines/side.py"),
    ("Lid", lid, "firmware/machines/lid.py"),
    ("Wall lift plate (one per side)", plate, "firmware/machines/plate.py"),
    ("Dice", dice, "firmware/machines/dice.py"),
]


RULES = [
    "Every machine has `fail` (from any state to `fault`) and `recover` (from `fault`",
    "back to the state it was in, named by the caller: `recovering_to`).",
    "",
    "- **One shutdown path.** `fail` is only fired by the controller's shutdown path",
    "  (`firmware/faults/shutdown.py`): the safe outputs of the scope are driven first and",
    "  latched, so no entry or exit callback, timer or hook can start a motor of that",
    "  scope again; only then are the machines parked. What follows homing runs as the",
    "  `homed` transition's `after`, never on leaving `homing` (a fault leaves it too).",
    "- **Recovery is declared.** After the last error is cleared the latch is released",
    "  and each parked machine takes its `recover` transition; the entry callback of",
    "  the state it returns to re-reads the sensors and re-issues the interrupted",
    "  motion. The lid takes `reset` then `settle` (to what its sensors show), a plate",
    "  `reset` (at home) or `rehome`, the dice `reset`. A machine's state is set",
    "  directly only by the journal restore at boot (a staged set).",
    "- **Across a power cut.** While a fault holds the table the journal keeps each",
    "  parked machine as the state its `recover` would return it to (a staged set, a",
    "  raise, a deal, a raise or deal restored at boot and not yet resumed), and is",
    "  written again once a resume is done; at boot that staged set is restored and",
    "  `homed` goes on to `raising` or `dealing`.",
    "- **One owner per mechanism** (`firmware/machines/owner.py`): the cycle, the build, test",
    "  mode, jog and diagnosis checks ask it for the lid, plates, heads, conveyors,",
    "  disc and dice; a second user is refused with the reason. A jog also keeps",
    "  the physical interlocks: disc, ring, conveyors and plates stay still while the",
    "  lid is away from its lower stop, and the lid does not open over a running build.",
    "- **Plausibility.** A stop sensor seen sooner than 0.7 of the learned travel after",
    "  a whole motion is a glitch and the machine stays where it is (opening, closing,",
    "  returning); later than k·T is a fault. A lid stop that drops back while the lid",
    "  rests takes `slipped` (drive to that stop again), unless it is the lower stop",
    "  while a motor it guards (feed, plates) runs: that is `lid.not_lowering`. A raise",
    "  resumed with the lid off its lower stop closes the lid first (`lid_closed` in",
    "  `raising`). A missed lid stop is a",
    "  suspect; the lid then travels to the other stop first, and only a full-length",
    "  travel there at healthy speed (0.8·T to the drift limit T·(1 + margin)) counts",
    "  as evidence; with `degrade_after` signs the sensor is declared failed (a timed",
    "  stop from then on; never for the lower stop, the interlock of the feed and the",
    "  walls: it stays a fault until replaced). A slow travel back proves nothing: a",
    "  slow motor stopped short at k·T also comes back slowly.",
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
             "Do not edit by hand: a test fails when this file is stale.", "",
             *RULES, ""]
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
