"""`mjtable score FILE.json [--json]`: exit 0 for a win or a non-win, one line and exit 2
for malformed or impossible input."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjtable.cli import main

from .test_mcr import EXAMPLE


def run(tmp_path, capsys, obj=None, text=None, args=()):
    path = tmp_path / "win.json"
    path.write_text(text if text is not None else json.dumps(obj), encoding="utf-8")
    code = main(["score", str(path), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_issue_example_as_json(tmp_path, capsys) -> None:
    code, out, err = run(tmp_path, capsys, EXAMPLE, args=["--json"])
    assert code == 0 and err == ""
    answer = json.loads(out)
    assert set(answer) == {"win", "fans", "total", "meets_minimum", "payments"}
    assert answer["win"] is True and answer["total"] == 12
    assert {"name_en": "All Types", "name_zh": "五门齐", "points": 6, "count": 1} in answer["fans"]


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path, capsys) -> None:
    # Windows Notepad and many Chinese editors save UTF-8 with a BOM; JSON's RFC 8259
    # lets a parser ignore it, and a scorekeeper's file is not malformed for it.
    code, out, err = run(tmp_path, capsys, text="\ufeff" + json.dumps(EXAMPLE), args=["--json"])
    assert code == 0 and err == "", err
    assert json.loads(out)["total"] == 12


def test_a_non_win_exits_0_and_says_why(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, {**EXAMPLE, "win_tile": "F3"}, args=["--json"])
    assert code == 0
    answer = json.loads(out)
    assert answer["win"] is False
    assert answer["reason"].startswith("the tiles do not form a winning hand")


def test_text_for_a_person(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, {**EXAMPLE, "discarder": "left"})
    assert code == 0
    assert "五门齐 All Types: 6" in out
    assert "total 12; minimum met: yes" in out
    assert "payments: E +36, S -8, W -8, N -20" in out


@pytest.mark.parametrize(("text", "expected"), [
    ("{", "not JSON"),
    ("[]", "expected a JSON object"),
    (json.dumps({**EXAMPLE, "flowers": 9}), "flowers: 9 is not a count from 0 to 8"),
    (json.dumps({**EXAMPLE, "seat_wind": 4}), "seat_wind: 4 is not a wind"),
    (json.dumps({**EXAMPLE, "extra": 1}), "extra: unknown key"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, text: str, expected: str) -> None:
    code, out, err = run(tmp_path, capsys, text=text)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err and err.startswith("mjtable score: ")


def test_a_missing_file_is_exit_2(tmp_path, capsys) -> None:
    assert main(["score", str(tmp_path / "nowhere.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "expected"), [
    (json.dumps({**EXAMPLE, "variant": []}), "variant: unknown []"),
    (json.dumps({**EXAMPLE, "variant": {"a": 1}}), "variant: unknown {'a': 1}"),
    ('{"flowers": ' + "1" * 5000 + "}", "not JSON"),
    ("[" * 100_000 + "]" * 100_000, "not JSON"),
])
def test_crafted_json_is_one_line_and_exit_2(tmp_path, capsys, text: str, expected: str) -> None:
    code, out, err = run(tmp_path, capsys, text=text)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err and err.startswith("mjtable score: ")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)
    | st.sampled_from(["W1", "F2", "H1", "mcr", "fuzhou", "tianjin", "guangdong", "jingji",
                       "left", "E", "kong"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["variant", "concealed", "melds", "win_tile", "type", "tiles",
                         "from", "claimed", "flowers", "params", "hun", "gold"]),
        inner, max_size=4), max_leaves=12)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.dictionaries(st.sampled_from([*sorted(EXAMPLE), "discarder", "params"]),
                             _json, max_size=5))
def test_fuzzed_fields_never_crash(tmp_path, capsys, value: dict) -> None:
    code, _, err = run(tmp_path, capsys, {**EXAMPLE, **value})
    assert code in (0, 2)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("mjtable score: ")


def _zh(monkeypatch):
    from firmware import i18n
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    was = i18n.current()
    return lambda: i18n.set_language(was)


def test_a_missing_file_and_a_missing_variant_read_in_chinese(tmp_path, capsys,
                                                              monkeypatch) -> None:
    # The system's "No such file or directory" and Python's None on a Chinese screen.
    from tests.console.zh_sweep import stray
    restore = _zh(monkeypatch)
    try:
        assert main(["score", str(tmp_path / "none.json")]) == 2
        missing = capsys.readouterr().err
        code, _out, err = run(tmp_path, capsys, {})
    finally:
        restore()
    assert "none.json" in missing and stray(missing) == [], missing
    assert code == 2 and "None" not in err and "'variant'" in err, err
