"""`host_stall`: the host process freezes at the worst instant, just before a stop.
The board (or the simulator's edge) stops the mechanism by itself; a stall past the
board's link limit ends in its failsafe, not in a motion."""

from __future__ import annotations

import tomllib

import pytest

from firmware.faults.kinds import CATALOGUE
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config, load_config
from simulator.fuzz.batch import generate
from simulator.harness.runner import Harness
from simulator.rigs.host_clock import HostClock
from simulator.scenario import Expect, FaultSpec, Scenario, ScenarioError, parse_scenario

from .conftest import CONFIGS, quick

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def short() -> Config:
    return quick(load_config(CONFIGS["144"]), play_time_s=2.0)


def _stalled(config: Config, where: str, duration_s: float, phase: str = "build",
             rig: str = "sim", cycles: int = 2) -> tuple[Harness, dict]:
    scenario = Scenario(seed=1, cycles=cycles, source="<stall>",
                        faults=(FaultSpec("host_stall", where, 1, phase=phase,
                                          duration_s=duration_s),),
                        expect=Expect(allow=tuple(CATALOGUE)))
    harness = Harness(config, scenario, None, rig=rig, rig_options={})
    return harness, harness.run()


def test_the_host_wakes_to_its_backlog_before_anything_newer() -> None:
    clock = VirtualClock()
    host = HostClock(clock)
    ran: list[str] = []
    host.call_at(0.1, lambda: ran.append("timer"))
    clock.call_at(0.05, lambda: host.stall(0.2))
    clock.call_at(0.14, lambda: host.post(lambda: ran.append("frame")))
    clock.call_at(0.15, lambda: host.deliver(lambda: ran.append("edge")))
    cancelled = host.call_at(0.2, lambda: ran.append("cancelled"))
    clock.call_at(0.18, cancelled.cancel)
    clock.run_until(0.2499)
    assert ran == []                                    # nothing runs while stalled
    clock.call_at(0.25, lambda: host.post(lambda: ran.append("newer")))
    clock.run_until(1.0)
    assert ran == ["timer", "frame", "edge", "newer"]


def test_a_stall_just_before_a_head_stop_leaves_the_cam_at_home(short) -> None:
    # Before heads were armed, the loop stopped a head's cam when it saw the home
    # edge: a host frozen for 0.2 s let the cam run on past home (a tile taken with
    # no count). Now the pin stops it in the instant of its edge.
    _harness, report = _stalled(short, "side.1.head", 0.2)
    (stall,) = report["host_stalls"]
    assert stall["at_stop_on_waking"] and not stall["motor_on_waking"]
    assert report["referee_violations"] == [] and report["stalls"] == []
    assert report["cycles_completed"] == 2 and report["tiles_accounted"]


def test_a_stall_past_the_link_limit_ends_in_the_boards_failsafe(short) -> None:
    _harness, report = _stalled(short, "side.1.head", 1.0, rig="ioboard")
    (stall,) = report["host_stalls"]
    failsafe_at = report["link"]["board"]["failsafe_at_s"]
    assert failsafe_at is not None and stall["start"] < failsafe_at < stall["end"]
    assert stall["at_stop_on_waking"] and not stall["motor_on_waking"]
    # The host wakes to the board's failsafe, says RESUME and carries on from the
    # board's record: no link.lost, both hands dealt (protocol 5).
    assert not [f["id"] for f in report["faults"] if f["id"] == "link.lost"]
    assert report["link"]["host"]["resumes"] == 1
    assert report["cycles_completed"] == 2 and report["tiles_accounted"]
    assert report["referee_violations"] == []
    assert report["motors_safe_after_faults"] and report["motors_off_at_end"]


def test_a_host_stall_is_a_scenario_fault_and_a_fuzz_dimension() -> None:
    text = """
seed = 1
cycles = 1
[[fault]]
kind = "host_stall"
where = "side.2.plate"
cycle = 1
phase = "raise"
duration_s = 0.2
"""
    scenario = parse_scenario(tomllib.loads(text), "stall.toml")
    assert scenario.faults[0].duration_s == 0.2
    with pytest.raises(ScenarioError, match="duration_s"):
        parse_scenario(tomllib.loads(text.replace("0.2\n", "0\n")), "stall.toml")
    with pytest.raises(ScenarioError, match="where"):
        parse_scenario(tomllib.loads(text.replace("side.2.plate", "side.2.count")),
                       "stall.toml")
    kinds = {f.kind for i in range(120) for f in generate(5, i, rig="ioboard").faults}
    assert "host_stall" in kinds


