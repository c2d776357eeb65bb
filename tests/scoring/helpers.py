"""Short spellings of declared wins for the variant tests."""

from __future__ import annotations

import pytest

from rules.errors import RulesError
from rules.scorekeeper import score_request


def meld(kind: str, tiles: str, source: str | None = "across", claimed: str | None = None):
    codes = tiles.split()
    out = {"type": kind, "tiles": codes, "from": source}
    if source is not None:
        out["claimed"] = claimed or codes[0]
    return out


def hand(variant: str, concealed: str, win: str, *, melds=(), seat="S", prevalent="E",
         **extra) -> dict:
    out = {"variant": variant, "concealed": concealed.split(), "melds": list(melds),
           "win_tile": win, "seat_wind": seat, "prevalent_wind": prevalent}
    out.update(extra)
    return out


def scored(h: dict) -> dict:
    return score_request(h)


def names(answer: dict) -> dict[str, int]:
    return {f["name_zh"]: f["points"] * f["count"] for f in answer["fans"]}


def refused(h: dict) -> str:
    with pytest.raises(RulesError) as info:
        score_request(h)
    return str(info.value)


def tiles(text: str) -> list[str]:
    """Tile codes spelled with spaces."""
    return text.split()
