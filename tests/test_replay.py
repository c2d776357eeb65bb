"""The flight recorder and `mjtable replay`: every fault kind the simulator can raise is
recorded on the table and raised again by the unchanged firmware from its recording."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from firmware.diagnosis import recorder
from firmware.diagnosis.recorder import MAX_BYTES, RECORDING
from firmware.faults.kinds import CATALOGUE
from firmware.state.eventlog import EventLog
from mjtable.cli import main
from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config
from simulator.fuzz.replay import ReplayHal, replay
from simulator.harness.runner import Harness
from simulator.physics.table import SimTable
from simulator.scenario import load_scenario, parse_scenario

ROOT = Path(__file__).resolve().parent
SCENARIOS = ROOT / "scenarios"

# A disc and ring slowed after a few healthy builds: the build itself is slow (W52).
RING_SLOW = """
seed = 3
cycles = 9
[[fault]]
kind = "motor_slow"
where = "motor.ring"
factor = 3.0
cycle = 5
phase = "build"
"""

# Each kind the simulator raises: a scenario that raises it.
RAISED_BY = {
    "lid.not_rising": "lid_motor_dead.toml",
    "lid.not_lowering": "lid_blocked_first.toml",
    "lid.sensor_conflict": "lid_lower_stuck.toml",
    "head.jam": "head_jam.toml",
    "plate.stuck": "plate_motor_dead.toml",
    "count.double": "count_double.toml",
    "count.blind": "count_miss.toml",
    "build.tiles_missing": "missing_tiles.toml",
    "build.extra_tiles": "extra_tiles.toml",
    "build.slow": RING_SLOW,
    "tile.face_up": "weak_magnet_A.toml",
    "dice.stuck": "dice_jam.toml",
    "timing.drift": "head_slow.toml",
    "sensor.flaky": "head_home_flaky.toml",
    "case.opened": "case_opened.toml",
}
# The kinds no recording of sensor edges can raise again, and why (docs/faults.md).
NOT_REPLAYABLE = {
    "link.lost": "raised by the serial link itself (no frame within the heartbeat)",
    "link.version": "raised by the board's handshake, before any edge",
    "sensor.degraded": "raised on the travel back after an earlier stop-fault and its resume",
    "power.recovered": "a note raised at start-up from the journal",
    "build.interrupted": "a note raised at start-up from the journal",
    "software.error": "a firmware bug: the simulator has none to raise on purpose",
    "storage.failed": "raised by a failing disk, not by the table",
    "sensor.silent": "raised from 20 builds of history, longer than a flight recording",
    "case.contacts": "a two-contact case switch, which the reference tables do not fit "
                     "(tests/test_case_contacts.py)",
}


def _scenario(source: str) -> Any:
    if source.endswith(".toml"):
        return load_scenario(SCENARIOS / source)
    return parse_scenario(tomllib.loads(source), "<test>")


def recorded(kind: str, config_name: str = "table.toml", attach: Any = None,
             rig: str = "sim", source: str | None = None) -> tuple[dict[str, Any], Any]:
    """The first recording of a `kind` fault in its scenario (or `source`), and the
    config."""
    scenario = _scenario(RAISED_BY[kind] if source is None else source)
    config = load_config(ROOT.parent / "config" / config_name)
    harness = Harness(config, scenario, None, rig=rig)
    found: list[dict[str, Any]] = []

    def watch(event: dict[str, Any]) -> None:
        if event["kind"] == RECORDING and event["fault"]["id"] == kind and not found:
            found.append(event)
            harness.clock.stop()        # the rest of the scenario is not needed

    harness.boot_hooks.append(lambda ctl: ctl.subscribers.append(watch))
    if attach is not None:
        harness.boot_hooks.append(attach)
    harness.run()
    assert found, f"{kind} was never recorded"
    return found[0], harness.config


def test_every_kind_is_replayed_or_said_why() -> None:
    assert set(RAISED_BY) | set(NOT_REPLAYABLE) == set(CATALOGUE)
    assert not set(RAISED_BY) & set(NOT_REPLAYABLE)


@pytest.mark.parametrize("kind", sorted(RAISED_BY))
def test_replay_raises_the_recorded_fault_again(kind: str) -> None:
    recording, config = recorded(kind)
    assert recording["anchor"] is not None
    assert len(json.dumps(recording["entries"])) <= MAX_BYTES
    result = replay(recording, config)
    assert result.reproduced, "\n".join(result.lines[-5:])
    assert result.lines[-1].startswith("reproduced: ")
    assert kind in result.lines[-1]


def test_the_136_tile_table_replays_on_its_own_config(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    recording, _config = recorded("head.jam", "table-136.toml")
    assert recording["tiles"] == 136
    saved = tmp_path / "e22.json"
    saved.write_text(json.dumps(recording))
    capsys.readouterr()
    assert main(["replay", str(saved), "--quiet"]) == 0     # its size picks its config
    assert capsys.readouterr().out.startswith("reproduced: E22 head.jam")
    assert main(["replay", str(saved), "--config",
                 str(ROOT.parent / "config" / "table.toml")]) == 2


@pytest.mark.parametrize("config_name", ["table-136.toml", "table.toml"])
def test_a_count_sensor_stuck_lit_before_the_start_is_lit_from_it(config_name: str) -> None:
    """Lit since the raise, before the build started: the replay starts with it lit,
    as the firmware found it, and no tile is counted for it (E61, not E21 head.jam)."""
    recording, config = recorded("count.blind", config_name,
                                 source="review/replay_count_stuck_136.toml")
    assert recording["tiles"] == config.table.tiles
    assert recording["anchor"]["inputs"]["side.1.count"] is True
    result = replay(recording, config)
    assert "+   0.000 s  side.1.count is on from the start" in result.lines
    assert not any("head.jam" in line for line in result.lines)
    assert result.lines[-1].startswith("reproduced: E61 count.blind at side.1.count")


def test_through_the_io_board_the_edges_keep_the_boards_time() -> None:
    recording, config = recorded("head.jam", rig="ioboard")
    assert recording["board_time"]
    edges = [e for e in recording["entries"] if e[1] == "i"]
    assert edges and all(len(e) == 5 for e in edges)
    result = replay(recording, config)
    assert result.reproduced, "\n".join(result.lines[-5:])


def test_from_the_anchor_on_an_edge_keeps_the_time_the_recording_gave_it() -> None:
    """The replay's HAL answers `changed_at` from the recording's stamps, not the
    simulated HAL's own (which a replay never fills)."""
    hal = ReplayHal(SimTable(load_config(), VirtualClock(), 1), board_time=True)
    hal.listen(lambda name, value: None)
    hal.feed("side.1.count", True, board_t=12.5)
    assert hal.changed_at("side.1.count") is None       # before the anchor: now
    hal.playing = True
    assert hal.changed_at("side.1.count") == 12.5


