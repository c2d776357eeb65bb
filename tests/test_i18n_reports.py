"""The last English strings: deal errors, deal/audit help, the simulate and audit
reports. Chinese when the technician's language is zh_CN, English unchanged otherwise."""

from __future__ import annotations

import io
import json

import pytest

from firmware import i18n
from mjtable.cli import main
from mjtable_core import i18n as core_i18n
from rules.cli import report_text
from rules.errors import RulesError
from rules.request import deal_request


@pytest.fixture(autouse=True)
def keep_process_language():
    # `main` sets the process's language from the environment; put it back.
    before = i18n.current()
    yield
    i18n.set_language(before)


def deal(monkeypatch, capsys, lang: str, text: str) -> tuple[int, str]:
    monkeypatch.setenv("MJTABLE_LANG", lang)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code = main(["deal", "-"])
    return code, capsys.readouterr().err


def test_a_bad_deal_input_is_refused_in_chinese(monkeypatch, capsys) -> None:
    code, err = deal(monkeypatch, capsys, "zh_CN", json.dumps({"dealer_position": 0}))
    assert code == 2
    assert err == "mjtable deal: <stdin>: 输入：缺少键 'variant'\n"
    code, err = deal(monkeypatch, capsys, "zh_CN", "{")
    assert code == 2 and "不是 JSON" in err and "第 1 行" in err


def test_the_same_bad_input_reads_as_before_in_english(monkeypatch, capsys) -> None:
    code, err = deal(monkeypatch, capsys, "en", json.dumps({"dealer_position": 0}))
    assert (code, err) == (2, "mjtable deal: <stdin>: input: missing key 'variant'\n")


def test_a_deal_error_inside_the_walls_keeps_its_path_in_chinese() -> None:
    with i18n.language("zh_CN"), pytest.raises(RulesError) as exc:
        deal_request({"variant": "nope", "dealer_position": 0, "walls": [], "throws": []})
    assert str(exc.value).startswith("variant：未知玩法 'nope'（可用：")


def test_the_rules_engine_alone_speaks_english() -> None:
    # Without the firmware's translator installed the msgid is the message.
    installed = core_i18n._translate
    core_i18n.install(core_i18n._identity)
    try:
        with i18n.language("zh_CN"), pytest.raises(RulesError, match="input: missing key"):
            deal_request({})
    finally:
        core_i18n.install(installed)


def test_deal_and_audit_help_in_chinese(monkeypatch, capsys) -> None:
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    for command, words in (("deal", "按码好的牌墙和骰子点数发牌"),
                           ("audit", "对发牌记录做公平性检验")):
        with pytest.raises(SystemExit) as exc:
            main([command, "--help"])
        assert exc.value.code == 0
        assert words in capsys.readouterr().out


def test_audit_without_a_file_says_so_in_chinese(monkeypatch, capsys) -> None:
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    with pytest.raises(SystemExit) as exc:
        main(["audit"])
    assert exc.value.code == 2
    assert "或用 --simulate N 模拟一批新局再检验" in capsys.readouterr().err


def test_the_simulate_report_in_chinese(monkeypatch, capsys) -> None:
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    assert main(["simulate", "--cycles", "2", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "已发牌局数：2/2（种子 5）" in out
    assert "牌数核对：对" in out and "理牌时间中位数" in out
    assert "hands dealt" not in out and "tiles accounted" not in out


def test_the_simulate_json_is_the_same_in_both_languages(monkeypatch, capsys) -> None:
    keys = {}
    for lang in ("en", "zh_CN"):
        monkeypatch.setenv("MJTABLE_LANG", lang)
        assert main(["simulate", "--cycles", "1", "--seed", "5", "--json"]) == 0
        keys[lang] = json.loads(capsys.readouterr().out).keys()
    assert keys["en"] == keys["zh_CN"]


def test_audit_report_text_in_chinese() -> None:
    report = {"records": 3, "note": "", "verdict": "suspicious: wall_tiles",
              "tests": {"wall_tiles": {"p_value": 1e-5, "statistic": 99.5, "dof": 33},
                        "dice_faces": {"p_value": None, "skipped": "too few"}}}
    with i18n.language("zh_CN"):
        text = report_text(report)
    assert text.splitlines()[0] == "3 条记录"
    assert "统计量" in text and "自由度" in text
    assert text.splitlines()[-1] == "结论：可疑：wall_tiles"
    with i18n.language("en"):
        assert report_text(report).splitlines()[-1] == "verdict: suspicious: wall_tiles"


def test_audit_skipped_reasons_in_chinese_with_the_same_keys() -> None:
    from rules.audit import audit

    with i18n.language("en"):
        english = audit([])
    with i18n.language("zh_CN"):
        chinese = audit([])
    assert english.keys() == chinese.keys()
    assert english["tests"].keys() == chinese["tests"].keys()
    # The verdict is a value scripts match on: it stays English in the JSON.
    assert english["verdict"] == chinese["verdict"] == "not enough data"
    reasons = [t["skipped"] for t in chinese["tests"].values()]
    assert "没有一条记录不含未知牌" in reasons
    assert all(r != e["skipped"] for r, e in zip(reasons, english["tests"].values(), strict=True))


def test_the_deal_picture_in_chinese(monkeypatch, capsys) -> None:
    from tests.rules.test_cli import good_input

    code, err = deal(monkeypatch, capsys, "zh_CN", json.dumps(good_input()))
    assert (code, err) == (0, "")
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(good_input())))
    assert main(["deal", "-"]) == 0
    out = capsys.readouterr().out
    assert "第 0 面牌墙（0 号位）" in out and "从第 1 面牌墙数 14 开牌" in out
    assert "牌墙还剩" in out and "wall 0 (position 0)" not in out
