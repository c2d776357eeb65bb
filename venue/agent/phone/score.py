"""The phone's score form: what the page posts, turned into the daemon's `score` by the
console's own F4 form (rules/scoring/winform.py), so both send the same params; and
the daemon's answer as the players read it.

The page sends tiles as codes from its keyboard, never text: each is checked to be one
code before it joins winform's text, so nothing typed can reach the daemon as a word.
"""

from __future__ import annotations

import re
from typing import Any

from firmware.i18n import _
from rules.scoring import winform

_CODE = re.compile(r"[WBTFJH][1-9]")
FLAGS = ("self_drawn", "fourth_tile", "kong", "last_tile", "zuozhuang")
# The tiles' faces as Chinese players name them; an English reader sees the codes of
# docs/scoring.md, which are what the rules engine and `mjtable score` take.
SUIT_FACES = dict(zip("WBT", "万饼条", strict=True))   # 万 W, 饼 B, 条 T
HONOUR_FACES = {"F1": "东", "F2": "南", "F3": "西", "F4": "北", "J1": "中", "J2": "发",
                "J3": "白"}
KEYBOARD = [f"{s}{n}" for s in "WBT" for n in range(1, 10)] + list(HONOUR_FACES)


def faces(lang: str) -> dict[str, str]:
    if lang != "zh_CN":
        return {code: code for code in KEYBOARD}
    return {code: HONOUR_FACES.get(code) or code[1] + SUIT_FACES[code[0]] for code in KEYBOARD}


def _codes(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or len(value) > 18 or not all(
            isinstance(v, str) and _CODE.fullmatch(v) for v in value):
        raise ValueError(_("{where}: {word} is not a tile (W1-W9, B1-B9, T1-T9, F1-F4, "
                           "J1-J3)").format(where=where, word=str(value)[:40]))
    return value


def _meld(value: Any, number: int) -> str:
    """One meld as winform reads it: "chow T1 *T2 T3 left", "kong J3 J3 J3 J3"."""
    if not isinstance(value, dict) or value.get("type") not in winform.MELD_TYPES:
        raise ValueError(_("{where}: start with chow, pung or kong").format(
            where=_("meld {n}").format(n=number)))
    codes = _codes(value.get("tiles"), _("meld {n}").format(n=number))
    source = value.get("from")
    if source not in (*winform.SOURCES, None):
        raise ValueError(_("discarder: left, across or right"))
    claimed = value.get("claimed")
    if value["type"] == "chow" and claimed in codes:
        codes = list(codes)
        codes[codes.index(claimed)] = "*" + claimed
    return " ".join([value["type"], *codes, *([source] if source else [])])


def params(body: dict[str, Any]) -> dict[str, Any]:
    """The daemon's `score` params for what the page posted; ValueError says what is
    wrong, in the current language."""
    seat = body.get("seat")
    form = winform.WinForm(seat=str(seat) if type(seat) is int else "",
                           draw=body.get("draw") is True)
    if not form.draw:
        form.concealed = " ".join(_codes(body.get("concealed"), _("concealed tiles")))
        melds = body.get("melds") or []
        if not isinstance(melds, list) or len(melds) > 4:
            raise ValueError(_("{where}: start with chow, pung or kong").format(
                where=_("meld {n}").format(n=5)))
        form.melds = "; ".join(_meld(m, n) for n, m in enumerate(melds, 1))
        form.win_tile = " ".join(_codes(body.get("win_tile"), _("winning tile")))
        discarder = body.get("discarder")
        form.discarder = discarder if discarder in winform.SOURCES else ""
        flowers = body.get("flowers")
        form.flowers = str(flowers) if type(flowers) is int and 0 <= flowers <= 8 else ""
        for flag in FLAGS:
            setattr(form, flag, body.get(flag) is True)
    return winform.request(form)


def answer(result: dict[str, Any]) -> list[str]:
    """The daemon's answer in the current language: fans, total, payments, next dealer."""
    return winform.result_lines(result)
