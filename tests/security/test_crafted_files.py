"""Crafted files: every command that reads a file gives one clear line and exit 2 (or
its own verdict), never a traceback.

The red team crashed `verify-deals`, `audit`, `deal`, `console verify-log`, `console
export-log` and `simulate --scenario` with crafted files. Each is fuzzed here in
process (the CLI's `main`), with valid files mutated at one place and with raw bytes:
kept small so the whole file runs in seconds.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
from firmware.state.eventlog import EventLog
from mjtable.cli import main
from rules.tiles import set_composition
from tests.conftest import ROOT

FUZZ = settings(max_examples=30, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
# Stand-ins written into the file as what no encoder writes: an integer of thousands of
# digits (past Python's 4,300-digit limit, a traceback in four tools) and arrays nested
# past the parser's stack.
CRAFTED = {'"__HUGE__"': "9" * 5000, '"__DEEP__"': "[" * 3000 + "]" * 3000,
           '"__DEEPT__"': '{"a": ' * 3000 + "1" + "}" * 3000}
TOML_CRAFTED = {"__HUGE__": "9" * 5000, "__DEEP__": "[" * 3000 + "]" * 3000,
                "__DEEPT__": "{a = " * 3000 + "1" + "}" * 3000}
SCALARS = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
           | st.floats(allow_nan=True) | st.text(max_size=12)
           | st.sampled_from(sorted(TOML_CRAFTED)))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                      max_leaves=6)


def run(capsys: pytest.CaptureFixture, *argv: str) -> int:
    """Run the command; exit 2 must come with one line on stderr."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 2:
        # export-log prints the chain head first, as it starts (not an error).
        said = [line for line in err.splitlines()
                if line.strip() and not line.startswith("event log chain head:")]
        assert len(said) == 1, err
    return code


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON value (keys of objects, indexes of lists)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:6]):
            out += paths(item, (*prefix, i))
    return out


