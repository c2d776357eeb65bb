"""The strict walk of what a Chinese technician reads at the console: the fault card
and the console's replies hold no Latin word but codes, the table's id, the trade's
own letters (HL 开关, S1 光控, SD 卡, N for a side) and what the technician types
(`mjtable console clear`, `--refed`). Before: test names (`测试 1 lid`), refusals
(`diagnose 被拒`), signal ids in remedies (`lid.lower`, `plate_home`)."""

from __future__ import annotations

import time

import pytest

from tests.console.conftest import TOKEN, Daemon
from tests.console.test_zh_everywhere import chinese, said  # noqa: F401 - a fixture
from tests.console.zh_sweep import latin_words

pytestmark = pytest.mark.usefixtures("chinese")

TRADE = ("HL", "S1", "SD", "N", "E", "W", "I", "c")        # the card's legend and parts
TYPED = ("mjtable", "console", "clear", "refed", "li", "technician", "MJTABLE_TOKEN", "force")
RESULTS = ("P", "F")        # a self-test passed or failed, as the display shows it (1P)


def strays(text: str, table: str) -> list[str]:
    return [line for line in text.splitlines()
            if latin_words(line, (table, *TRADE, *TYPED, *RESULTS))]


def test_the_fault_card_in_chinese_has_no_latin_word() -> None:
    assert strays(said(["faults"]), "table-1") == []


def test_console_replies_in_chinese_have_no_latin_word(daemon: Daemon, monkeypatch) -> None:
    sock = ["console", "--socket", str(daemon.socket), "--state-dir", str(daemon.state)]
    tech = [*sock, "--technician", "li"]
    table = daemon.ctl.config.table.id
    texts = [said([*sock, "jog", "dice", "fwd", "0.2"])]      # refused: no login
    monkeypatch.setenv("MJTABLE_TOKEN", TOKEN)
    deadline = time.monotonic() + 20
    while "测试模式已进入" not in (text := said([*tech, "test-mode", "on", "--force"])):
        assert time.monotonic() < deadline, text
        time.sleep(0.05)
    texts += [text, said([*tech, "test", "lid"]), said([*tech, "test", "dice"]),
              said([*tech, "test-mode", "off"])]
    assert "点动" in texts[0]
    found = [line for text in texts for line in strays(text, table)]
    assert found == [], found
