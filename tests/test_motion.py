"""firmware/motion.py: a motion a sensor ends is armed on the backend, which stops it
where the pin is; the supervisor stays the second line."""

from __future__ import annotations

from firmware.controller import Controller
from hal.armed import StopReason
from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config
from mjtable_core.signals import LID_OFF
from simulator.backend import SimHal
from simulator.table import SimTable

from .conftest import CONFIGS, quick


def _table() -> tuple[VirtualClock, SimTable, Controller]:
    config = quick(load_config(CONFIGS["144"]))
    clock = VirtualClock()
    table = SimTable(config, clock, seed=1)
    ctl = Controller(config, SimHal(table), clock)
    ctl.start()
    clock.run_until(1.0)
    assert ctl.lid.state == "closed"
    return clock, table, ctl


def _upper_at(table: SimTable, clock: VirtualClock) -> list[float]:
    seen: list[float] = []
    table.witnesses.append(lambda name, value: name == "lid.upper" and value
                           and seen.append(clock.now()))
    return seen


def test_the_lid_is_stopped_by_the_pin_at_its_upper_stop() -> None:
    clock, table, ctl = _table()
    upper = _upper_at(table, clock)
    ctl.lid.open()
    clock.run_until(10.0)
    report = ctl.motions.last["motor.lid"]
    assert report.reason is StopReason.EDGE and report.at == upper[0]
    assert ctl.lid.state == "open" and table.values["motor.lid"] == LID_OFF


def test_a_deaf_loop_still_stops_the_lid_at_its_stop() -> None:
    # The firmware hears nothing any more (a stalled host): before armed stops the
    # lid ran on against its stop until the supervisor's k·T; now the pin stops it.
    clock, table, ctl = _table()
    upper = _upper_at(table, clock)
    ctl.lid.open()
    table.listener = ctl.hal.stops.on_input         # the pins still see; the loop does not
    clock.run_until(upper[0] if upper else 3.0)
    clock.run_until(clock.now() + 0.001)
    assert upper and table.values["motor.lid"] == LID_OFF
    assert ctl.lid.state == "opening"               # the loop never heard of it


def test_a_sensor_the_supervisor_no_longer_believes_is_not_armed_on() -> None:
    clock, _, ctl = _table()
    ctl.supervisor.degraded.add("lid.upper")
    ctl.lid.open()
    clock.run_until(10.0)
    assert "motor.lid" not in ctl.motions.last      # run on the supervisor's timer
    assert ctl.lid.state == "open"
