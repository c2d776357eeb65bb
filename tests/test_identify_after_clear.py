"""A fault cleared while `identify` blinks "Id" is not put back on the display when
the blink ends (the display never shows a cleared fault)."""

from __future__ import annotations

from pathlib import Path

from firmware.service.identify import BLINK_S, IDENTIFY_S, SHOWN, Identify
from mjtable_core.config import load_config
from simulator.harness.runner import Harness
from simulator.scenario import load_scenario

ROOT = Path(__file__).resolve().parent


def test_a_fault_cleared_during_the_blink_is_not_shown_again() -> None:
    scenario = load_scenario(ROOT / "scenarios" / "lid_motor_dead.toml")
    harness = Harness(load_config(ROOT.parent / "config" / "table.toml"), scenario)
    raised: list[str] = []

    def watch(event: dict[str, object]) -> None:
        if event["kind"] == "fault" and not raised:
            raised.append(str(event["code"]))
            harness.clock.stop()

    harness.boot_hooks.append(lambda ctl: ctl.subscribers.append(watch))
    harness.run()
    ctl = harness.ctl
    assert raised and ctl.hal.read("display") == raised[0]
    Identify(ctl.clock, ctl.hal).start()
    assert ctl.hal.read("display") == SHOWN
    fault = next(f for f in ctl.faults if f.active and f.code == raised[0])
    ctl.clear_fault(fault, by="technician")
    harness.clock.run_until(harness.clock.now() + IDENTIFY_S + BLINK_S)
    assert ctl.hal.read("display") not in (raised[0], SHOWN)
