"""A lost board link that comes back: the host connects again by itself."""

from __future__ import annotations

from typing import Any

import pytest

from firmware.faults.kinds import CATALOGUE, ERROR
from hal.protocol import VERSION
from mjtable_core.config import Config, load_config
from simulator.harness.run import simulate_ioboard
from simulator.harness.runner import Harness
from simulator.scenario import Expect, Scenario

from ..conftest import CONFIGS, quick

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def short() -> Config:
    return quick(load_config(CONFIGS["144"]), play_time_s=2.0)


def errors(report: dict) -> list[str]:
    return [f["id"] for f in report["faults"] if f["code"].startswith("E")]


def test_a_cable_back_clears_e80_by_itself_and_the_table_goes_on(short):
    # Out for 3 s while the hole is open (nothing being built): no technician acts,
    # yet the host says HELLO until the board answers, E80 clears and both hands are
    # dealt.
    report = simulate_ioboard(short, 2, link_drop=(30.0, 3.0))
    assert errors(report) == ["link.lost"]
    (lost,) = [f for f in report["faults"] if f["id"] == "link.lost"]
    # Silent 0.5 s, then RESUME unanswered for resume_within_s: lost.
    assert 30.0 < lost["sim_time_s"] < 31.0 + short.ioboard.resume_within_s
    assert report["cycles_completed"] == 2
    assert report["referee_violations"] == [] and report["tiles_accounted"]
    assert report["motors_safe_after_faults"] and report["motors_off_at_end"]


def _dropped_while_building(config: Config, at_s: float, duration_s: float,
                            look_at: list[float]) -> tuple[Harness, dict[str, Any], list]:
    allow = tuple(i for i, k in CATALOGUE.items() if k.severity != ERROR)
    scenario = Scenario(seed=config.simulator.seed, cycles=1, source="<none>",
                        expect=Expect(allow=allow))
    harness = Harness(config, scenario, None, rig="ioboard", rig_options={})
    board = harness.rig.board       # type: ignore[union-attr]
    harness.clock.call_at(at_s, lambda: board.drop_link(duration_s))
    seen: list[tuple[float, Any, list[str]]] = []
    boot = harness.boot

    def booted() -> None:
        boot()
        hal = harness.ctl.hal
        harness.shown = []      # type: ignore[attr-defined]
        harness.ctl.subscribers.append(
            lambda event: event["kind"] != "stop" and harness.shown.append(  # type: ignore[attr-defined]
                hal.read("display")))

    harness.boot = booted       # type: ignore[method-assign]
    for t in look_at:
        harness.clock.call_at(t, lambda: seen.append((
            harness.clock.now(), harness.table.values["display"],
            [f.code for f in harness.ctl.faults if f.active])))
    return harness, harness.run(), seen


def test_the_panel_says_e80_while_the_link_is_down_then_asks_for_a_refeed(short):
    # Lost in the middle of a build: the board's failsafe shows E80 on the panel
    # itself (the host cannot reach it). Back, E80 clears by itself; tiles that passed
    # a counter meanwhile were never reported, so the half-built set is held for a
    # refeed (rF), never built over.
    harness, report, seen = _dropped_while_building(short, 20.0, 5.0, [23.0])
    ((_t, display, active),) = seen
    assert display == "E80" and "E80" in active
    # The half-built set was held (rF, I94 after link.lost), and the players refed it
    # themselves (firmware/faults/guided_refeed.py): the hand was dealt.
    assert "rF" in harness.shown
    (hold,) = [f for f in harness.ctl.faults if f.id == "build.interrupted"]
    assert hold.evidence["after"] == "link.lost" and not hold.active
    assert harness.ctl.refeed_hold is None
    assert [f.code for f in harness.ctl.faults if f.active] == []
    assert report["cycles_completed"] == 1 and report["tiles_accounted"]
    assert report["referee_violations"] == []
    assert report["motors_safe_after_faults"] and report["motors_off_at_end"]


def test_a_host_that_boots_while_the_board_is_silent_shows_e80_and_connects_later(short):
    # The cable is out when the host starts: it used to give up at the handshake. Now
    # it starts with E80 raised and shown, says HELLO until the board answers, then
    # homes and deals as if nothing had happened.
    allow = tuple(i for i, k in CATALOGUE.items() if k.severity != ERROR)
    scenario = Scenario(seed=short.simulator.seed, cycles=1, source="<none>",
                        expect=Expect(allow=allow))
    harness = Harness(short, scenario, None, rig="ioboard", rig_options={})
    harness.rig.board.drop_link(8.0)        # type: ignore[union-attr]
    report = harness.run()
    (lost,) = [f for f in report["faults"] if f["id"] == "link.lost"]
    assert lost["code"] == "E80" and lost["sim_time_s"] < 1.0
    assert not any(f.active for f in harness.ctl.faults if f.id == "link.lost")
    assert report["cycles_completed"] == 1
    assert report["referee_violations"] == [] and report["tiles_accounted"]
    assert report["motors_safe_after_faults"] and report["motors_off_at_end"]


def test_an_older_board_met_during_reconnect_says_e81_and_a_reflashed_one_links_back(short):
    # The cable comes back to a board flashed with the protocol before ours: it answers our HELLO
    # with its version. That was E80 for ever, E81 beside it unseen; now E81 with the
    # reflash message replaces E80, nothing moves, and HELLO goes on: the board
    # reflashed to our protocol links back and E81 clears by itself.
    allow = tuple(i for i, k in CATALOGUE.items())
    scenario = Scenario(seed=short.simulator.seed, cycles=1, source="<none>",
                        expect=Expect(allow=allow))
    harness = Harness(short, scenario, None, rig="ioboard", rig_options={})
    board = harness.rig.board       # type: ignore[union-attr]
    seen: list[tuple[list[str], bool]] = []

    def flashed(version: int) -> None:
        board.board.version = version

    harness.clock.call_at(0.3, lambda: (board.drop_link(1.0), flashed(VERSION - 1)))
    harness.clock.call_at(1.9, lambda: seen.append((
        [f.code for f in harness.ctl.faults if f.active], harness.table.motors_off())))
    harness.clock.call_at(2.0, lambda: flashed(VERSION))
    report = harness.run()
    assert seen == [(["E81"], True)]
    (version,) = [f for f in report["faults"] if f["id"] == "link.version"]
    assert "reflash the board" in version["evidence"]["message"]
    assert not any(f.active for f in harness.ctl.faults if f.id.startswith("link."))
    # Back, as after any outage in a build: the half-built set was held for a refeed, and
    # the players refed it themselves.
    (hold,) = [f for f in harness.ctl.faults if f.id == "build.interrupted"]
    assert not hold.active and harness.ctl.refeed_hold is None
    assert [f.code for f in harness.ctl.faults if f.active] == []
    assert report["referee_violations"] == [] and report["motors_off_at_end"]
