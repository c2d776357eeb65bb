"""The `mjtable` command as a user runs it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import CONFIGS, ROOT

MJTABLE = [sys.executable, "-m", "mjtable.cli"]


@pytest.fixture(autouse=True)
def own_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default state directory and socket, under this test's folder: a test run
    leaves no journal or handoff file in the user's home for the next run to resume
    from, and never meets a table daemon already running on this machine's socket."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    (tmp_path / "run").mkdir()
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path / "run"))


def mjtable(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MJTABLE, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def test_simulate_json_report() -> None:
    result = mjtable("simulate", "--cycles", "3", "--seed", "4", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    for key in ("cycles_requested", "cycles_completed", "sim_time_s", "wall_time_s", "faults",
                "handoffs", "tiles_accounted", "build_times_s", "build_bound_s",
                "motors_safe_after_faults"):
        assert key in report
    assert report["cycles_requested"] == report["cycles_completed"] == 3
    assert report["tiles_accounted"] is True and report["faults"] == []
    assert [h["set"] for h in report["handoffs"]] == ["A", "B", "A"]
    assert all(h["tiles"] == 144 and h["commitment"].startswith("sha256:")
               for h in report["handoffs"])
    assert len(report["build_bound_s"]) == len(report["build_times_s"]) >= 3


def test_simulate_with_config_after_the_command() -> None:
    result = mjtable("simulate", "--cycles", "1", "--config", str(CONFIGS["136"]), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["handoffs"][0]["tiles"] == 136


def test_simulate_human_summary() -> None:
    result = mjtable("simulate", "--cycles", "1")
    assert result.returncode == 0
    assert "hands dealt: 1/1" in result.stdout and "no faults" in result.stdout


def test_bad_arguments_are_refused() -> None:
    result = mjtable("simulate", "--cycles", "0")
    assert result.returncode == 2 and "must be at least 1" in result.stderr


def test_run_plain_deals_and_stops_with_motors_off() -> None:
    result = mjtable("run", "--plain", "--speed", "20", "--cycles", "1")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "built-in simulator" in out
    assert "build.staged set A" in out and "handoff hand 1 set A sha256:" in out
    assert out.rstrip().endswith("mjtable: stopped, every motor off")
    assert "FAULT" not in out


def test_run_takes_the_state_dir_after_the_command_too(tmp_path) -> None:
    # `mjtable console … --state-dir D` works; `mjtable run … --state-dir D` was refused.
    state = tmp_path / "state"
    result = mjtable("run", "--plain", "--speed", "20", "--cycles", "1", "--state-dir",
                     str(state), "--socket", str(tmp_path / "api.sock"))
    assert result.returncode == 0, result.stderr
    assert (state / "events.sqlite").is_file()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_run_stops_cleanly_on_a_stop_signal(signum, tmp_path) -> None:
    # SIGHUP is a closed terminal or a dropped SSH session: the same safe stop.
    state = tmp_path / "state"
    proc = subprocess.Popen([*MJTABLE, "run", "--plain", "--speed", "10", "--state-dir",
                             str(state), "--socket", str(tmp_path / "api.sock")], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    for line in proc.stdout:
        if "build.started" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signum)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "stop" in out and out.rstrip().endswith("every motor off")
    with sqlite3.connect(state / "events.sqlite") as db:
        kinds = [kind for (kind,) in db.execute("SELECT kind FROM events ORDER BY rowid")]
    assert kinds[-1] == "stop"


def test_simulate_a_scenario_reports_its_faults() -> None:
    result = mjtable("simulate", "--scenario", str(ROOT / "tests/scenarios/head_jam.toml"),
                     "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [f["id"] for f in report["faults"]] == ["head.jam"]
    assert report["faults"][0]["where"] == "side.2.head"
    assert "open side 2" in report["faults"][0]["diagnosis"]["remedy"]
    assert "side.2.head" in [s["part"] for s in report["faults"][0]["diagnosis"]["suspects"]]
    assert report["expectations_met"] is True and report["cycles_completed"] == 3
    assert "tile_jam" in report["detection_latency_s"]


def test_simulate_fails_when_a_scenario_is_not_met(tmp_path) -> None:
    path = tmp_path / "unmet.toml"
    path.write_text("cycles = 1\n[expect]\nfaults = [\"head.jam\"]\n")
    result = mjtable("simulate", "--scenario", str(path))
    assert result.returncode == 1
    assert "PROBLEM: expected fault head.jam was not raised" in result.stdout


def test_bad_scenario_exits_2_with_one_line(tmp_path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("cycles = 1\n[[fault]]\nkind = \"tile_jam\"\nwhere = \"side.9.head\"\n"
                    "cycle = 1\nphase = \"build\"\n")
    result = mjtable("simulate", "--scenario", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"mjtable: {path}: [[fault]] #1 where: 'side.9.head'")


def test_help_names_every_command_and_says_what_run_and_agent_do() -> None:
    # Before: `venue --help` never named staff or integrator; `run --help` and
    # `agent --help` had no description at all.
    venue = mjtable("venue", "--help")
    assert "mjtable venue staff" in venue.stdout and "mjtable venue integrator" in venue.stdout
    for command in ("run", "agent"):
        text = mjtable(command, "--help").stdout
        description = text.split("\n\n")[1]
        assert not description.startswith("options:") and len(description) > 80, text
