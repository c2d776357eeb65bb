"""Every command and console reply in zh_CN: no English left.

Each command runs as a technician would type it (in-process, with MJTABLE_LANG set as
the guide says), against a running daemon where one is needed. A run of Latin letters
that is not an id, a signal name, a code, a unit, a command or option, or a name of a
thing (tests/console/zh_sweep.py) fails the test, named with the command that printed
it. `console config` is left out: it prints the config file's keys and values."""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware import i18n
from mjtable.cli import main
from tests.conftest import ROOT
from tests.console.conftest import TOKEN, Daemon
from tests.console.zh_sweep import stray


def said(args: list[str], stdin: str = "") -> str:
    """What `mjtable ARGS` prints (stdout and stderr), whatever its exit."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with (contextlib.redirect_stdout(out), contextlib.redirect_stderr(err),
              contextlib.suppress(SystemExit)):
            main(args)
    finally:
        sys.stdin = old_stdin
    return out.getvalue() + err.getvalue()


def english(runs: list[tuple[list[str], str]]) -> str:
    """Each command that printed English, with the words: empty when none did."""
    return "\n".join(f"{' '.join(args)}: {sorted(set(found))}" for args, text in runs
                     if (found := stray(text)))


@pytest.fixture
def chinese(monkeypatch) -> Iterator[None]:
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    was = i18n.current()
    yield
    i18n.set_language(was)      # main() set the process's language: the next test's own


COMMANDS = ["run", "simulate", "fuzz", "console", "deal", "audit", "verify-deals", "faults",
            "replay"]
CONSOLE = ["info", "status", "faults", "log", "export-log", "verify-log", "diagnose", "test",
           "test-mode", "jog", "clear", "estop", "walls", "config", "tui", "add-technician",
           "remove-technician", "technicians", "health"]


def test_every_command_without_a_daemon_speaks_chinese(chinese, tmp_path: Path) -> None:
    unmet = tmp_path / "unmet.toml"
    unmet.write_text("cycles = 1\n[expect]\nfaults = [\"head.jam\"]\n")
    state = ["--state-dir", str(tmp_path / "state")]
    runs = [(args, said(args)) for args in [
        ["--help"], *[[c, "--help"] for c in COMMANDS],
        *[["console", c, "--help"] for c in CONSOLE],
        ["faults"], ["simulate", "--cycles", "1"], ["simulate", "--scenario", "head_jam"],
        ["simulate", "--scenario", str(unmet)], ["simulate", "--cycles", "abc"],
        ["run", "--speed", "x"], ["deal", str(ROOT / "docs" / "deal-example.json")],
        ["deal", str(tmp_path / "missing.json")],
        ["fuzz", "--count", "2", "--out", str(tmp_path / "fuzz")],
        ["console", *state, "technicians"], ["console", *state, "verify-log"],
        ["console", *state, "add-technician", "li\x07"],
        ["console", "--socket", str(tmp_path / "none.sock"), "status"],
    ]]
    runs.append((["console", "add-technician", "张师傅"],
                 said(["console", *state, "add-technician", "张师傅"], stdin=TOKEN + "\n")))
    assert not english(runs), english(runs)


def test_every_console_reply_from_a_daemon_speaks_chinese(chinese, daemon: Daemon,
                                                          monkeypatch) -> None:
    sock = ["console", "--socket", str(daemon.socket), "--state-dir", str(daemon.state)]
    tech = [*sock, "--technician", "li"]
    runs = [(args, said(args)) for args in [
        [*sock, "info"], [*sock, "status"], [*sock, "faults"], [*sock, "walls"],
        [*sock, "diagnose", "中心不降"], [*sock, "diagnose", "牌升不上来"],
        [*sock, "diagnose", "卡住"], [*sock, "jog", "dice", "fwd", "0.2"],
        [*sock, "jog", "lid", "up", "zz"], [*sock, "log", "--since", "yesterday"],
    ]]
    monkeypatch.setenv("MJTABLE_TOKEN", "not-the-token")
    runs.append(([*tech, "clear", "E21"], said([*tech, "clear", "E21"])))
    monkeypatch.setenv("MJTABLE_TOKEN", TOKEN)
    deadline = time.monotonic() + 20
    while "测试模式已进入" not in (text := said([*tech, "test-mode", "on", "--force"])):
        assert time.monotonic() < deadline, text
        time.sleep(0.05)
    runs.append(([*tech, "test-mode", "on"], text))
    runs += [(args, said(args)) for args in [
        [*tech, "clear", "nonexistent"], [*tech, "test", "lid"], [*tech, "test", "dice"],
        [*tech, "test", "nonesuch"], [*tech, "jog", "lid", "up", "1"],
        [*tech, "jog", "plate.1", "fwd", "9"], [*tech, "jog", "plate.1", "fwd", "1"],
        [*tech, "test-mode", "off"], [*tech, "test", "plate.1"], [*tech, "test", "lid"],
        [*tech, "test-mode", "off"], [*sock, "estop"], [*sock, "status"],
        [*tech, "estop", "--release"], [*tech, "estop", "--release"],
        [*sock, "log", "--limit", "80"], [*sock, "faults"], [*sock, "verify-log"],
        [*sock, "health"], [*tech, "health", "--done", "oil"],
    ]]
    assert not english(runs), english(runs)


def test_the_sweep_finds_english_and_lets_ids_codes_and_units_pass() -> None:
    assert stray("login 被拒：wrong technician name or token") == [
        "wrong", "name", "or", "token"]
    assert stray("故障 E21 机头卡牌（head.jam），位置 side.1.head，t=3.5 秒，--refed，"
                 "显示屏 rF / t- / 3P，承诺 sha256:3650070c，按时间停 motor.side.2.plate") == []
