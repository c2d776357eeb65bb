"""The board at its USB console, on the emulated RP2040: Ctrl-C stops its loop and every
output goes off at once (main.py's `finally`), and an interrupt handler that allocates
fails on the chip and the rig reports it rather than letting it pass silently."""

from __future__ import annotations

import pytest

from mjtable_core.config import load_config
from simulator.rigs.pico_chip import NS, ChipMissing
from simulator.rigs.pico_run import PicoWiredTable

pytestmark = pytest.mark.xdist_group("pico")


def test_ctrl_c_stops_the_board_with_every_output_off_and_an_allocating_handler_is_caught(
        ) -> None:
    try:
        wired = PicoWiredTable(load_config(None), 1)
    except ChipMissing as exc:
        pytest.skip(str(exc))
    try:
        assert wired.connect() is None
        chip = wired.board.chip
        wired.clock.call_at(wired.clock.now(), lambda: wired.hal.write("motor.disc", True))
        wired.clock.run_until(wired.clock.now() + 0.1)
        assert wired.table.values["motor.disc"] is True
        wired.board.drop_link(60.0)      # the host is gone: only the chip acts
        stopped_at = chip.t_ns
        chip.usb_in(b"\x03")
        chip.run_to(chip.t_ns + NS // 20)
        wired.board._apply_events()
        assert wired.table.values["motor.disc"] is False
        run = wired.board.last_run(1)
        assert run is not None and run[1] - stopped_at < NS // 50      # off within 20 ms
        assert b"KeyboardInterrupt" in chip.console
        assert not any("MemoryError" in line for line in wired.board.figures()["errors"])
        # At the REPL now (and within the watchdog's second): a hard IRQ handler that
        # allocates fails on the chip, and the rig says so.
        chip.usb_in(b"\r\x02")            # from the raw REPL flash left to the friendly one
        chip.run_to(chip.t_ns + NS // 20)
        for line in ("import machine", "l = []",
                     "h = lambda p: l.append(bytearray(64))",
                     "machine.Pin(2, machine.Pin.IN).irq(h, machine.Pin.IRQ_FALLING, "
                     "hard=True)"):
            chip.usb_in(line.encode() + b"\r")
            chip.run_to(chip.t_ns + NS // 20)
        chip.gpio(2, False)
        chip.run_to(chip.t_ns + NS // 10)
        errors = wired.board.figures()["errors"]
        assert any("MemoryError" in line for line in errors), bytes(chip.console[-400:])
    finally:
        wired.board._figures = {}
        wired.close(drain=False)
