"""The pico rig: the board's firmware on MicroPython on an emulated RP2040, in front of
the simulated table, on one clock. Each test that needs the chip boots and flashes one
(about 15 s of wall time); they skip, saying why, without the image or Node.js."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hal.armed import StopReport, StopSpec
from mjtable_core.config import load_config
from simulator.rigs.pico_chip import NS, ChipMissing
from simulator.rigs.pico_run import PicoWiredTable

pytestmark = pytest.mark.xdist_group("pico")


@pytest.fixture(scope="module")
def wired() -> Iterator[PicoWiredTable]:
    try:
        table = PicoWiredTable(load_config(None), 1)
    except ChipMissing as exc:
        pytest.skip(str(exc))
    try:
        assert table.connect() is None
        yield table
    finally:
        table.close(drain=False)


def _in_loop(wired: PicoWiredTable, action) -> None:  # type: ignore[no-untyped-def]
    wired.clock.call_at(wired.clock.now(), action)


def test_an_armed_head_stops_on_the_chip_inside_its_home_window(
        wired: PicoWiredTable) -> None:
    reports: list[StopReport] = []
    spec = StopSpec("motor.side.0.head", True, "side.0.head_home", True, edges=1,
                    blank_s=0.005, max_s=3.0)
    _in_loop(wired, lambda: wired.hal.arm(spec, reports.append))
    wired.clock.run_until(wired.clock.now() + 4.0, until=lambda: bool(reports))
    assert reports and reports[0].reason.value == "edge", reports
    figures = wired.board.figures()
    latency = wired.board.latencies_us
    assert len(latency) == 1, figures
    # The edge on GP10 to the expander's latch bit going off, in chip time: a head's
    # home ends its stop on the edge alone, so the pin's hard IRQ cuts the line, one I2C
    # write at 400 kHz: about 0.25 ms, at most a transfer of the loop's more (its I2C
    # runs with interrupts off), whatever the loop is doing (docs/board.md).
    print("stop latency us", latency)
    assert 0 < latency[0] < 1_000, latency
    assert wired.table.values["motor.side.0.head"] is False
    assert figures["errors"] == [] and figures["resets"] == 0


def _stop_on_chip(wired: PicoWiredTable, spec: StopSpec) -> float:
    """Arm `spec` on the chip, run until it stops; its latency (µs of chip time, less
    the dwell), and the stop's report checked: an edge, the motor off, no error."""
    reports: list[StopReport] = []
    before = len(wired.board.latencies_us)
    _in_loop(wired, lambda: wired.hal.arm(spec, reports.append))
    wired.clock.run_until(wired.clock.now() + spec.max_s + 1.0, until=lambda: bool(reports))
    assert reports and reports[0].reason.value == "edge", reports
    figures = wired.board.figures()
    latency = wired.board.latencies_us[before:]
    assert len(latency) == 1, figures
    assert wired.table.values[spec.output] is False
    assert figures["errors"] == [] and figures["resets"] == 0
    return latency[0]


def test_an_armed_plate_stops_on_the_chip_within_half_a_millisecond_of_its_dwell(
        wired: PicoWiredTable) -> None:
    # A plate's home holds 60 ms before it is believed: the pin's hard IRQ starts a
    # hard one-shot timer on the edge, whose expiry cuts the line if home held
    # (docs/board.md), whatever the loop is doing.
    spec = StopSpec("motor.side.0.plate", True, "side.0.plate_home", True, edges=1,
                    blank_s=0.05, confirm_s=0.06, max_s=6.0)
    latency = _stop_on_chip(wired, spec)
    print("dwell stop latency us", latency)
    assert 0 <= latency < 500, latency


def test_an_armed_head_counting_two_edges_stops_on_the_chip_at_the_second(
        wired: PicoWiredTable) -> None:
    # Two turns of the cam: the handler counts the edges and cuts on the second.
    spec = StopSpec("motor.side.1.head", True, "side.1.head_home", True, edges=2,
                    blank_s=0.005, max_s=6.0)
    latency = _stop_on_chip(wired, spec)
    print("two-edge stop latency us", latency)
    assert 0 < latency < 500, latency


def test_the_failsafe_turns_the_motors_off_on_the_chip_when_the_host_goes_silent(
        wired: PicoWiredTable) -> None:
    _in_loop(wired, lambda: wired.hal.write("motor.disc", True))
    wired.clock.run_until(wired.clock.now() + 0.2)
    assert wired.table.values["motor.disc"] is True
    silent_from = wired.board.chip_ns()
    wired.board.drop_link(5.0)          # the cable is out: nothing crosses either way
    wired.clock.run_until(wired.clock.now() + 0.7)
    assert wired.table.values["motor.disc"] is False
    run = wired.board.last_run(1)
    assert run is not None
    off = run[1]
    # The host beats every 0.1 s; the board allows 0.5 s of silence from the last
    # frame it heard, counted by its own timer (whole milliseconds).
    assert 0.39 * NS < off - silent_from < 0.51 * NS, (off - silent_from) / NS
