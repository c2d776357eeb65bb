"""The desk says a fault in the reader's language from data generated from the kinds
(venue/desk/faults/faultwords.json), without importing the firmware's catalogue."""

from __future__ import annotations

from firmware.faults import deskwords
from firmware.faults.kinds import CATALOGUE
from firmware.i18n import language
from venue.desk.faults import faultwords


def test_the_desks_fault_words_are_the_kinds() -> None:
    assert faultwords.WORDS.read_text(encoding="utf-8") == deskwords.text(), (
        "venue/desk/faults/faultwords.json is stale: run `make docs`")


def test_the_desk_says_every_fault_as_the_table_would() -> None:
    for lang in ("en", "zh_CN"):
        with language(lang):
            for fault_id, kind in CATALOGUE.items():
                for side in (None, "2"):
                    assert faultwords.texts(fault_id, f"side.{side}" if side else "lid") \
                        == kind.texts(side), (lang, fault_id, side)
