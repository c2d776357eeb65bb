"""Languages: every message a person reads has a zh_CN translation with the same
placeholders; the language is chosen as documented; JSON never changes with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po
from rich.cells import cell_len

from firmware import i18n
from firmware.diagnosis import faultcard
from firmware.faults.kinds import CATALOGUE, Fault
from firmware.i18n import _, language, resolve

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("mjtable", "mjtable_core", "firmware", "hal", "simulator", "rules", "venue",
           "bench")   # as `make messages`
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\(\w+\)[a-z]|%[a-z]")   # str.format and %-style


def source_messages() -> dict[str, str]:
    """Every message marked in the code, with where it was found."""
    keywords = {**DEFAULT_KEYWORDS, "N_": None}
    found: dict[str, str] = {}
    for folder in SOURCES:
        for filename, line, message, _comments, _context in extract_from_dir(
                ROOT / folder, method_map=[("**.py", "python")], keywords=keywords):
            ids = message if isinstance(message, tuple) else (message,)
            for msgid in ids:
                if msgid:
                    found.setdefault(msgid, f"{folder}/{filename}:{line}")
    return found


def catalogue(lang: str):
    with i18n.po_path(lang).open("rb") as fh:
        return read_po(fh)


@pytest.fixture(scope="module")
def messages() -> dict[str, str]:
    return source_messages()


def test_there_are_messages_to_translate(messages: dict[str, str]) -> None:
    # The extraction itself works: fault texts, console and CLI strings are all in it.
    for msgid in ("the lid did not reach its lower stop", "no active faults",
                  "run the table (the built-in simulator without hardware)",
                  "one set of tiles always stays on the table"):
        assert msgid in messages
    assert len(messages) > 300


def test_every_message_has_a_zh_cn_translation(messages: dict[str, str]) -> None:
    po = catalogue("zh_CN")
    missing = [f"{where}: {msgid!r}" for msgid, where in sorted(messages.items())
               if not (po.get(msgid) and po[msgid].string and not po[msgid].fuzzy)]
    assert not missing, ("untranslated (run `make messages`, then translate in "
                         "firmware/locale/zh_CN/LC_MESSAGES/mjtable.po):\n"
                         + "\n".join(missing))


def test_placeholders_are_the_same_in_both_languages() -> None:
    wrong = [f"{m.id!r} -> {m.string!r}" for m in catalogue("zh_CN")
             if m.id and m.string
             and sorted(PLACEHOLDER.findall(m.id)) != sorted(PLACEHOLDER.findall(m.string))]
    assert not wrong, "placeholders differ:\n" + "\n".join(wrong)


def test_the_catalogue_compiles_and_speaks_chinese() -> None:
    assert i18n.compile_po(i18n.po_path("zh_CN"))[:4] in (b"\xde\x12\x04\x95",
                                                          b"\x95\x04\x12\xde")
    with language("zh_CN"):
        assert _("the centre lid does not lower") == "中心不降"
    with language("en"):
        assert _("the centre lid does not lower") == "the centre lid does not lower"


@pytest.mark.parametrize(("configured", "env", "expected"), [
    ("zh_CN", {"MJTABLE_LANG": "en", "LANG": "en_US.UTF-8"}, "zh_CN"),
    ("", {"MJTABLE_LANG": "zh_CN", "LANG": "en_US.UTF-8"}, "zh_CN"),
    ("", {"LANG": "zh_CN.UTF-8"}, "zh_CN"),
    ("", {"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),
    ("", {"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
    ("", {"LANG": "de_DE.UTF-8"}, "en"),
    ("", {}, "en"),
    ("en", {"LANG": "zh_CN.UTF-8"}, "en"),
])
def test_language_comes_from_config_then_env_then_locale(configured, env, expected) -> None:
    assert resolve(configured, env) == expected


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language"):
        i18n.set_language("xx")


def test_json_keys_and_fault_ids_never_change_with_the_language() -> None:
    fault = Fault("head.jam", "side 2", 2, 3, 12.5, {"gap_s": 0.9})
    with language("en"):
        english = fault.as_dict()
    with language("zh_CN"):
        chinese = fault.as_dict()
    assert english.keys() == chinese.keys()
    assert english["diagnosis"].keys() == chinese["diagnosis"].keys()
    assert (english["id"], english["code"]) == (chinese["id"], chinese["code"]) == (
        "head.jam", "E22")
    assert english["diagnosis"]["remedy"][0] == "open side 2"
    assert chinese["diagnosis"]["remedy"][0] == "打开 2 号口"
    assert chinese["diagnosis"]["summary"] != english["diagnosis"]["summary"]


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_fault_card_lists_every_code_and_fits_80_columns(lang: str) -> None:
    with language(lang):
        text = faultcard.render("text")
        md = faultcard.render("md")
        page = faultcard.render("html")
    for kind in CATALOGUE.values():
        assert kind.code in text and f"**{kind.code}**" in md and f"<b>{kind.code}</b>" in page
    widest = max(cell_len(line) for line in text.splitlines())
    assert widest <= 80, f"a line of the card is {widest} cells wide"
    if lang == "zh_CN":
        assert "中心不降" in text and "E11" in text and 'lang="zh-CN"' in page


def test_config_errors_name_the_type_in_the_technicians_language(tmp_path: Path) -> None:
    from mjtable_core.config import load_config
    from mjtable_core.schema import ConfigError

    path = tmp_path / "bad.toml"
    path.write_text('[table]\ntiles = "144"\nstacks_per_wall = 18\n')
    with language("zh_CN"), pytest.raises(ConfigError) as err:
        load_config(path)
    # "应为 integer": the type was English inside the Chinese sentence.
    assert "应为 整数" in str(err.value) and "integer" not in str(err.value)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert "expected integer" in str(err.value)
