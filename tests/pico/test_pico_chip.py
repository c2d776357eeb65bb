"""The board firmware on MicroPython's own RP2040 image, on an emulated chip (rp2040js).

The image and boot ROM come from $MJTABLE_RP2_DIR or CI's copy beside the checkout;
without them (or without Node.js) these tests skip and say why. One chip is booted
and flashed per session: `mjtable board flash` over its USB serial, as on a Pico.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from board import pinmap
from hal.board_flash import FlashError, RawRepl
from simulator.rigs import pico_chip
from simulator.rigs.pico_chip import NS, ChipError, ChipMissing, PicoChip

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
                              port, "--ram-disk"], capture_output=True, text=True, timeout=180,
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


def a_fresh_chip() -> PicoChip:
    try:
        return PicoChip()
    except ChipMissing as exc:
        pytest.skip(str(exc))


def test_a_watchdog_reset_while_the_usb_serial_is_served_reboots_the_chip() -> None:
    # rp2040js fired the expired watchdog's alarm forever inside one clock tick, and the
    # rig stepped the old chip's clock after a reboot: either hung the emulator, and the
    # suite with it (a flash whose 8 s watchdog bit on a loaded machine).
    chip = a_fresh_chip()
    try:
        chip.run_to(NS // 4)
        with chip.usb_serial() as port:
            import serial

            link = serial.Serial(port, 115200, timeout=0.05)
            repl = RawRepl(link)
            repl.enter()
            repl.exec("import machine\n_w = machine.WDT(timeout=200)\n")
            limit = time.monotonic() + 30
            while chip.resets == 0 and time.monotonic() < limit:
                time.sleep(0.05)
            link.close()
        assert chip.resets == 1
        chip.run_to(chip.t_ns + NS // 4)       # the new chip's time moves on
    finally:
        chip.close()


def test_an_emulator_that_stops_answering_is_an_error_within_its_wall_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    chip = a_fresh_chip()
    try:
        chip.run_to(NS // 100)
        monkeypatch.setattr(pico_chip, "ANSWER_LIMIT_S", 1.0)
        os.kill(chip._proc.pid, signal.SIGSTOP)
        started = time.monotonic()
        with pytest.raises(ChipError, match="did not answer 'run' within 1 s"):
            chip.run_to(chip.t_ns + 1_000_000)
        assert time.monotonic() - started < 10
        assert chip._proc.poll() is not None     # stopped, not left behind
    finally:
        chip.close()
