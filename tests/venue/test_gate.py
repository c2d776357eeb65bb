"""The booking gate on both rigs: the hand in play finishes, then no new hand, no build."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from firmware.machines.cycle import GATE_DISPLAY
from firmware.service.gate import EXPIRED, NOT_ENABLED, BookingGate
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import parse_scenario

PLAY_S = 20.0


def _harness(rig: str, cycles: int) -> tuple[Harness, list[dict[str, Any]], list[BookingGate]]:
    scenario = parse_scenario(tomllib.loads(
        f"seed = 2\ncycles = {cycles}\nplay_time_s = {PLAY_S}\n"), "gate.toml")
    harness = Harness(load_config(), scenario, rig=rig)
    events: list[dict[str, Any]] = []
    gates: list[BookingGate] = []

    def hook(ctl: Any) -> None:
        gate = BookingGate(ctl.clock, enforced=True)
        ctl.gate_closed = gate.closed_why
        ctl.subscribers.append(events.append)
        gates.append(gate)

    harness.boot_hooks.append(hook)
    return harness, events, gates


@pytest.mark.parametrize("rig", ["sim", "ioboard"])
def test_an_expired_booking_finishes_the_hand_then_deals_no_more(rig: str) -> None:
    harness, events, gates = _harness(rig, cycles=6)
    expire_after_hand = 2

    def on_event(event: dict[str, Any]) -> None:
        # Enabled at power-on; the booking runs out during the second hand's play.
        if event["kind"] == "start":
            gates[0].enable(10_000.0, "B-1")
        if event["kind"] == "handoff" and event["cycle"] == expire_after_hand:
            gates[0].until = harness.ctl.clock.now() + 1.0
    harness.boot_hooks.append(lambda ctl: ctl.subscribers.insert(0, on_event))
    report = harness.run(wall_limit_s=60)
    ctl = harness.ctl
    # The hand in play when the booking ran out was played to its end (lid opened,
    # its tiles pushed in), and no walls were raised after it.
    raised = [e["cycle"] for e in events if e["kind"] == "raising"]
    assert raised == [1, 2]
    assert report["cycles_completed"] == expire_after_hand
    held = [e for e in events if e["kind"] == "gate.held"]
    assert held and held[0]["why"] == EXPIRED
    assert ctl.hal.read("display") == GATE_DISPLAY
    assert ctl.hal.read("lamp.ready") is False or ctl.hal.read("lamp.ready") == 0
    # The set pushed in waits on the disc: nothing builds for a hand nobody paid for.
    builds = [e for e in events if e["kind"] == "build.started"]
    assert len(builds) == expire_after_hand + 1
    assert ctl.cycle.state == "play" and not ctl.faults


@pytest.mark.parametrize("rig", ["sim", "ioboard"])
def test_a_table_never_enabled_builds_nothing(rig: str) -> None:
    harness, events, _gates = _harness(rig, cycles=1)
    harness.run(wall_limit_s=30)
    assert [e for e in events if e["kind"] == "build.started"] == []
    held = [e for e in events if e["kind"] == "build.held"]
    assert held and held[0]["why"] == NOT_ENABLED
