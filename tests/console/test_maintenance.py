"""Test mode, self-tests and jog on the simulated table (virtual clock)."""

from __future__ import annotations

import pytest

from firmware.machines.maintenance import Maintenance, MaintenanceRefused, mechanism_tests
from mjtable_core.config import load_config
from simulator.harness.runner import WiredTable, assemble


def table(seed: int = 5) -> tuple[WiredTable, Maintenance, list[dict]]:
    bench = assemble(load_config(), seed)
    service = bench.controller.maintenance()
    events: list[dict] = []
    bench.controller.subscribers.append(events.append)
    return bench, service, events


def run_until(bench: WiredTable, until, limit_s: float = 200.0) -> None:
    bench.clock.run_until(bench.clock.now() + limit_s, until=until)
    assert until(), "the table did not get there in time"


def test_both_lift_keys_at_power_on_enter_test_mode_and_keys_step_tests() -> None:
    bench, service, events = table()
    bench.table.values["key.lift.0"] = bench.table.values["key.lift.1"] = True
    service.power_on()
    assert service.test_mode and bench.hal.read("display") == "t-"
    bench.table.values["key.lift.0"] = bench.table.values["key.lift.1"] = False
    bench.table.press("key.lift.0")             # lift key 0: the next test, test 1
    run_until(bench, lambda: "lid" in service.results, 30)
    assert service.results["lid"]["result"] == "P"
    assert bench.hal.read("display") == "1P" and bench.hal.read("lamp.ready")
    bench.table.press("key.lift.0")             # and then test 2
    run_until(bench, lambda: "plate.0" in service.results, 30)
    assert bench.hal.read("display") == "2P"
    bench.table.press("key.dice.0")             # a dice key leaves test mode
    run_until(bench, lambda: bench.controller.build.state == "staged")
    assert not service.test_mode
    assert [e["on"] for e in events if e["kind"] == "service.mode"] == [True, False]


def test_every_mechanism_passes_on_a_healthy_table_with_motors_off_after() -> None:
    # From power-on with both lift keys held: no set on the tracks, so the plates turn
    # too (under a staged set they are skipped: tests/console/test_leaving_test_mode.py).
    bench, service, _ = table()
    bench.table.values["key.lift.0"] = bench.table.values["key.lift.1"] = True
    service.power_on()
    bench.table.values["key.lift.0"] = bench.table.values["key.lift.1"] = False
    results: list[dict] = []
    service.test("all", "li", results.append)
    run_until(bench, lambda: len(results) == len(mechanism_tests()), 120)
    assert [r["result"] for r in results] == ["P"] * len(mechanism_tests())
    assert [r["number"] for r in results] == list(range(1, 16))
    assert bench.table.motors_off()


def test_a_lid_that_does_not_move_fails_with_motors_off_and_a_diagnosis() -> None:
    bench, service, _ = table()
    service.power_on()
    run_until(bench, lambda: bench.controller.build.state == "staged")
    bench.table.lid.drive = lambda direction: None        # a dead lift motor
    results: list[dict] = []
    service.test("lid", "li", results.append)
    run_until(bench, lambda: bool(results), 30)
    result = results[0]
    assert result["result"] == "F"
    assert result["diagnosis"]["fault"] == "lid.not_rising"
    assert "run the lid motor test" in result["diagnosis"]["remedy"]
    assert bench.hal.read("motor.lid") == "off" and bench.table.motors_off()
    assert bench.hal.read("display") == "1F"
    # What was not seen, in words: the detail said "lid.upper not seen True".
    assert "lid.upper did not turn on within" in result["detail"]
    assert "True" not in result["detail"]


def test_tests_and_test_mode_are_refused_while_the_table_is_busy() -> None:
    bench, service, _ = table()
    service.power_on()
    run_until(bench, lambda: bench.controller.build.state == "building", 5)
    with pytest.raises(MaintenanceRefused, match="being built"):
        service.test("lid", "li")
    with pytest.raises(MaintenanceRefused, match="being built"):
        service.enter("li")
    service.enter("li", force=True)     # forcing stops the build; that set is rebuilt
    assert service.test_mode and bench.table.motors_off()


def test_jog_interlocks() -> None:
    bench, service, _ = table()
    ctl = bench.controller
    service.power_on()
    bench.players.start()
    run_until(bench, lambda: ctl.build.state == "building", 5)
    with pytest.raises(MaintenanceRefused, match="build is driving"):
        service.jog("disc", "fwd", 1.0, "li")
    with pytest.raises(MaintenanceRefused, match="side 2 is building"):
        service.jog("head.2", "fwd", 1.0, "li")
    with pytest.raises(MaintenanceRefused, match="walls are in play"):
        service.jog("plate.1", "fwd", 1.0, "li")
    with pytest.raises(MaintenanceRefused, match="up or down"):
        service.jog("lid", "fwd", 1.0, "li")
    with pytest.raises(MaintenanceRefused, match="at most 5"):
        service.jog("dice", "fwd", 9.0, "li")
    run_until(bench, lambda: ctl.cycle.state == "hole_open")
    with pytest.raises(MaintenanceRefused, match="hands may be in the hole"):
        service.jog("lid", "down", 1.0, "li")
    run_until(bench, lambda: ctl.cycle.state == "rolling")
    with pytest.raises(MaintenanceRefused, match="dice are rolling"):
        service.jog("dice", "fwd", 1.0, "li")


def lid_jogged_up(bench, service) -> list[dict]:
    """A staged set, test mode, the lid jogged up for 5 s: what the jog reported."""
    service.power_on()
    run_until(bench, lambda: bench.controller.build.state == "staged")
    service.enter("li")
    done: list[dict] = []
    service.jog("lid", "up", 5.0, "li", done.append)
    run_until(bench, lambda: bool(done), 10)
    return done


def test_jog_lid_stops_at_its_limit_sensor() -> None:
    bench, service, _ = table()
    done = lid_jogged_up(bench, service)
    assert done[0]["stopped"] == "reached lid.upper"
    assert done[0]["ran_s"] < 5.0 and bench.hal.read("motor.lid") == "off"
    assert bench.hal.read("lid.upper")


def test_with_the_lid_jogged_up_in_test_mode_nothing_under_it_moves() -> None:
    # The jog interlocks hold for self-tests too: a technician jogs the lid up in test
    # mode, then asks for a plate or the disc test: hands may be in the hole.
    bench, service, _events = table()
    ctl = bench.controller
    service.power_on()
    run_until(bench, lambda: ctl.build.state == "staged")
    service.enter("li")
    done: list[dict] = []
    service.jog("lid", "up", 5.0, "li", done.append)
    run_until(bench, lambda: bool(done), 10)
    for name in ("plate.2", "disc", "conveyor.1"):
        with pytest.raises(MaintenanceRefused, match="lid is not at its lower stop"):
            service.test(name, "li")
    with pytest.raises(MaintenanceRefused, match="lid is not at its lower stop"):
        service.jog("plate.2", "fwd", 1.0, "li")
    assert bench.hal.read("motor.side.2.plate") is False
    assert bench.hal.read("motor.disc") is False
    service.test("lid", "li")                       # the lid test ends at its lower stop
    run_until(bench, lambda: service.running is None, 20)
    service.test("disc", "li")
    run_until(bench, lambda: service.running is None, 20)
    assert service.results["disc"]["result"] == "P"
