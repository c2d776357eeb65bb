"""The HAL's armed-stop contract (hal/armed.py): the backend stops a motion where the
pin is and reports once, inside the loop, when and why."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import threading

import pytest

from hal.armed import StopReason, StopReport, StopSpec
from hal.backends.rpigpio import RpiGpioHal
from mjtable_core.clock import RealClock, VirtualClock
from mjtable_core.config import load_config
from simulator.physics.table import SimTable
from simulator.rigs.backend import SimHal

from ..conftest import CONFIGS, quick
from .test_rpigpio import PI_CONFIG, RIG, fake_gpio, idle_table, line  # noqa: F401

HEAD = StopSpec("motor.side.1.head", True, "side.1.head_home", True, edges=1, max_s=2.0)


def _sim() -> tuple[VirtualClock, SimTable, SimHal]:
    clock = VirtualClock()
    table = SimTable(quick(load_config(CONFIGS["144"])), clock, seed=1)
    return clock, table, SimHal(table)


def test_the_sim_stops_a_head_in_the_instant_of_its_home_edge() -> None:
    clock, table, hal = _sim()
    heard: list[tuple[str, float, object]] = []
    hal.listen(lambda name, value: name == "side.1.head_home" and heard.append(
        ("input", clock.now(), table.values["motor.side.1.head"])))
    reports: list[StopReport] = []
    hal.arm(HEAD, lambda report: reports.append(report) or heard.append(
        ("stopped", clock.now(), None)))
    assert table.values["motor.side.1.head"] is True
    clock.run_until(2.5)
    (report,) = reports
    home = [t for what, t, _ in heard if what == "input"][-1]
    assert report.reason is StopReason.EDGE and report.at == home
    assert report.inputs["side.1.head_home"] is True
    # The firmware hears the home edge with the motor already off, then the report.
    assert heard[-2:] == [("input", home, False), ("stopped", home, None)]
    assert table.values["side.1.head_home"] is True


def test_an_armed_stop_gives_up_at_its_expiry_and_a_write_cancels_it() -> None:
    clock, table, hal = _sim()
    reports: list[StopReport] = []
    hal.arm(StopSpec("motor.ring", True, "lid.upper", True, max_s=0.2), reports.append)
    hal.arm(StopSpec("motor.disc", True, "lid.upper", True), reports.append)
    clock.run_until(0.1)
    hal.write("motor.disc", False)
    clock.run_until(1.0)
    assert [(r.spec.output, r.reason, r.at) for r in reports] == [
        ("motor.disc", StopReason.CANCELLED, 0.1), ("motor.ring", StopReason.MAX_TIME, 0.2)]
    assert table.values["motor.ring"] is False and table.values["motor.disc"] is False


def test_a_bounce_back_to_the_same_level_is_not_an_edge() -> None:
    clock, table, hal = _sim()
    reports: list[StopReport] = []
    hal.arm(StopSpec("motor.ring", True, "lid.upper", True, edges=2), reports.append)
    hal.stops.on_input("lid.upper", True)
    hal.stops.on_input("lid.upper", True)       # the same level again: no second edge
    clock.run_until(0.1)
    assert reports == [] and table.values["motor.ring"] is True


def test_rpigpio_stops_the_motor_in_the_gpio_callback_thread(fake_gpio):  # noqa: F811
    config = load_config(PI_CONFIG)
    idle_table(fake_gpio, config)
    home = line(config, "side.1.head_home")
    motor = line(config, "motor.side.1.head")

    async def scenario() -> None:
        clock = RealClock(asyncio.get_running_loop())
        hal = RpiGpioHal.from_config(config, clock, gpio=fake_gpio, model=RIG)
        reports: list[tuple[StopReport, int]] = []
        hal.arm(HEAD, lambda r: reports.append((r, threading.get_ident())))
        assert fake_gpio.level[motor] == fake_gpio.HIGH
        fake_gpio.drive(home, fake_gpio.LOW).join()      # the cam leaves home
        fake_gpio.drive(home, fake_gpio.HIGH).join()     # ... and comes round
        # Off already, before the loop ran a single turn: the callback thread did it.
        assert fake_gpio.level[motor] == fake_gpio.LOW
        for _ in range(100):
            if reports:
                break
            await asyncio.sleep(0.01)
        (report, thread), = reports
        assert report.reason is StopReason.EDGE
        assert thread == threading.get_ident()           # reported inside the loop
        hal.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("backend", ["sim", "ioboard", "rpigpio"])
def test_every_backend_declares_its_capabilities(backend: str) -> None:
    from hal.backends.ioboard import IoBoardHal

    cls = {"sim": SimHal, "ioboard": IoBoardHal, "rpigpio": RpiGpioHal}[backend]
    caps = cls.capabilities
    assert caps.armed_stops
    # The simulator stamps each edge at its physical instant (a stalled host still
    # knows when it was), as the board does.
    assert (caps.board_time, caps.link) == {"ioboard": (True, True), "sim": (True, False),
                                            "rpigpio": (False, False)}[backend]


@pytest.mark.parametrize("cls", [StopSpec, StopReport])
def test_a_spec_and_a_report_are_made_with_their_fields_and_defaults(cls: type) -> None:
    """Their __init__s are written out by hand (hal/armed.py): the dataclass's fields,
    in order and with the same defaults, kept in step with it here."""
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    assert [p.default for p in params] == [
        inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        for f in fields]
    made = cls(*[f.name for f in fields])
    assert all(getattr(made, f.name) == f.name for f in fields)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, fields[0].name, None)
