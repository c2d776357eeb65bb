"""The differential diagnosis names the part that broke, or the test that tells.

Each test breaks one part as the first build starts, lets a technician replace it 30 s
after the fault, and reads the first fault as the console shows it.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bench.faults.bench_diagnosis import run_one
from firmware.diagnosis.differential import rank
from firmware.faults.kinds import Fault
from firmware.i18n import language
from mjtable_core.config import load_config
from simulator.fuzz.batch import _elsewhere, generate
from simulator.harness.diagnosis_judge import judge, ranked_parts, verdict
from simulator.harness.runner import Harness
from simulator.scenario import FaultSpec, Scenario


@pytest.mark.parametrize(("kind", "where", "value"), [
    ("motor_dead", "motor.side.2.head", None),      # was "a tile jammed in the head"
    ("motor_dead", "motor.side.1.plate", None),     # was "debris in the plate rails"
    ("motor_dead", "motor.disc", None),             # was "a tile left on the table"
    ("motor_dead", "motor.side.3.conveyor", None),
])
def test_a_dead_motor_is_named_first(kind: str, where: str, value: Any) -> None:
    judged = run_one("table.toml", FaultSpec(kind, where, 1, "build"))
    assert judged["verdict"] == "first", judged


def test_a_stuck_head_home_sensor_is_named_with_the_test_that_tells() -> None:
    judged = run_one("table.toml", FaultSpec("sensor_stuck", "side.1.head_home", 1, "build",
                                             value=True))
    assert judged["verdict"] == "among", judged
    assert judged["named"][:2] == ["motor.side.1.head", "side.1.head_home"]


def _head_jam(moved: bool) -> Fault:
    return Fault("head.jam", "side.2.head", 2, 1, 10.0, {"moved": moved})


def test_a_cam_that_never_left_home_is_its_motor_and_one_that_left_a_jam() -> None:
    never = _head_jam(False)
    never.diagnosis_extra = rank(never, None)        # type: ignore[arg-type]
    left = _head_jam(True)
    left.diagnosis_extra = rank(left, None)          # type: ignore[arg-type]
    shown = never.diagnosis()
    assert [s["part"] for s in shown["suspects"]] == ["motor.side.2.head",
                                                      "side.2.head_home", "side.2.head"]
    assert shown["causes"][0] == "the head motor of side 2, its driver or its fuse"
    assert shown["test"].startswith("run the head self-test of side 2: if the cam turns")
    assert shown["self_test"] == "head.2"
    assert left.diagnosis()["suspects"][0]["part"] == "side.2.head"


def test_the_test_is_told_in_the_trades_words() -> None:
    fault = _head_jam(False)
    fault.diagnosis_extra = rank(fault, None)        # type: ignore[arg-type]
    with language("zh_CN"):
        shown = fault.diagnosis()
    assert shown["causes"][0] == "2 号口叠推电机、其驱动或保险丝"
    assert "机头槽形光耦" in shown["test"]


def test_the_judge_reads_old_diagnoses_from_their_causes() -> None:
    fault = {"id": "head.jam", "where": "side.2.head",
             "diagnosis": {"causes": ["a tile jammed in the head", "head gap misadjusted"]}}
    assert ranked_parts(fault) == ([], False)
    assert verdict("motor.side.2.head", fault) == "wrong"
    assert verdict("motor.side.2.head", None) == "undetected"


def test_wide_fuzz_draws_what_it_never_drew() -> None:
    scenarios = [generate(5, i, wide=True) for i in range(300)]
    faults = [f for s in scenarios for f in s.faults]
    assert max(a.delay_s for s in scenarios for a in s.actions) > 40
    assert max(f.factor for f in faults if f.kind == "motor_slow") > 3
    assert max(f.probability for f in faults if f.kind == "sensor_flaky") > 2
    assert max(f.count for f in faults if f.kind in ("missing_tiles", "extra_tiles")) > 3
    assert _elsewhere(__import__("random").Random(1), "side.2.head_home") in (
        "side.0.head_home", "side.1.head_home", "side.3.head_home", "motor.side.2.head")


def test_a_lid_the_boards_interlock_stopped_names_the_plate_home_switch() -> None:
    # A flaky plate home switch of side 2 opened as the lid rose: the board stopped the
    # lid. Its report says which input forbade it; that switch is the part, not the lid.
    fault = Fault("lid.not_rising", "motor.lid", None, 1, 10.0,
                  {"moved": True, "sensor": "lid.upper",
                   "interlock": {"side.2.plate_home": False}})
    fault.diagnosis_extra = rank(fault, None)        # type: ignore[arg-type]
    shown = fault.diagnosis()
    assert [s["part"] for s in shown["suspects"]] == ["side.2.plate_home",
                                                      "motor.side.2.plate"]
    assert shown["causes"][0] == ("the plate home switch of side 2 opens while the plate "
                                  "is at home")
    assert shown["test"].startswith("watch the plate home switch of side 2")
    assert shown["self_test"] == "plate.2"
    assert verdict("side.2.plate_home", {"diagnosis": shown}) == "first"
    with language("zh_CN"):
        assert "2 号口升牌板限位开关" in fault.diagnosis()["causes"][0]


def test_the_boards_interlock_report_is_the_evidence_of_the_fault() -> None:
    from hal.armed import StopReason, StopReport
    from tests.test_diagnosis import table_in_play

    harness = table_in_play()
    ctl = harness.ctl
    arm = ctl.outputs.arm

    def refused(spec: Any, on_stopped: Any, holder: str | None = None) -> bool:
        if spec.output != "motor.lid":
            return arm(spec, on_stopped, holder)
        # The board refuses the lid going up: a plate home switch reads open.
        inputs = {name: harness.hal.read(name) for name in ctl.hal.signals
                  if not ctl.hal.signals[name].is_output}
        inputs["side.2.plate_home"] = False
        report = StopReport(spec, StopReason.INTERLOCK, ctl.clock.now(), inputs)
        ctl.clock.post(lambda: on_stopped(report))
        return True

    ctl.outputs.arm = refused        # type: ignore[method-assign]
    harness.table.press("key.lift.0")       # the hand is over: open for the next set
    harness.clock.run_until(harness.clock.now() + 60.0,
                            until=lambda: any(f.active for f in ctl.faults))
    fault = next(f for f in ctl.faults if f.active)
    assert fault.id == "lid.not_rising"
    assert fault.evidence["interlock"] == {"side.2.plate_home": False}
    assert fault.diagnosis()["suspects"][0]["part"] == "side.2.plate_home"
    assert not ctl.supervisor.is_suspect("lid.upper")


def test_a_ring_dead_as_the_last_side_fills_is_named_with_the_disc_test() -> None:
    # Sides 0-2 full, side 3 three short when the ring stops: the counts look like
    # tiles on the table or side 3's belt, but the ring and the disc feed that side too.
    ring = FaultSpec(kind="motor_dead", where="motor.ring", cycle=2, at_s=26.0)
    scenario = Scenario(seed=6439, cycles=3, faults=(ring,), play_time_s=20.0)
    report = Harness(load_config(), scenario).run(wall_limit_s=60.0)
    fault = next(f for f in report["faults"] if f["id"] == "build.tiles_missing")
    assert fault["evidence"]["short_sides"] == {"3": 3}
    parts, _test = ranked_parts(fault)
    assert parts == ["table", "side.3.count", "motor.side.3.conveyor", "motor.disc",
                     "motor.ring"]
    assert "run the disc self-test" in fault["diagnosis"]["test"]
    judged = judge(report)
    assert judged is not None and judged["verdict"] == "among", judged


# The table a build rule reads: four sides of 36 tiles, no tile reader.
_TABLE = SimpleNamespace(config=SimpleNamespace(tiles_per_side=36),
                         geometry=SimpleNamespace(sides=(0, 1, 2, 3)), sides=())


def _stalled(short: dict[str, int]) -> list[str]:
    fault = Fault("build.tiles_missing", "build", None, 1, 10.0,
                  {"short_sides": short, "missing": sum(short.values())})
    fault.diagnosis_extra = rank(fault, _TABLE)       # type: ignore[arg-type]
    return [s["part"] for s in fault.diagnosis()["suspects"]]


def test_sides_a_few_short_together_name_the_feed_before_each_sides_parts() -> None:
    # Every side still filling stopped at once: one feed, not a part at each side.
    assert _stalled({"1": 2, "3": 3})[:3] == ["table", "motor.disc", "motor.ring"]
    # One side: its own belt or sensor first, the feed after.
    assert _stalled({"3": 3}) == ["table", "side.3.count", "motor.side.3.conveyor",
                                  "motor.disc", "motor.ring"]
