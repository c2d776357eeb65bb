"""The venue's own incidents (an e-stop, a table offline) read in the page's language,
whatever language the venue wrote their summary in when it opened them."""

from __future__ import annotations

import pytest

from firmware.i18n import language
from tests.console.zh_sweep import stray
from venue.desk.faults.faultwords import of_incident


@pytest.mark.parametrize(("fault_id", "english"), [
    ("offline@table", "the table is offline (no agent on the broker)"),
    ("estop@table", "the e-stop was pressed"),
])
def test_a_venue_condition_opened_in_english_reads_chinese(fault_id: str, english: str) -> None:
    incident = {"fault_id": fault_id, "summary": english}
    with language("zh_CN"):
        summary = of_incident(incident)["summary"]
    assert summary and stray(summary) == [], summary
    with language("en"):
        assert of_incident(incident)["summary"] == english


def test_an_unknown_fault_keeps_what_the_table_sent() -> None:
    with language("zh_CN"):
        assert of_incident({"fault_id": "newer.fault@x", "summary": "S"})["summary"] == "S"
