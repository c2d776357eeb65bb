"""`mjtable console` output as a person reads it: no Python reprs, dates for the
log, the technician's language."""

from __future__ import annotations

import datetime

import pytest

from firmware.cli import main
from firmware.console.cli import when

from .conftest import Daemon

REPRS = ("None", "True", "False", "{'", "['")


def test_log_since_takes_a_date_a_time_or_unix_seconds() -> None:
    midnight = datetime.datetime(2020, 1, 1).timestamp()
    assert when("2020-01-01") == midnight
    assert when("2020-01-01 08:30") == midnight + 8.5 * 3600
    assert when("2020-01-01T08:30:15") == midnight + 8.5 * 3600 + 15
    assert when("1577836800") == 1577836800.0


def test_log_since_a_date_reaches_the_daemon_and_a_bad_one_says_the_forms(
        daemon: Daemon, capsys) -> None:
    sock = ["console", "--socket", str(daemon.socket)]
    assert main([*sock, "log", "--since", "2020-01-01", "--kind", "phase", "--limit", "3"]) == 0
    assert "invalid float" not in capsys.readouterr().err
    assert main([*sock, "log", "--since", "yesterday"]) == 2
    err = capsys.readouterr().err
    assert "YYYY-MM-DD" in err and "unix seconds" in err


def test_info_and_walls_show_no_python_reprs(daemon: Daemon, capsys) -> None:
    sock = ["console", "--socket", str(daemon.socket)]
    for command in ("info", "walls", "status", "faults"):
        assert main([*sock, command]) == 0
        out = capsys.readouterr().out
        assert not [r for r in REPRS if r in out], (command, out)


@pytest.mark.parametrize(("lang", "expected"), [("en", "active:"), ("zh_CN", "当前故障：")])
def test_console_speaks_the_technicians_language(daemon: Daemon, capsys, monkeypatch,
                                                 lang: str, expected: str) -> None:
    monkeypatch.setenv("MJTABLE_LANG", lang)
    assert main(["console", "--socket", str(daemon.socket), "faults"]) == 0
    assert capsys.readouterr().out.startswith(expected)


def test_diagnose_in_chinese_words_from_the_command_line(daemon: Daemon, capsys,
                                                         monkeypatch) -> None:
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    # The walls symptom needs no check on the machine: the answer comes at once.
    assert main(["console", "--socket", str(daemon.socket), "diagnose", "牌升不上来"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("牌升不上来：") and "依据：" in out and '{"' not in out


def test_replies_speak_the_language_the_console_asks_for(daemon: Daemon) -> None:
    from firmware.console.client import ApiClient
    from firmware.i18n import language

    # The daemon speaks English; a Chinese console gets Chinese texts, same JSON keys.
    with ApiClient(daemon.socket) as client:
        english = client.call("diagnose", {"symptom": "walls_not_rising"})
        with language("zh_CN"):
            chinese = client.call("diagnose", {"symptom": "牌升不上来"})
    assert english["described"] == "the walls do not rise"
    assert chinese["described"] == "牌升不上来"
    assert english.keys() == chinese.keys() and chinese["symptom"] == "walls_not_rising"