def test_a_recording_is_bounded_in_bytes_and_then_says_it_cannot_replay(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recorder, "MAX_BYTES", 1000)
    recording, config = recorded("count.double")
    assert len(json.dumps(recording["entries"], separators=(",", ":"))) <= 1000
    assert recording["entries"] and recording["anchor"] is None     # its start was cut
    result = replay(recording, config)
    assert not result.reproduced and "cannot be replayed" in result.lines[-1]


def test_a_recording_without_its_start_is_not_replayed() -> None:
    recording, config = recorded("head.jam")
    result = replay({**recording, "anchor": None}, config)
    assert not result.reproduced
    assert "cannot be replayed" in result.lines[-1]


def test_a_recording_cut_before_the_cause_does_not_reproduce() -> None:
    """The replay judges: without the second arrival closer than possible, no E4N."""
    recording, config = recorded("count.double")
    side = recording["fault"]["side"]
    # Every edge of that side's count sensor after the anchor goes: no arrivals at all.
    entries = [e for e in recording["entries"] if e[2] != f"side.{side}.count"]
    result = replay({**recording, "entries": entries, "stop_at": len(entries)}, config)
    assert not result.reproduced
    assert result.lines[-1].startswith("NOT reproduced")


def test_mjtable_replay_from_the_event_log_and_a_file(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    log = EventLog(tmp_path / "events.sqlite")
    try:
        recorded("head.jam", attach=log.attach)
        assert log.flush()
    finally:
        log.close()
    rows = list(log.each("fault"))
    fault = next(r for r in rows if r["kind"] == "fault" and r["id"] == "head.jam")
    capsys.readouterr()
    assert main(["replay", str(fault["seq"]), "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any("side.2.count → on" in line for line in out)
    assert out[-1].startswith("reproduced: E22 head.jam at side.2.head")
    # An exported file holds it too.
    exported = tmp_path / "head-jam.jsonl"
    with exported.open("w") as fh:
        log.export(fh)
    assert main(["replay", str(exported), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("reproduced: ")


@pytest.mark.parametrize("argv", [["999999"], ["nowhere.json"], ["{state}/events.sqlite"]])
def test_mjtable_replay_bad_input_is_one_line_and_exit_2(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    EventLog(tmp_path / "events.sqlite").close()
    argv = [a.format(state=tmp_path) for a in argv]
    assert main(["replay", *argv, "--state-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mjtable replay: ")
