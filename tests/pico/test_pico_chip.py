"""The board firmware on MicroPython's own RP2040 image, on an emulated chip (rp2040js).

The image and boot ROM come from $MJTABLE_RP2_DIR or CI's copy beside the checkout;
without them (or without Node.js) these tests skip and say why. One chip is booted
and flashed per session: `mjtable board flash` over its USB serial, as on a Pico.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from board import pinmap
from hal.board_flash import FlashError, RawRepl
from simulator.rigs.pico_chip import NS, ChipMissing, PicoChip

pytestmark = pytest.mark.xdist_group("pico")


@pytest.fixture(scope="module")
def chip() -> Iterator[PicoChip]:
    try:
        pico = PicoChip()
    except ChipMissing as exc:
        pytest.skip(str(exc))
    try:
        for where in pinmap.INPUTS.values():      # opto inputs idle: pulled up
            if where[0] == "gpio":
                pico.gpio(where[1], True)
        pico.run_to(NS // 4)                      # booted, USB enumerated
        yield pico
    finally:
        pico.close()


@pytest.fixture(scope="module")
def flashed(chip: PicoChip) -> str:
    with chip.usb_serial() as port:
        run = subprocess.run([sys.executable, "-m", "mjtable.cli", "board", "flash", "--port",
                              port, "--ram-disk"], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "MJTABLE_LANG": "en"})
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_board_flash_writes_the_board_and_verifies_it_on_the_chip(flashed: str) -> None:
    assert "MicroPython 1.27.0" in flashed
    assert "verified: sha256" in flashed


def test_the_flashed_board_runs_its_loop_and_feeds_the_watchdog(chip: PicoChip,
                                                                flashed: str) -> None:
    assert chip.run_until_console(b"board mem_free", NS)
    chip.loop_periods_ns()
    chip.run_to(chip.t_ns + NS // 5)
    periods = sorted(chip.loop_periods_ns())
    # The loop waits at most 1 ms for a byte: ~1 kHz, far inside the 1 s watchdog.
    assert len(periods) > 100
    assert periods[len(periods) // 2] < 2_000_000
    assert chip.resets == 0
    assert b"Traceback" not in chip.console


def test_a_port_where_nothing_speaks_micropython_says_so_in_one_line() -> None:
    master, slave = os.openpty()
    try:
        import serial

        port = serial.Serial(os.ttyname(slave), 115200, timeout=0.05)
        with pytest.raises(FlashError, match="no MicroPython on the Pico") as caught:
            RawRepl(port).enter()
        assert "\n" not in str(caught.value)
        port.close()
    finally:
        os.close(master)
        os.close(slave)
