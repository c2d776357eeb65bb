"""Every injectable fault, on at least two places or phases, and pairs of faults.

Each scenario file in tests/scenarios/ says what it injects, what the technician does
and what must be raised; the harness checks that motors were safe, that no wall was
handed off wrongly, that every tile is accounted for and that the cycles after the
technician's action complete.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from firmware.faults.kinds import CATALOGUE
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import (
    DETECTED_BY,
    KINDS,
    ScenarioError,
    load_scenario,
    parse_scenario,
)
from tests.conftest import ROOT, quick

ALL = sorted((ROOT / "tests" / "scenarios").glob("*.toml"))
# The link kinds need the I/O board's cable: they run on the ioboard rig only.
LINK = [p for p in ALL if load_scenario(p).needs_link]
SCENARIOS = [p for p in ALL if p not in LINK]
# On the ioboard rig too: one of each family, and every link scenario.
ON_IOBOARD = [p for p in ALL if p.stem in (
    "head_jam", "plate_blocked", "lid_blocked", "case_opened", "missing_tiles",
    "power_cut_build", "count_double")] + LINK


def run(path: Path, rig: str = "sim") -> tuple[dict, Harness]:
    scenario = load_scenario(path)
    config = quick(load_config(ROOT / scenario.config if scenario.config else None), 60.0)
    harness = Harness(config, scenario, rig=rig)
    return harness.run(), harness


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    check(*run(path))


@pytest.mark.timeout(180)
@pytest.mark.parametrize("path", ON_IOBOARD, ids=[p.stem for p in ON_IOBOARD])
def test_scenario_on_the_ioboard_rig(path: Path) -> None:
    report, harness = run(path, "ioboard")
    assert report["hal"] == "ioboard"
    # With the link lost, the board's failsafe stops the motors within its limit.
    assert harness.referee.link_grace_s == harness.rig.link_grace_s > 0
    check(report, harness)


def check(report: dict, harness: Harness) -> None:
    assert report["referee_violations"] == [] and report["stalls"] == []
    assert report["crashed"] is None
    assert report["problems"] == []
    assert report["motors_safe_after_faults"] is True
    assert report["wrong_handoffs"] == 0
    assert report["tiles_accounted"] is True
    scenario = harness.scenario
    raised = [f["id"] for f in report["faults"]]
    for fault_id in scenario.expect.faults:
        assert fault_id in raised
    # The fault names the place that was broken, where the firmware can tell.
    for spec in scenario.faults:
        if spec.side is not None and spec.kind in ("tile_jam", "plate_blocked", "sensor_dirty"):
            assert any(f["where"].startswith(f"side.{spec.side}.") for f in report["faults"])
    # After the last fault, the table went on to complete the cycles asked for.
    wanted = scenario.expect.cycles_completed
    assert report["cycles_completed"] == (scenario.cycles if wanted is None else wanted)


def test_every_fault_kind_is_covered_twice() -> None:
    kinds = Counter(spec.kind for path in ALL for spec in load_scenario(path).faults)
    for kind in KINDS:
        assert kinds[kind] >= 2, kind


def test_pairs_of_faults_are_covered() -> None:
    pairs = [p for p in SCENARIOS if len(load_scenario(p).faults) >= 2]
    assert len(pairs) >= 3


def test_recurring_face_up_is_one_defective_tile() -> None:
    report, _ = run(ROOT / "tests" / "scenarios" / "weak_magnet_A.toml")
    face_up = [f for f in report["faults"] if f["id"] == "tile.face_up"]
    assert len(face_up) >= 3                       # set A built in cycles 1, 3 and 5
    assert face_up[0]["diagnosis"]["recurring"] is False
    last = face_up[-1]
    assert last["diagnosis"]["recurring"] is True
    assert "one defective tile" in last["diagnosis"]["verdict"]
    assert "tile" not in last["evidence"]      # open to anyone: the remedy names it
    p, k, level = last["diagnosis"]["now_at"]
    assert last["diagnosis"]["remedy"][0].startswith(
        f"replace the face-up tile, now at wall {p}, stack {k + 1}")
    assert last["evidence"]["wall_slot"] == [p, k, level]


def test_failed_sensor_falls_back_to_a_timed_stop() -> None:
    report, harness = run(ROOT / "tests" / "scenarios" / "lid_upper_dead.toml")
    ids = [f["id"] for f in report["faults"]]
    assert ids.index("lid.not_rising") < ids.index("sensor.degraded")
    assert "lid.upper" in harness.ctl.supervisor.degraded
    assert report["cycles_completed"] == 4          # the table kept playing


def test_power_cut_during_a_build_refeeds_never_resumes() -> None:
    report, harness = run(ROOT / "tests" / "scenarios" / "power_cut_build.toml")
    recovered = next(f for f in report["faults"] if f["id"] == "power.recovered")
    assert recovered["evidence"]["build_in_progress"] is True
    assert recovered["code"] == "I92"
    starts = [e for e in harness.journal.load()["faults"] if e["id"] == "power.recovered"]
    assert starts, "the fault history survived the cut"


def test_detection_latency_is_reported_per_kind() -> None:
    report, _ = run(ROOT / "tests" / "scenarios" / "head_jam.toml")
    # The jam shows at the first head turn after it; k·T = 0.9 s later it is a fault.
    assert 0.9 <= report["detection_latency_s"]["tile_jam"] < 5.0


@pytest.mark.parametrize(("text", "message"), [
    ("cycles = 2\n[[fault]]\nkind = \"tile_jam\"\nwhere = \"side.5.head\"\ncycle = 1\n"
     "phase = \"build\"\n", "[[fault]] #1 where: 'side.5.head' does not fit tile_jam"),
    ("cycles = 2\n[[fault]]\nkind = \"tile_jan\"\nwhere = \"side.1.head\"\ncycle = 1\n"
     "phase = \"build\"\n", "[[fault]] #1 kind: got 'tile_jan', allowed: one of"),
    ("cycles = 2\n[[fault]]\nkind = \"tile_jam\"\nwhere = \"side.1.head\"\ncycle = 1\n",
     "[[fault]] #1 phase: give exactly one of phase or at_s"),
    ("cycles = 2\n[[fault]]\nkind = \"tile_jam\"\nwhere = \"side.1.head\"\ncycle = 3\n"
     "phase = \"build\"\n", "[[fault]] #1 cycle: cycle 3 is after the last cycle 2"),
    ("cycles = 2\n[[action]]\nafter_fault = \"head.jammed\"\ndo = \"clear_jam\"\n",
     "[[action]] #1 after_fault: got 'head.jammed', allowed: a fault id"),
    ("cycles = 2\n[[action]]\nafter_fault = \"head.jam\"\ndo = \"kick_it\"\n",
     "[[action]] #1 do: got 'kick_it', allowed: one of"),
    ("cycles = 2\nseeds = 4\n", "seeds: unknown option (valid options here: action, config,"),
    ("cycles = 2\n[expect]\nfaults = [\"lid.stuck\"]\n",
     "[expect] faults: got 'lid.stuck', allowed: a fault id"),
    ("cycles = 2\n[[fault]]\nkind = \"motor_slow\"\nwhere = \"motor.lid\"\ncycle = 1\n"
     "phase = \"build\"\nfactor = 0.5\n", "[[fault]] #1 factor: 0.5: above 1"),
    ("cycles = 2\nfault = 3\n", "fault: must be an array of tables ([[fault]])"),
    ("cycles = 0\n", "cycles: got 0, allowed: from 1 to 100000"),
])
def test_bad_scenarios_say_what_and_where(tmp_path: Path, text: str, message: str) -> None:
    import tomllib

    with pytest.raises(ScenarioError, match=r"bad\.toml") as err:
        parse_scenario(tomllib.loads(text), str(tmp_path / "bad.toml"))
    assert message in str(err.value)


def test_link_faults_need_the_io_board() -> None:
    config = quick(load_config())
    scenario = dataclasses.replace(load_scenario(SCENARIOS[0]), faults=(
        dataclasses.replace(load_scenario(SCENARIOS[0]).faults[0], kind="link_noise",
                            where="link", probability=0.01),))
    with pytest.raises(ValueError, match=r"--hal ioboard"):
        Harness(config, scenario).run()


def test_a_fault_detects_only_the_kinds_it_tells_of(tmp_path: Path) -> None:
    """A flaky full sensor that raised nothing is not 'detected' by the dice jam
    raised after it (each raised fault used to count for every earlier injection)."""
    path = tmp_path / "two.toml"
    path.write_text(
        'seed = 30\ncycles = 3\n'
        '[[fault]]\nkind = "sensor_flaky"\nwhere = "side.0.full"\ncycle = 1\nphase = "build"\n'
        'probability = 0.5\n'
        '[[fault]]\nkind = "dice_jam"\nwhere = "dice"\ncycle = 1\nphase = "raise"\n'
        '[[action]]\nafter_fault = "dice.stuck"\ndo = "clear_jam"\nwhere = "motor.dice"\n'
        '[expect]\nfaults = ["dice.stuck"]\ncycles_completed = 3\n')
    report, harness = run(path)
    assert report["expectations_met"], report["problems"]
    assert [(d["kind"], d["fault"]) for d in harness.detections] == [("dice_jam", "dice.stuck")]
    assert set(report["detection_latency_s"]) == {"dice_jam"}


def test_every_kind_says_which_faults_detect_it() -> None:
    assert set(DETECTED_BY) == set(KINDS)
    assert set().union(*DETECTED_BY.values()) <= set(CATALOGUE)