def mutated(value: Any, data: st.DataObject) -> Any:
    """`value` with one place replaced by something else, or removed."""
    value = json.loads(json.dumps(value))
    where = data.draw(st.sampled_from(paths(value)))
    new = data.draw(VALUES)
    if not where:
        return new
    parent = value
    for key in where[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and data.draw(st.booleans()):
        del parent[where[-1]]
    else:
        parent[where[-1]] = new
    return value


def deal_input() -> dict[str, Any]:
    tiles = [code for code, n in sorted(set_composition(144).items()) for _ in range(n)]
    random.Random(5).shuffle(tiles)
    walls = [[[tiles[(p * 18 + k) * 2], tiles[(p * 18 + k) * 2 + 1]] for k in range(18)]
             for p in range(4)]
    return {"variant": "mcr", "dealer_position": 1, "walls": walls,
            "throws": [[3, 5], [4, 2]]}


def history() -> list[dict[str, Any]]:
    """Three chained records, the first two revealed (as the firmware writes them)."""
    records, previous, nonces = [], None, []
    for cycle in range(3):
        record, nonce = rules.deal_with_nonce(
            deal_input()["walls"], [[3, 5], [4, 2]], "mcr", cycle % 4,
            table={"id": "t", "cycle": cycle + 1, "set": "AB"[cycle % 2]},
            previous_commitment=previous)
        record["revealed"] = ({"cycle": cycle, "nonce": nonces[-1]} if nonces else None)
        records.append(record)
        previous = record["commitment"]
        nonces.append(nonce)
    return records


HISTORY = history()


def crafted(text: str) -> str:
    """`text` with the stand-ins replaced by what they stand for."""
    for marker, value in CRAFTED.items():
        text = text.replace(marker, value)
    return text


def lines(records: Any) -> bytes:
    records = records if isinstance(records, list) else [records]
    return crafted("".join(json.dumps(r) + "\n" for r in records)).encode()


@given(data=st.data())
@FUZZ
def test_verify_deals_on_crafted_files(data: st.DataObject, tmp_path: Path,
                                      capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "handoff.jsonl"
    if data.draw(st.booleans()):
        path.write_bytes(lines(mutated(HISTORY, data)))
    else:
        path.write_bytes(data.draw(st.binary(max_size=200)))
    assert run(capsys, "verify-deals", str(path)) in (0, 1, 2)


def test_verify_deals_on_a_crafted_log(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "handoff.jsonl"
    path.write_bytes(lines(HISTORY))
    log = tmp_path / "events.sqlite"
    log.write_bytes(b"SQLite format 3\x00" + bytes(200))
    assert run(capsys, "verify-deals", str(path), "--log", str(log)) == 2
    assert run(capsys, "verify-deals", str(path), "--log", str(tmp_path)) == 2


@given(data=st.data())
@FUZZ
def test_audit_on_crafted_files(data: st.DataObject, tmp_path: Path,
                               capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "handoff.jsonl"
    if data.draw(st.booleans()):
        path.write_bytes(lines(mutated(HISTORY, data)))
    else:
        path.write_bytes(data.draw(st.binary(max_size=200)))
    assert run(capsys, "audit", str(path)) in (0, 2, 3)


@given(data=st.data())
@FUZZ
def test_deal_on_crafted_files(data: st.DataObject, tmp_path: Path,
                              capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "deal.json"
    if data.draw(st.booleans()):
        path.write_text(crafted(json.dumps(mutated(deal_input(), data))))
    else:
        path.write_bytes(data.draw(st.binary(max_size=200)))
    assert run(capsys, "deal", str(path)) in (0, 2)


def test_deal_on_json_nested_past_the_parser(tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "deal.json"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    assert run(capsys, "deal", str(path)) == 2
    assert run(capsys, "audit", str(path)) == 2
    assert run(capsys, "verify-deals", str(path)) == 1


@pytest.fixture(scope="module")
def event_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("log") / "events.sqlite"
    log = EventLog(path)
    for i in range(4):
        log.record({"kind": "walls.committed", "t": float(i), "commitment": f"sha256:{i}"}, i)
    assert log.flush()
    log.close()
    return path


LOG_COLUMNS = ("id", "run", "wall", "t", "cycle", "kind", "data", "chain")
SQL_VALUES = (st.none() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=True)
              | st.text(max_size=12) | st.binary(max_size=12))


@given(data=st.data())
@FUZZ
def test_console_reads_of_crafted_logs(data: st.DataObject, event_log: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture) -> None:
    state = tmp_path / "state"
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir()
    path = state / "events.sqlite"
    how = data.draw(st.sampled_from(["row", "meta", "bytes", "cut"]))
    if how == "bytes":
        path.write_bytes(data.draw(st.binary(max_size=300)))
    elif how == "cut":
        whole = event_log.read_bytes()
        path.write_bytes(whole[:data.draw(st.integers(0, len(whole)))])
    else:
        shutil.copy(event_log, path)
        with (contextlib.closing(sqlite3.connect(path)) as conn, conn,
              contextlib.suppress(sqlite3.IntegrityError)):     # a value SQLite refuses
            if how == "row":
                column = data.draw(st.sampled_from(LOG_COLUMNS))
                conn.execute(f"UPDATE events SET {column} = ? WHERE id = ?",
                             (data.draw(SQL_VALUES), data.draw(st.integers(1, 4))))
            else:
                key = data.draw(st.sampled_from(["run", "chain_anchor", "chain_head"]))
                conn.execute("UPDATE meta SET value = ? WHERE key = ?",
                             (data.draw(SQL_VALUES), key))
    for command in ("verify-log", "export-log"):
        assert run(capsys, "--state-dir", str(state), "console", command) in (0, 1, 2)


SCENARIO = tomllib.loads((ROOT / "tests" / "scenarios" / "head_jam.toml").read_text())


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return '""'
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(value), repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value in TOML_CRAFTED:
        return TOML_CRAFTED[value]
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_text(scenario: Any) -> str:
    if not isinstance(scenario, dict):
        return f"value = {toml_value(scenario)}\n"
    out = [f"{json.dumps(k)} = {toml_value(v)}" for k, v in scenario.items()]
    return "\n".join(out) + "\n"


@given(data=st.data())
@FUZZ
def test_simulate_scenario_on_crafted_files(data: st.DataObject, tmp_path: Path,
                                           capsys: pytest.CaptureFixture,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from simulator.harness.runner import Harness

    # The file is what is fuzzed, not the simulation: a scenario that reads is not run.
    monkeypatch.setattr(Harness, "run", lambda self, progress=None: {
        "completed": True, "tiles_accounted": True, "motors_safe_after_faults": True})
    path = tmp_path / "scenario.toml"
    if data.draw(st.booleans()):
        path.write_text(toml_text(mutated(SCENARIO, data)))
    else:
        path.write_bytes(data.draw(st.binary(max_size=200)))
    assert run(capsys, "simulate", "--json", "--scenario", str(path)) in (0, 1, 2)


@pytest.fixture(scope="module")
def recording() -> dict[str, Any]:
    from tests.test_replay import recorded

    return recorded("head.jam")[0]


@given(data=st.data())
@settings(FUZZ, max_examples=60)
def test_replay_on_crafted_files(data: st.DataObject, recording: dict[str, Any],
                                 tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "recording.json"
    how = data.draw(st.sampled_from(["mutated", "lines", "bytes"]))
    if how == "bytes":
        path.write_bytes(data.draw(st.binary(max_size=200)))
    elif how == "lines":        # an exported event log: JSON lines
        path.write_bytes(lines([{"kind": "phase"}, mutated(recording, data)]))
    else:
        path.write_bytes(lines(mutated(recording, data)))
    # 1 is "not reproduced": an error must never say that.
    assert run(capsys, "replay", str(path), "--quiet") in (0, 1, 2)


@pytest.mark.parametrize("tool", ["deal", "audit", "replay", "simulate"])
@pytest.mark.parametrize("how", ["__HUGE__", "__DEEP__", "__DEEPT__"])
def test_each_tool_says_one_line_and_exits_2_on_a_crafted_file(
        tool: str, how: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    if tool == "simulate":
        path = tmp_path / "scenario.toml"
        path.write_text(f"seed = {TOML_CRAFTED[how]}\n")
        argv = ["simulate", "--scenario", str(path)]
    else:
        path = tmp_path / "input.json"
        path.write_bytes(lines({"kind": "fault.recording", "fault": how, "entries": []}))
        argv = [tool, str(path)]
    assert run(capsys, *argv) == 2


@pytest.mark.parametrize("how", ["__HUGE__", "__DEEP__", "__DEEPT__"])
def test_replay_and_simulate_on_a_crafted_config(how: str, recording: dict[str, Any],
                                                 tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f"[table]\ntiles = {TOML_CRAFTED[how]}\n")
    saved = tmp_path / "recording.json"
    saved.write_text(json.dumps(recording))
    assert run(capsys, "replay", str(saved), "--config", str(config)) == 2
    assert run(capsys, "simulate", "--config", str(config)) == 2
