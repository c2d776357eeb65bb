"""Hold-to-run jog (the phone console's jog button): the motor runs only while it is
kept, and the daemon stops it by itself within HOLD_S of the last keep."""

from __future__ import annotations

import pytest

from firmware.machines.maintenance import HOLD_S, MaintenanceRefused
from tests.console.test_maintenance import run_until, table


def ready() -> tuple:
    bench, service, events = table()
    service.power_on()
    run_until(bench, lambda: bench.controller.build.state == "staged")
    service.enter("li")
    return bench, service, events


def test_a_hold_not_kept_stops_within_the_cap() -> None:
    bench, service, events = ready()
    started = service.jog("dice", "fwd", 30.0, "li", hold=True)
    assert started["hold_s"] == HOLD_S and bench.hal.read("motor.dice")
    t0 = bench.clock.now()
    run_until(bench, lambda: not bench.hal.read("motor.dice"), 5)
    assert bench.clock.now() - t0 <= HOLD_S + 0.01
    assert events[-1]["kind"] == "service.jog" and events[-1]["stopped"] == "hold lost"
    # A keep after the motor stopped never starts it again.
    with pytest.raises(MaintenanceRefused, match="press and hold again"):
        service.keep(started["hold"], "li")
    assert not bench.hal.read("motor.dice")


def test_kept_it_runs_released_it_stops_at_once() -> None:
    bench, service, events = ready()
    hold = service.jog("dice", "fwd", 30.0, "li", hold=True)["hold"]
    for _ in range(8):                      # 8 keeps over 2 s: four times the cap
        bench.clock.run_until(bench.clock.now() + HOLD_S / 2)
        service.keep(hold, "li")
        assert bench.hal.read("motor.dice")
    with pytest.raises(MaintenanceRefused):
        service.keep(hold, "wang")          # another technician's keep is no keep
    assert service.stop_jog(hold, "li")["stopped"] == "dice"
    assert not bench.hal.read("motor.dice")
    assert events[-1]["stopped"] == "released" and events[-1]["ran_s"] >= 4 * HOLD_S


def test_a_hold_runs_at_most_its_press_cap() -> None:
    _bench, service, _ = ready()
    with pytest.raises(MaintenanceRefused, match="at most 30 s"):
        service.jog("dice", "fwd", 31.0, "li", hold=True)
    with pytest.raises(MaintenanceRefused, match="at most 5 s"):
        service.jog("dice", "fwd", 6.0, "li")
