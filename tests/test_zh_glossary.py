"""One word for one thing: the zh_CN catalogue uses the words docs/zh_CN/glossary.md
chooses, and none of their rivals."""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po

from firmware import i18n

WORDS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "zh_CN" / "glossary.md"


def _rows() -> list[tuple[str, str, list[str]]]:
    table = WORDS_PAGE.read_text(encoding="utf-8").split("| 英文界面 | 用词 | 不用 |")[1]
    rows = []
    for line in table.strip().splitlines()[1:]:
        if not line.startswith("|"):
            break
        meaning, word, rivals = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append((meaning, word, rivals.split("、")))
    return rows


def _catalogue() -> list[tuple[str, str]]:
    with i18n.po_path("zh_CN").open("rb") as fh:
        return [(m.id, m.string) for m in read_po(fh) if m.id and m.string]


def test_the_glossary_has_its_rows() -> None:
    meanings = [meaning for meaning, _word, _rivals in _rows()]
    assert len(meanings) >= 10 and "slow build (W52)" in meanings


def test_the_catalogue_uses_the_chosen_word_and_never_a_rival() -> None:
    said = _catalogue()
    for meaning, word, rivals in _rows():
        assert any(word in text for _id, text in said), f"{meaning}: {word} is never used"
        for rival in rivals:
            used = [msgid for msgid, text in said if rival in text]
            assert not used, f"{meaning}: {rival} (not {word}) in {used[:3]}"


def test_shuffle_is_only_the_mixing_and_the_flip_spring() -> None:
    for msgid, text in _catalogue():
        if "洗牌" in text.replace("洗牌弹簧", ""):
            assert "shuffle" in msgid or "mix" in msgid, msgid


def test_w52_is_called_a_slow_build() -> None:
    from firmware.diagnosis.faultcard import short_name
    from firmware.i18n import language

    with language("zh_CN"):
        assert short_name("build.slow") == "理牌慢"
