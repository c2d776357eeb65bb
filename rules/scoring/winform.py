"""A declared win as a player types it at the console, turned into the API's `score`.

Tiles are the codes of docs/scoring.md, spaced or packed by suit: "W111 B234 F2" is
W1 W1 W1 B2 B3 B4 F2. A meld is its type, its tiles, and who it was taken from; a chow
marks the tile it took with a star: "chow T1 *T2 T3 left; pung F3 across; kong J3" (a
kong from nobody is concealed). The rules engine checks the rest (firmware/hands/scoring.py).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from ..i18n import _
from ..tiles import FLOWERS, HONOURS, SUITED

SOURCES = ("left", "across", "right")
MELD_TYPES = ("chow", "pung", "kong")
# The players' own words for the same, so a Chinese table can type them too.
WORDS = {"吃": "chow", "碰": "pung", "杠": "kong", "上家": "left", "对家": "across",
         "下家": "right"}
# ASCII digits only: \d would take "W١" or "W²" for a tile the daemon then refuses.
_PACKED = re.compile(r"([WBTFJHwbtfjh])([0-9]+)")
CODES = frozenset(SUITED + HONOURS + FLOWERS)


def _plain(text: str) -> str:
    """Full-width letters, digits and punctuation (a Chinese input method's) as ASCII."""
    return unicodedata.normalize("NFKC", text)


@dataclass
class WinForm:
    """What the form holds, as typed."""

    seat: str
    concealed: str = ""
    melds: str = ""
    win_tile: str = ""
    discarder: str = ""
    flowers: str = ""
    self_drawn: bool = False
    fourth_tile: bool = False
    kong: bool = False
    last_tile: bool = False
    zuozhuang: bool = False      # Tianjin 坐庄, the players' choice this hand
    draw: bool = False


def tiles(text: str, where: str) -> list[str]:
    """Tile codes from spaced or packed text ("W111 B2" → W1 W1 W1 B2)."""
    out: list[str] = []
    for word in _plain(text).replace(",", " ").split():
        star = word.startswith("*")
        packed = word.lstrip("*")
        parts = _PACKED.findall(packed)
        if not parts or "".join(s + d for s, d in parts) != packed:
            raise ValueError(_("{where}: {word} is not a tile (W1-W9, B1-B9, T1-T9, F1-F4, "
                               "J1-J3)").format(where=where, word=word))
        codes = [suit.upper() + digit for suit, digits in parts for digit in digits]
        for code in codes:
            if code not in CODES:
                raise ValueError(_("{where}: {word} is not a tile (W1-W9, B1-B9, T1-T9, "
                                   "F1-F4, J1-J3)").format(where=where, word=code))
        if star:
            codes[0] = "*" + codes[0]
        out += codes
    return out


def meld(text: str, number: int) -> dict[str, Any]:
    """One meld: "chow T1 *T2 T3 left", "pung F3 across", "kong J3" (concealed)."""
    words = [WORDS.get(w, w.lower()) for w in _plain(text).split()]
    where = _("meld {n}").format(n=number)
    if not words or words[0] not in MELD_TYPES:
        raise ValueError(_("{where}: start with chow, pung or kong").format(where=where))
    kind = words[0]
    source = words[-1] if words[-1] in SOURCES else None
    codes = tiles(" ".join(words[1:-1] if source else words[1:]), where)
    starred = [c[1:] for c in codes if c.startswith("*")]
    codes = [c.lstrip("*") for c in codes]
    size = 4 if kind == "kong" else 3
    if not codes:
        raise ValueError(_("{where}: name its tiles, e.g. pung F3 across").format(
            where=where))
    if kind != "chow" and len(codes) == 1:
        codes *= size           # "pung F3" is F3 F3 F3
    if source is None and kind != "kong":
        raise ValueError(_("{where}: say whom it was taken from (left, across, right); "
                           "only a kong can be concealed").format(where=where))
    out: dict[str, Any] = {"type": kind, "tiles": codes, "from": source}
    if source is not None:
        if kind == "chow" and len(starred) != 1:
            raise ValueError(_("{where}: mark the tile taken with a star, e.g. T1 *T2 T3")
                             .format(where=where))
        out["claimed"] = starred[0] if starred else codes[0]
    return out


def request(form: WinForm) -> dict[str, Any]:
    """The API's `score` params for what the form holds; ValueError says what is wrong."""
    seat_text = _plain(form.seat).strip()
    if seat_text not in ("0", "1", "2", "3"):
        raise ValueError(_("seat: the position 0-3 of the player who won"))
    seat = int(seat_text)
    if form.draw:
        return {"seat": seat, "draw": True}
    concealed = tiles(form.concealed, _("concealed tiles"))
    won = tiles(form.win_tile, _("winning tile"))
    if len(won) != 1:
        raise ValueError(_("winning tile: give exactly one tile"))
    melds = [meld(part, n) for n, part in enumerate(
        (p for p in _plain(form.melds).split(";") if p.strip()), 1)]
    win: dict[str, Any] = {
        "concealed": concealed, "melds": melds, "win_tile": won[0],
        "self_drawn": form.self_drawn, "fourth_tile": form.fourth_tile, "kong": form.kong,
        "last_tile": form.last_tile, "flowers": _flowers(form.flowers)}
    said = _plain(form.discarder).strip()
    discarder = WORDS.get(said, said.lower())
    if discarder:
        if discarder not in SOURCES:
            raise ValueError(_("discarder: left, across or right"))
        win["discarder"] = discarder
    if form.zuozhuang:
        # Sent only when chosen: a variant without 坐庄 refuses the key.
        win["zuozhuang"] = True
    return {"seat": seat, "win": win}


def _flowers(text: str) -> int | list[str]:
    text = _plain(text).strip()
    if not text:
        return 0
    if text.isascii() and text.isdigit():
        return int(text)
    # The variants with flower tiles name them (H1-H8).
    return tiles(text, _("flowers"))


def result_lines(result: dict[str, Any]) -> list[str]:
    """The daemon's answer to `score` as the players read it."""
    answer = result.get("answer")
    lines: list[str] = []
    if answer is not None:
        if not answer["win"]:
            lines.append(_("not a win: {reason}").format(reason=answer.get("reason", "")))
            if "fine" not in result:
                return lines
        for fan in answer["fans"] if answer["win"] else ():
            count = f" ×{fan['count']}" if fan["count"] > 1 else ""
            lines.append(f"  {fan['name_zh']} {fan['name_en']}{count}: {fan['points']}")
        if answer["win"]:
            lines.insert(0, _("win: {total} points").format(total=answer["total"]))
    else:
        lines.append(_("a drawn hand: nobody pays"))
    hand = result.get("hand") or result.get("fine") or {}
    payments = hand.get("payments") or {}
    if payments:
        lines.append(_("payments: {list}").format(list=", ".join(
            _("seat {seat} {points:+d}").format(seat=s, points=v)
            for s, v in sorted(payments.items(), key=lambda kv: str(kv[0])))))
    if "scores" in result:
        lines.append(_("scores: {list}").format(list=", ".join(
            _("seat {seat} {points:+d}").format(seat=s, points=v)
            for s, v in enumerate(result["scores"]))))
    if result.get("next_dealer") is not None:
        lines.append(_("next dealer: seat {seat}").format(seat=result["next_dealer"]))
    return lines
