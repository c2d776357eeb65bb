"""Technician names in any script (the Chinese guide shows `--technician 姓名`); still
never a control character, an invisible one, a space or an over-long name."""

from __future__ import annotations

import io
import sys
import unicodedata
from pathlib import Path

import pytest

from firmware.api.auth import Cost, Technicians
from mjtable.cli import main

CHEAP = Cost(memory_kib=8, passes=1)
TOKEN = "a-long-token-1"


@pytest.mark.parametrize("name", ["张师傅", "li", "Zoë", "王.二-3", "阿卜杜拉·买买提",
                                  "x" * 32])
def test_names_in_any_script_are_added_and_log_in(tmp_path: Path, name: str) -> None:
    technicians = Technicians(tmp_path / "technicians.json", CHEAP)
    technicians.add(name, TOKEN)
    assert name in technicians.names()
    assert technicians.verify(name, TOKEN)
    # Typed decomposed (e + combining diaeresis) it is the same name.
    assert technicians.verify(unicodedata.normalize("NFD", name), TOKEN)


@pytest.mark.parametrize("name", ["", "li\x1b[31m", "li\nroot", "\u202eil", "张 师傅",
                                  "x" * 33, "-li", "li\u200b"])
def test_control_invisible_spaced_or_long_names_are_refused(tmp_path: Path,
                                                             name: str) -> None:
    with pytest.raises(ValueError, match="not valid") as refused:
        Technicians(tmp_path / "technicians.json", CHEAP).add(name, TOKEN)
    assert "\x1b" not in str(refused.value) and "\n" not in str(refused.value)


def test_add_technician_with_a_chinese_name_from_the_console(tmp_path: Path, capsys,
                                                             monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(TOKEN + "\n"))
    state = ["--state-dir", str(tmp_path)]
    assert main([*state, "console", "add-technician", "张师傅"]) == 0
    assert main([*state, "console", "technicians"]) == 0
    assert "张师傅" in capsys.readouterr().out
    assert main([*state, "console", "add-technician", "li\x07"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "\x07" not in err


@pytest.mark.parametrize("typed", ["ｌｉ", "𝐥𝐢", "ℓi"])
def test_a_name_typed_in_full_width_or_styled_letters_is_the_same_name(
        tmp_path: Path, typed: str) -> None:
    # A Chinese input method left in full-width mode types ｌｉ for li: it logged in as
    # nobody, and add-technician made a second technician that reads the same in the log.
    technicians = Technicians(tmp_path / "technicians.json", CHEAP)
    technicians.add("li", TOKEN)
    assert technicians.verify(typed, TOKEN)
    technicians.add(typed, TOKEN + "2")
    assert technicians.names() == ["li"]


@pytest.mark.parametrize("name", ["lі", "Ζoë", "pаul", "li\u0627"])
def test_a_name_mixing_look_alike_scripts_is_refused(tmp_path: Path, name: str) -> None:
    # Cyrillic і in a Latin name (or Greek Ζ, Cyrillic а, an Arabic letter after Latin)
    # reads as another technician in the log and the fault card: never two such names.
    with pytest.raises(ValueError, match="not valid"):
        Technicians(tmp_path / "technicians.json", CHEAP).add(name, TOKEN)


@pytest.mark.parametrize("name", ["Li张", "王.二-3", "阿卜杜拉·买买提", "Иван", "علي"])
def test_one_script_or_latin_with_han_is_still_a_name(tmp_path: Path, name: str) -> None:
    Technicians(tmp_path / "technicians.json", CHEAP).add(name, TOKEN)


@pytest.mark.parametrize(("first", "second"), [
    ("ai", "аі"),           # Latin, then all Cyrillic: one script each, the same to read
    ("Al", "AI"),           # a small L and a capital i
    ("corn", "com"),        # rn and m
    ("KEN", "ΚΕΝ")])        # Greek capitals for Latin ones
def test_a_name_that_reads_as_an_existing_technician_is_refused(
        tmp_path: Path, first: str, second: str, capsys, monkeypatch) -> None:
    # `ai` and `аі` were two technicians: in the event log one signed for the other.
    technicians = Technicians(tmp_path / "technicians.json", CHEAP)
    technicians.add(first, TOKEN)
    with pytest.raises(ValueError, match=f"reads the same as “{first}”"):
        technicians.add(second, TOKEN)
    assert technicians.names() == [first]
    technicians.add(first, TOKEN + "2")          # a new token for the same name is fine
    # From the console: one line, exit 2.
    monkeypatch.setattr(sys, "stdin", io.StringIO(TOKEN + "\n"))
    assert main(["--state-dir", str(tmp_path), "console", "add-technician", second]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "reads the same" in err


def test_names_that_read_differently_are_still_two_technicians(tmp_path: Path) -> None:
    technicians = Technicians(tmp_path / "technicians.json", CHEAP)
    for name in ("li", "lin", "张师傅", "张师", "wang", "王"):
        technicians.add(name, TOKEN)
    assert len(technicians.names()) == 6
