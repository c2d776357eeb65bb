"""`mjtable venue staff …` and `mjtable venue integrator …` from the command line:
accounts made and removed; bad input is one line and exit status 2."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from mjtable.cli import main

FAST = "[staff]\nargon2_memory_kib = 64\nargon2_passes = 1\n"


def venue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *argv: str,
          stdin: str = "") -> int:
    config = tmp_path / "venue.toml"
    config.write_text(FAST)
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(["venue", "--config", str(config), "--state-dir", str(tmp_path), *argv])


def test_a_staff_account_is_added_listed_and_removed(tmp_path, monkeypatch, capsys) -> None:
    assert venue(tmp_path, monkeypatch, "staff", "add", "王姐",
                 stdin="counter-password-1\n") == 0
    assert venue(tmp_path, monkeypatch, "staff", "list") == 0
    assert capsys.readouterr().out.splitlines()[-1] == "王姐"
    (stored,) = sqlite3.connect(tmp_path / "venue.sqlite").execute(
        "SELECT hash FROM staff").fetchone()
    assert stored.startswith("$argon2id$")
    assert (tmp_path / "venue.sqlite").stat().st_mode & 0o077 == 0
    assert venue(tmp_path, monkeypatch, "staff", "remove", "王姐") == 0
    assert venue(tmp_path, monkeypatch, "staff", "list") == 0
    assert "王姐" not in capsys.readouterr().out.splitlines()[-1:]


@pytest.mark.parametrize("argv, stdin, said", [
    (("staff", "add", "li"), "short\n", "the password must be 10 to 256 characters long"),
    (("staff", "add", "a b"), "counter-password-1\n", "staff name “a b” is not valid"),
    (("staff", "add"), "", "staff add needs a NAME"),
    (("staff", "remove", "nobody"), "", "no staff account “nobody”"),
    (("integrator", "issue", "../x"), "", "integrator name “../x” is not valid"),
    (("integrator", "revoke", "nobody"), "", "no live key for integrator “nobody”"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, argv, stdin,
                                          said) -> None:
    assert venue(tmp_path, monkeypatch, *argv, stdin=stdin) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "Traceback" not in err


def test_a_bad_config_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "venue.toml").write_text("[notify]\nurls = ['http://example.com']\n")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["venue", "--config", str(tmp_path / "venue.toml"), "--state-dir",
                 str(tmp_path), "staff", "list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[notify] urls" in err and "wecombot://" in err


def test_an_integrator_key_is_printed_once_and_revoked(tmp_path, monkeypatch,
                                                       capsys) -> None:
    assert venue(tmp_path, monkeypatch, "integrator", "issue", "miniapp") == 0
    key = capsys.readouterr().out.strip()
    assert key.startswith("mjk_")
    held = str(sqlite3.connect(tmp_path / "venue.sqlite").execute(
        "SELECT * FROM integrators").fetchall())
    assert key.split("_", 2)[2] not in held
    assert venue(tmp_path, monkeypatch, "integrator", "revoke", "miniapp") == 0
    assert venue(tmp_path, monkeypatch, "integrator", "list") == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("revoked")


def test_the_account_commands_help_in_chinese_explains_each_argument(capsys, monkeypatch) -> None:
    # `{add,remove,list}` and `name` were listed bare: no word on what either means.
    from firmware import i18n
    from mjtable.cli import main
    from tests.console.zh_sweep import stray
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    was = i18n.current()
    try:
        for what in ("staff", "integrator"):
            try:
                code = main(["venue", what, "--help"])
            except SystemExit as exc:       # argparse's own exit for --help
                code = exc.code
            assert code in (0, None)
            out = capsys.readouterr().out
            arguments = out.split("位置参数:")[1].split("选项:")[0]
            words = [line for line in arguments.splitlines() if line.strip()]
            assert all(len(line.split()) > 1 for line in words), arguments
            assert stray(arguments.replace("{add,remove,list}", "")
                         .replace("{issue,revoke,list}", "")) == [], arguments
    finally:
        i18n.set_language(was)
