"""The handoff's consumers: the engine named in config, the append-only file, the event."""

from __future__ import annotations

import copy
import dataclasses
import errno
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from firmware.controller import compose_table
from firmware.hands import consumers
from firmware.hands.consumers import HandoffFile, handoff_path, installed_engines
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config, load_config
from mjtable_core.schema import ConfigError
from rules.engine import BuiltinEngine
from simulator.harness.run import simulate
from simulator.harness.runner import WiredTable, assemble
from tests.conftest import CONFIGS, ROOT, ScriptedHal, installed_package, quick

MJTABLE = [sys.executable, "-m", "mjtable.cli"]


def with_rules(config: Config, **changes: Any) -> Config:
    return dataclasses.replace(config, rules=dataclasses.replace(config.rules, **changes))


def run_hands(bench: WiredTable, hands: int) -> None:
    """Run the simulated table until `hands` records have been handed off."""
    ctl = bench.controller
    ctl.start()
    bench.players.start()
    bench.clock.run_until(hands * 2000.0, until=lambda: len(ctl.handoff.records) >= hands)
    assert len(ctl.handoff.records) == hands


def events(bench: WiredTable, kind: str) -> list[dict]:
    return [e for e in bench.events if e["kind"] == kind]


def recording(bench: WiredTable) -> WiredTable:
    bench.controller.subscribers.append(bench.events.append)
    return bench


