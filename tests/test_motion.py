"""firmware/machines/motion.py: a motion a sensor ends is armed on the backend, which stops it
where the pin is; the supervisor stays the second line."""

from __future__ import annotations

from firmware.controller import Controller, compose_table
from hal.armed import StopReason
from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config
from mjtable_core.signals import LID_OFF
from simulator.physics.table import SimTable
from simulator.rigs.backend import SimHal

from .conftest import CONFIGS, quick


def _table() -> tuple[VirtualClock, SimTable, Controller]:
    config = quick(load_config(CONFIGS["144"]))
    clock = VirtualClock()
    table = SimTable(config, clock, seed=1)
    ctl = compose_table(config, SimHal(table), clock, consumers=False)
    ctl.start()
    clock.run_until(1.0)
    assert ctl.lid.state == "closed"
    return clock, table, ctl


def _upper_at(table: SimTable, clock: VirtualClock) -> list[float]:
    seen: list[float] = []
    table.heed(lambda name, value: name == "lid.upper" and value
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



def test_a_stops_report_holds_the_inputs_as_they_were_at_the_stop() -> None:
    clock, table, ctl = _table()
    ctl.lid.open()
    clock.run_until(10.0)
    inputs = ctl.motions.last["motor.lid"].inputs
    as_read = dict(inputs)
    assert as_read["lid.upper"] is True and "lid.upper" in inputs and "motor.lid" not in inputs
    assert inputs == as_read and len(inputs) == len(as_read) and repr(inputs) == repr(as_read)
    ctl.lid.close()
    clock.run_until(20.0)
    assert table.values["lid.upper"] is False and inputs["lid.upper"] is True    # a snapshot

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


def _head_home_at(table: SimTable, clock: VirtualClock, side: int) -> list[float]:
    seen: list[float] = []
    table.heed(lambda name, value: name == f"side.{side}.head_home" and value
               and seen.append(clock.now()))
    return seen


def test_a_deaf_loop_still_stops_a_head_at_home() -> None:
    # Before: a head's turns chained home edge to home edge in the loop; a stalled
    # host let the cam coast on past home (a tile taken with no count). Now the pin
    # stops it in the instant of its home edge.
    clock, table, ctl = _table()
    motor = "motor.side.1.head"
    clock.run_until(60.0, until=lambda: table.values[motor] is True)
    assert table.values[motor] is True
    home = _head_home_at(table, clock, 1)
    table.listener = ctl.hal.stops.on_input         # the pins still see; the loop does not
    clock.run_until(clock.now() + 5.0, until=lambda: bool(home))
    clock.run_until(clock.now() + 0.001)
    assert home and table.values[motor] is False
    assert table.sides[1].head.angle < 0.01          # stopped at home, not past it
    report = ctl.motions.last[motor]
    assert report.reason is StopReason.EDGE and report.at == home[0]


def test_a_build_stops_each_head_at_home_by_the_pin() -> None:
    clock, table, ctl = _table()
    clock.run_until(200.0, until=lambda: ctl.build.state in ("staged", "done", "fault"))
    motor = "motor.side.1.head"
    assert motor in ctl.motions.last and ctl.motions.last[motor].reason is StopReason.EDGE
    assert table.sides[1].head.angle < 1e-9 and table.values[motor] is False
