"""Files a player checks come from someone else (the operator, a forged export): what
`mjtable verify-deals`, `deal` and `audit` print from them reaches the terminal
escaped, never as raw control or bidi characters."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from mjtable.cli import main
from tests.rules.layouts import random_walls

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202e"


def _raw(text: str) -> list[str]:
    return [c for c in ("\x1b", "\x07", "\u202e") if c in text]


def test_a_forged_deal_file_reaches_the_terminal_escaped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "forged.jsonl"
    first = {"commitment": "sha256:" + "0" * 64, "table": {"cycle": 1, "set": HOSTILE}}
    second = {"commitment": "sha256:" + "1" * 64, "previous_commitment": HOSTILE,
              "table": {"cycle": 2, "set": "A"}}
    path.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    assert main(["verify-deals", str(path)]) == 1
    out = capsys.readouterr()
    assert "BROKEN" in out.err and "\\x1b" in out.err
    assert _raw(out.out + out.err) == []


def test_a_deal_request_with_hostile_text_is_printed_escaped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = {"variant": "mcr", "dealer_position": 2,
               "walls": random_walls("mcr", random.Random(11)), "throws": [[3, 5], [4, 2]],
               "table": {"id": HOSTILE, "cycle": 1, "set": HOSTILE}}
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(request))
    main(["deal", str(path)])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**request, "variant": HOSTILE}))
    main(["deal", str(bad)])
    out = capsys.readouterr()
    assert _raw(out.out + out.err) == []
