"""A short human-readable picture of a deal: the walls seen from above, and the hands.

Position 0 sits at the bottom of the picture, 1 on the right, 2 at the top, 3 on the
left (counter-clockwise seen from above). Each wall is drawn as its owner sees it
from the right end, so the ring runs clockwise around the picture. The tail stack
is marked "r", the first dealt stack "h" ("*" when they are the same stack).
"""

from __future__ import annotations

import unicodedata

from .i18n import N_, _

# Why each throw was made (the record's `purpose`), as said.
PURPOSES = {"second_thrower": N_("who throws next"), "break": N_("the break"),
            "wild": N_("the wild tile")}


def _slot(slot: list[int]) -> str:
    """A stack [p, k] or a tile [p, k, level] in words, never a Python list."""
    if len(slot) == 3:
        return _("wall {wall} stack {stack} level {level}").format(
            wall=slot[0], stack=slot[1], level=slot[2])
    return _("wall {wall} stack {stack}").format(wall=slot[0], stack=slot[1])


def _center(text: str, width: int) -> str:
    """`text` centred in `width` terminal columns (a CJK character takes two)."""
    cells = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    left = max(0, width - cells) // 2
    return " " * left + text + " " * max(0, width - cells - left)


def _faces(faces: list[int]) -> str:
    return "-".join(str(face) for face in faces)


def _code(tile) -> str:
    return tile if tile is not None else "--"


def _mark(record: dict, p: int, k: int) -> str:
    tail = record["break"]["tail_stack"] == [p, k]
    head = record["break"]["head_stack"] == [p, k]
    return "*" if tail and head else "r" if tail else "h" if head else " "


def picture(record: dict) -> str:
    """The walls as a square seen from above, then break, hands, flowers, wild."""
    walls = record["walls"]
    stacks = record["stacks_per_wall"]
    lines = []
    pad = " " * 8

    def row(p: int, ks) -> list[str]:
        return [pad + " ".join(_code(walls[p][k][0]) for k in ks),
                pad + " ".join(_code(walls[p][k][1]) for k in ks),
                pad + " ".join(f"{_mark(record, p, k):>2}" for k in ks)]

    lines.append(pad + _("wall 2 (position 2)"))
    lines += row(2, range(stacks))  # owner at the top faces down: k = 0 on the left
    width = 3 * stacks - 1
    for i in range(stacks):
        k3, k1 = stacks - 1 - i, i  # left wall: k grows upwards; right wall: downwards
        left = f"{_mark(record, 3, k3)}{_code(walls[3][k3][0])}/{_code(walls[3][k3][1])} "
        right = f" {_code(walls[1][k1][0])}/{_code(walls[1][k1][1])}{_mark(record, 1, k1)}"
        middle = " " * width
        if i == stacks // 2:
            middle = _center(_("wall 3 <   > wall 1"), width)
        lines.append(f"{left} {middle}{right}")
    lines += row(0, range(stacks - 1, -1, -1))  # owner at the bottom: k = 0 on the right
    lines.append(pad + _("wall 0 (position 0)"))

    b = record["break"]
    lines.append("")
    lines.append(_("{variant}: dealer at position {dealer}, break on wall {wall} count "
                   "{count}, tail stack {tail}, first stack {head}").format(
        variant=record["variant"], dealer=record["table"]["dealer_position"],
        wall=b["wall_position"], count=b["count"], tail=_slot(b["tail_stack"]),
        head=_slot(b["head_stack"])))
    dice = _(", ").join(_("{purpose} by {thrower}: {faces}").format(
        purpose=_(PURPOSES[d["purpose"]]) if d["purpose"] in PURPOSES else d["purpose"],
        thrower=d["thrower"], faces=_faces(d["faces"])) for d in record["dice"])
    lines.append(_("dice: {dice}").format(dice=dice))
    for seat, hand in record["hands"].items():
        flowers = record["flowers"][seat]
        extra = "   " + _("flowers: {flowers}").format(flowers=" ".join(flowers)) if flowers else ""
        lines.append(f"{seat} ({len(hand):2}): {' '.join(_code(t) for t in hand)}{extra}")
    wild = record["wild"]
    if wild:
        tiles = " ".join(wild["wild_tiles"]) if wild["wild_tiles"] else _("unknown")
        lines.append(_("wild ({kind}): indicator {indicator} at {slot} -> {tiles}").format(
            kind=wild["kind"], indicator=_code(wild["indicator"]),
            slot=_slot(wild["indicator_slot"]), tiles=tiles))
    lines.append(_("next draw {slot}, {left} tiles left in the wall").format(
        slot=_slot(record["next_draw"]), left=record["live_remaining"]))
    lines.append(_("commitment {commitment}").format(commitment=record["commitment"]))
    return "\n".join(lines)