@pytest.fixture
def short(config: Config) -> Config:
    return quick(config, play_time_s=1.0)


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed third-party package declaring engines in mjtable.rules_engines."""
    installed_package(tmp_path, "mj-plugin", """\
        [mjtable.rules_engines]
        recorder = mj_plugin_engines:Recorder
        boom = mj_plugin_engines:Boom
        broken = mj_plugin_engines:broken
        """, {"mj_plugin_engines": """\
        RECEIVED = []

        class Recorder:
            def on_deal(self, record):
                RECEIVED.append(record)
                return ["seen hand %d" % record["table"]["cycle"]]

        class Boom:
            def on_deal(self, record):
                raise RuntimeError("engine exploded")

        def broken():
            raise ImportError("needs a library that is not installed")
        """}, monkeypatch)
    yield tmp_path
    sys.modules.pop("mj_plugin_engines", None)


# -- the in-process engine ---------------------------------------------------------------

def test_builtin_engine_is_declared_as_an_entry_point() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        declared = tomllib.load(f)["project"]["entry-points"]["mjtable.rules_engines"]
    assert declared == {"builtin": "rules.engine:BuiltinEngine"}
    entry = installed_engines()["builtin"]
    assert entry.value == declared["builtin"] and entry.load() is BuiltinEngine


def test_third_party_engine_is_loaded_by_name_and_gets_every_record(
        short: Config, plugin: Path) -> None:
    bench = recording(assemble(with_rules(short, engine="recorder"), seed=2))
    run_hands(bench, 3)
    import mj_plugin_engines

    records = bench.controller.handoff.records
    assert records == mj_plugin_engines.RECEIVED
    problems = events(bench, "handoff.engine_problem")
    assert [(p["engine"], p["problem"]) for p in problems] == [
        ("recorder", f"seen hand {n}") for n in (1, 2, 3)]


def test_config_file_names_an_installed_engine(tmp_path: Path, plugin: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(CONFIGS["144"].read_text().replace(
        'variant = "mcr"', 'variant = "mcr"\nengine = "recorder"'))
    assert load_config(path).rules.engine == "recorder"


def unknown_engine_config(tmp_path: Path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(CONFIGS["144"].read_text().replace(
        'variant = "mcr"', 'variant = "mcr"\nengine = "nosuch"'))
    return path


def test_unknown_engine_is_a_config_error_naming_the_installed_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(unknown_engine_config(tmp_path))
    message = str(caught.value)
    assert "[rules] engine" in message and "'nosuch'" in message
    assert "installed: builtin" in message


@pytest.mark.parametrize("command", [["simulate", "--cycles", "1"],
                                     ["audit", "--simulate", "1"]])
def test_unknown_engine_exits_2_from_the_cli(tmp_path: Path, command: list[str]) -> None:
    result = subprocess.run([*MJTABLE, *command, "--config", str(unknown_engine_config(tmp_path))],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2, result.stderr
    assert "config error" in result.stderr and "no rules engine 'nosuch'" in result.stderr
    assert result.stderr.count("\n") == 1


def test_an_engine_that_fails_to_load_is_a_config_error(short: Config, plugin: Path) -> None:
    with pytest.raises(ConfigError, match=r"'broken'.*failed to load: ImportError"):
        assemble(with_rules(short, engine="broken"))


def test_a_failing_engine_is_reported_and_the_table_keeps_dealing(
        short: Config, plugin: Path) -> None:
    failed: list[dict] = []
    report = simulate(with_rules(short, engine="boom"), 3, seed=3,
                      consumers=[lambda r: failed.append(r)])
    assert report["completed"] and report["cycles_completed"] == 3 and not report["faults"]
    assert len(failed) == 3   # consumers after the failing one still run


def test_consumer_failures_become_events(short: Config) -> None:
    def flaky(record: dict) -> None:
        raise ValueError(f"cannot take hand {record['table']['cycle']}")

    bench = recording(assemble(short, seed=4))
    bench.controller.handoff.consumers.append(flaky)
    run_hands(bench, 2)
    failures = events(bench, "handoff.consumer_failed")
    assert [(f["cycle"], f["consumer"], f["error"]) for f in failures] == [
        (n, "test_consumer_failures_become_events.<locals>.flaky",
         f"ValueError: cannot take hand {n}") for n in (1, 2)]


def test_builtin_engine_finds_nothing_wrong_in_a_simulated_run(short: Config) -> None:
    bench = recording(assemble(short, seed=5))
    run_hands(bench, 4)
    engine = bench.controller.handoff.consumers[-1].engine
    assert isinstance(engine, BuiltinEngine) and engine.checked == 4
    assert events(bench, "handoff.engine_problem") == []
    assert events(bench, "handoff.consumer_failed") == []


def test_builtin_engine_flags_a_record_that_does_not_follow_from_its_walls(
        short: Config) -> None:
    report_records: list[dict] = []
    simulate(short, 2, seed=6, consumers=[report_records.append])
    first, second = (copy.deepcopy(r) for r in report_records)
    assert BuiltinEngine().on_deal(first) == []
    # A dealer's hand with two tiles swapped for others from the wall.
    tampered = copy.deepcopy(first)
    tampered["hands"]["E"][0], tampered["hands"]["S"][0] = (tampered["hands"]["S"][0],
                                                           tampered["hands"]["E"][0])
    if tampered["hands"] == first["hands"]:   # two equal tiles: change one outright
        tampered["hands"]["E"][0] = "W1" if first["hands"]["E"][0] != "W1" else "W2"
    problems = BuiltinEngine().on_deal(tampered)
    assert len(problems) == 1 and problems[0].startswith("hands: handed off")
    # The next record reveals a nonce that must open the previous commitment.
    engine = BuiltinEngine()
    assert engine.on_deal(first) == []
    assert engine.on_deal(second) == []
    engine = BuiltinEngine()
    engine.on_deal(first)
    second["revealed"]["nonce"] = "0" * 32
    assert engine.on_deal(second) == [
        f"hand 1: the revealed nonce does not open its commitment {first['commitment']}"]


# -- the append-only file ------------------------------------------------------------------

def test_handoff_path_resolution(tmp_path: Path) -> None:
    assert handoff_path("", tmp_path) is None
    assert handoff_path("h.jsonl", tmp_path) == tmp_path / "h.jsonl"
    assert handoff_path("h.jsonl", None) == Path.cwd() / "h.jsonl"
    assert handoff_path("/var/x.jsonl", tmp_path) == Path("/var/x.jsonl")


def test_daemon_style_wiring_puts_a_relative_file_in_the_state_dir(
        config: Config, tmp_path: Path) -> None:
    clock = VirtualClock()
    ctl = compose_table(with_rules(config, handoff_file="handoffs.jsonl"),
                        ScriptedHal(clock), clock, state_dir=tmp_path)
    assert [c.name for c in ctl.handoff.consumers] == [
        f"file:{tmp_path / 'handoffs.jsonl'}", "engine:builtin"]


def lines_of(path: Path) -> list[str]:
    text = path.read_text()
    assert text.endswith("\n")
    return text.splitlines()


def test_file_gets_one_line_per_hand_and_audit_reads_it(short: Config, tmp_path: Path) -> None:
    path = tmp_path / "log" / "handoffs.jsonl"
    config = with_rules(short, handoff_file=str(path))
    kept: list[dict] = []
    simulate(config, 3, seed=7, consumers=[kept.append])
    assert [json.loads(line) for line in lines_of(path)] == json.loads(json.dumps(kept))

    # A power cut in the middle of the next line: the audit skips it with a warning.
    with path.open("a") as f:
        f.write(json.dumps(kept[0])[:500])
    result = subprocess.run([*MJTABLE, "audit", str(path), "--json"], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["records"] == 3
    assert "warning" in result.stderr and ":4: unterminated last line" in result.stderr

    # The table starts again and appends: the cut line is dropped, never joined.
    simulate(config, 2, seed=8)
    lines = lines_of(path)
    assert len(lines) == 5
    assert [json.loads(line)["table"]["cycle"] for line in lines] == [1, 2, 3, 1, 2]


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"a":1}\n{"b":2}')
    HandoffFile(path)({"c": 3})
    assert [json.loads(line) for line in lines_of(path)] == [{"a": 1}, {"b": 2}, {"c": 3}]


def test_a_full_disk_stops_the_table_and_the_next_write_repairs_the_file(
        short: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "h.jsonl"

    class DiskFillsUp:
        """os for the consumers module, whose second write fills the disk halfway."""

        calls = 0

        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def write(self, fd: int, data: bytes) -> int:
            self.calls += 1
            if self.calls == 2:
                os.write(fd, data[: len(data) // 2])
                raise OSError(errno.ENOSPC, "No space left on device")
            return os.write(fd, data)

    monkeypatch.setattr(consumers, "os", DiskFillsUp())
    bench = recording(assemble(with_rules(short, handoff_file=str(path)), seed=9))
    run_hands(bench, 2)
    # A record not on disk is a fault through the shutdown path, never a silent gap.
    ctl = bench.controller
    faults = events(bench, "fault")
    assert [(f["id"], f["where"], f["evidence"]["error"]) for f in faults] == [
        ("storage.failed", "handoff", "OSError: No space left on device")]
    assert ctl.cycle.state == "fault" and not ctl.may_resume()
    assert all(not v or v == "off" for k, v in
               ((n, ctl.hal.read(n)) for n in ctl.hal.signals) if k.startswith("motor."))
    # Space freed, the technician clears it: the next write repairs the file.
    fault = next(f for f in ctl.faults if f.id == "storage.failed")
    ctl.clear_fault(fault, "li")
    ctl.resume_after_fault()
    bench.clock.run_until(bench.clock.now() + 4000.0,
                          until=lambda: len(ctl.handoff.records) >= 3)
    assert [json.loads(line)["table"]["cycle"] for line in lines_of(path)] == [1, 3]


# -- the API stream --------------------------------------------------------------------------

def test_handoff_event_carries_the_full_record(short: Config) -> None:
    bench = recording(assemble(short, seed=10))
    run_hands(bench, 2)
    handoffs = events(bench, "handoff")
    records = bench.controller.handoff.records
    assert [e["record"] for e in handoffs] == records
    assert all(e["commitment"] == e["record"]["commitment"] for e in handoffs)
    # What the API's subscribe stream sends: the event as one JSON line.
    line = json.dumps(handoffs[1])
    assert "\n" not in line and json.loads(line)["record"]["revealed"]["cycle"] == 1


def test_a_line_appended_unterminated_while_running_never_swallows_the_next_record(
        tmp_path: Path) -> None:
    """Attack: an unterminated line appended to the handoff file between two hands made
    the next record part of it (not JSON, lost to verify-deals), with no event."""
    path = tmp_path / "h.jsonl"
    events: list[tuple[str, dict[str, Any]]] = []
    handoff_file = HandoffFile(path, lambda kind, **data: events.append((kind, data)))
    handoff_file({"a": 1})
    with open(path, "ab") as fh:
        fh.write(b'{"forged": "half a rec')
    handoff_file({"b": 2})
    assert [json.loads(line) for line in lines_of(path)] == [{"a": 1}, {"b": 2}]
    ((kind, data),) = events
    assert kind == "handoff.file.repaired" and data["foreign"] is True
    quarantine = path.with_name("h.jsonl.quarantine")
    assert data["quarantine"] == str(quarantine)
    assert json.loads(quarantine.read_text())["text"] == '{"forged": "half a rec'
    assert oct(quarantine.stat().st_mode & 0o777) == "0o600"