@pytest.mark.parametrize("phase", ["lid_up", "play"])
def test_a_self_clearing_e80_is_no_motor_left_on(short, phase) -> None:
    # A board that is never asked RESUME (resume_within_s = 0, as a protocol-4 host
    # was): the stall ends in link.lost, which clears itself the moment the board
    # answers HELLO, and the table runs again. The harness used to judge the motors
    # half a second later and report "motors still on after link.lost" on this
    # correct table (and `mjtable simulate` exited 1).
    import dataclasses

    config = dataclasses.replace(
        short, ioboard=dataclasses.replace(short.ioboard, resume_within_s=0.0))
    _harness, report = _stalled(config, "host", 1.0, phase=phase, rig="ioboard", cycles=3)
    assert "link.lost" in [f["id"] for f in report["faults"]]
    assert report["motors_safe_after_faults"]
    assert not [p for p in report["problems"] if "motors still on" in p]
    assert report["referee_violations"] == []


@pytest.mark.parametrize("lost_welcomes", [1, 4])
def test_a_welcome_the_noise_takes_after_resume_leaves_the_record_owed(
        short, lost_welcomes) -> None:
    # The board answers RESUME with WELCOME then its record; a WELCOME garbled on the
    # cable leaves the host asking again. The board had started a fresh link and sent
    # the record on it: it took those unread RECORD frames for its new record, the
    # host found nothing in them it could replay, and the head it had driven stood
    # (head.jam, no hand dealt). The record is owed whole until it is acknowledged.
    # Four lost (a second of asking): the head's turn the host armed on waking, into
    # the holding board, was judged from that ARM and found jammed before it could
    # have turned; the supervisor moves its stops on by the board's hold.
    from board.wire import WELCOME

    scenario = Scenario(seed=1, cycles=2, source="<stall>",
                        faults=(FaultSpec("host_stall", "side.1.head", 1, phase="build",
                                          duration_s=1.0),),
                        expect=Expect(allow=tuple(CATALOGUE)))
    harness = Harness(short, scenario, None, rig="ioboard", rig_options={})
    board = harness.rig.board.board     # type: ignore[union-attr]
    send_now = board.link.send_now
    lost: list[bytes] = []

    def noisy(msg: int, payload: bytes) -> None:
        if msg == WELCOME and board.failsafe and len(lost) < lost_welcomes:
            lost.append(payload)            # the first answers to RESUME never arrive
            return
        send_now(msg, payload)

    board.link.send_now = noisy
    report = harness.run()
    assert lost
    assert not [f["id"] for f in report["faults"] if f["code"].startswith("E")]
    assert report["link"]["host"]["resumes"] == 1
    assert report["cycles_completed"] == 2 and report["tiles_accounted"]
    assert report["referee_violations"] == []


@pytest.mark.parametrize("table", ["144", "136"])
def test_a_stall_at_the_lids_lower_stop_raises_the_walls_after_resume(table) -> None:
    # The host froze 2 ms before the lid's lower stop. Waking, it read the edge (sent
    # before the board's limit), started the raise and armed the plates into a board
    # already holding (it ignores ARM then). After RESUME those plates were "armed
    # again from where they are": at home, with only the dwell left, so each stopped
    # at once and plate.stuck held the table, no hand dealt, even for a 0.6 s stall.
    config = quick(load_config(CONFIGS[table]), play_time_s=2.0)
    _harness, report = _stalled(config, "lid", 0.6, phase="lid_down", rig="ioboard")
    assert not [f["id"] for f in report["faults"] if f["code"].startswith("E")]
    assert report["link"]["host"]["resumes"] == 1
    assert report["cycles_completed"] == 2 and report["tiles_accounted"]
    assert report["referee_violations"] == []


def test_a_stall_longer_than_the_builds_stall_limit_costs_no_hand(short) -> None:
    # The board holds as long as the host is silent, so a 12 s freeze is carried on
    # like a 1 s one. But the build's "no tile within the stall limit" watchdog (10 s)
    # came due in the backlog the host woke to and raised build.tiles_missing (a
    # technician's business) while the board had held every conveyor: no hand dealt.
    # Watchdogs wait while the link is in doubt and move on by the board's hold.
    _harness, report = _stalled(short, "host", 12.0, rig="ioboard")
    assert not [f["id"] for f in report["faults"] if f["code"].startswith("E")]
    assert report["link"]["host"]["resumes"] == 1
    assert report["cycles_completed"] == 2 and report["tiles_accounted"]
    assert report["referee_violations"] == []
