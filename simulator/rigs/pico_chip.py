"""An emulated Raspberry Pi Pico running MicroPython, stepped by the simulator.

`PicoChip` starts `simulator/rigs/pico/chip.mjs` (rp2040js, from npm, pinned in
simulator/rigs/pico/package.json) on MicroPython's RP2040 image and drives it one command
at a time: advance to a chip time, set a GPIO or an expander's input, put bytes on
UART0 (the host link) or on the USB serial (the REPL). Nothing moves between commands,
so the chip's time is whatever the simulator says it is (nanoseconds at 125 MHz).

The image and the RP2040's boot ROM are not in the repository: `rp2_dir()` finds them
where $MJTABLE_RP2_DIR says (docs/board.md, "The board on an emulated chip").
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "pico"
IMAGE = "micropython-1.27.0-rpi-pico.uf2"
BOOTROM = "rp2040-bootrom-b1.bin"
NS = 1_000_000_000
USB_STEP_NS = 1_000_000      # chip time per step while the USB serial is served
# Wall time the emulator may take to answer one command: a floor for a loaded machine
# and more per second of chip time asked (a busy core runs some 5x slower than real
# time here). Past it the emulator is stuck, and it is stopped rather than waited for.
ANSWER_LIMIT_S = 30.0
ANSWER_S_PER_CHIP_S = 30.0


class ChipMissing(RuntimeError):
    """No image, no Node.js or no rp2040js: the pico rig cannot start (says why)."""


class ChipError(RuntimeError):
    """The emulator answered with an error."""


def rp2_dir() -> Path:
    """Where MicroPython's Pico image and the boot ROM are; ChipMissing if nowhere."""
    named = os.environ.get("MJTABLE_RP2_DIR")
    if named and (Path(named) / IMAGE).exists() and (Path(named) / BOOTROM).exists():
        return Path(named)
    raise ChipMissing(f"MicroPython's Pico image ({IMAGE}) and the RP2040 boot ROM "
                      f"({BOOTROM}) are not where $MJTABLE_RP2_DIR says "
                      f"({named or 'unset'})")


def node_ready() -> str:
    """The node binary, with rp2040js installed beside chip.mjs (`npm ci` if not yet)."""
    node = shutil.which("node")
    if node is None:
        raise ChipMissing("Node.js is not installed: the emulated RP2040 needs it "
                          "(apt install nodejs npm)")
    if not (HERE / "node_modules" / "rp2040js").exists():
        npm = shutil.which("npm")
        if npm is None:
            raise ChipMissing("Node.js without npm: install npm to fetch rp2040js")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True,
                       capture_output=True, timeout=300)
    return node


class PicoChip:
    """One emulated RP2040 with MicroPython, its time moved only by `run_to`."""

    def __init__(self, directory: Path | None = None,
                 on_uart: Callable[[bytes], None] | None = None) -> None:
        where = directory or rp2_dir()
        self._proc = subprocess.Popen(
            [node_ready(), str(HERE / "chip.mjs"), str(where / IMAGE), str(where / BOOTROM)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self._lock = threading.Lock()
        self._unread = b""
        self.on_uart = on_uart or (lambda data: None)
        self.on_usb: Callable[[bytes], None] = lambda data: None
        self.t_ns = 0
        self.resets = 0
        self.usb_up = False
        self.events: list[list[Any]] = []    # [t_ns, kind, ...] from the chip
        self.console = bytearray()           # everything the chip said on USB

    def _cmd(self, **command: Any) -> dict[str, Any]:
        ahead_s = max(0, int(command.get("to", 0)) - self.t_ns) / NS
        with self._lock:
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write(json.dumps(command).encode() + b"\n")
                self._proc.stdin.flush()
            except (BrokenPipeError, ValueError) as exc:
                raise ChipError(f"the emulator ended (exit {self._proc.poll()})") from exc
            line = self._answer(command["op"], ANSWER_LIMIT_S + ANSWER_S_PER_CHIP_S * ahead_s)
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise ChipError(answer["error"])
        if "t" in answer:
            self.t_ns = answer["t"]
            self.resets = answer["resets"]
            self.usb_up = answer["cdc"]
            self.events += answer.get("ev", ())
            if "tx" in answer:
                self.on_uart(bytes.fromhex(answer["tx"]))
            if "con" in answer:
                data = bytes.fromhex(answer["con"])
                self.console += data
                self.on_usb(data)
        return answer

    def _answer(self, op: str, limit_s: float) -> bytes:
        """The emulator's next line; ChipError if it ended, or if it has not answered
        within `limit_s` of wall time (then it is stopped: a late answer would be taken
        for the next command's)."""
        assert self._proc.stdout is not None
        out = self._proc.stdout.fileno()
        deadline = time.monotonic() + limit_s
        while b"\n" not in self._unread:
            left = deadline - time.monotonic()
            if left <= 0:
                self._proc.kill()
                self._proc.wait()
                raise ChipError(f"the emulator did not answer '{op}' within {limit_s:.0f} s "
                                f"of wall time (chip at {self.t_ns / NS:.3f} s): stopped")
            ready, _, _ = select.select([out], [], [], left)
            if ready:
                data = os.read(out, 1 << 16)
                if not data:
                    raise ChipError(f"the emulator ended (exit {self._proc.wait()})")
                self._unread += data
        line, _, self._unread = self._unread.partition(b"\n")
        return line

    def run_to(self, t_ns: int) -> None:
        if t_ns > self.t_ns:
            self._cmd(op="run", to=int(t_ns))

    def gpio(self, pin: int, level: bool) -> None:
        self._cmd(op="gpio", pin=pin, v=1 if level else 0)

    def expander_inputs(self, address: int, bits: int) -> None:
        self._cmd(op="mcp", addr=address, bits=bits)

    def stick_expander_bus(self) -> None:
        """An expander holds the I2C bus (SCL low) until the chip resets: a fault to test
        the watchdog with, as a real bus hangs after a glitch."""
        self._cmd(op="stuck", v=1)

    def uart_in(self, data: bytes) -> None:
        """Bytes onto GP1 (UART0 RX), one every 10 bit times of the line."""
        self._cmd(op="rx", hex=data.hex())

    def usb_in(self, data: bytes) -> None:
        self._cmd(op="cdc", hex=data.hex())

    def loop_periods_ns(self) -> list[int]:
        """The board loop's periods since last asked: chip time between watchdog feeds."""
        return list(self._cmd(op="loop")["loop_ns"])

    def run_until_console(self, text: bytes, limit_ns: int, step_ns: int = USB_STEP_NS) -> bool:
        """Run until the USB console has said `text` (since this call) or `limit_ns` passed."""
        start = len(self.console)
        end = self.t_ns + limit_ns
        while self.t_ns < end:
            self.run_to(self.t_ns + step_ns)
            if text in self.console[max(0, start - len(text)):]:
                return True
        return False

    @contextlib.contextmanager
    def usb_serial(self) -> Iterator[str]:
        """The chip's USB serial as a pty (its path yielded), the chip running on its own.

        What a Pico plugged into a computer is: `mjtable board flash --port PATH` (or
        mpremote) talks to it while a thread moves the chip's time on, 1 ms a step and
        never ahead of the wall clock, as a real chip runs. (Left to run as fast as the
        emulator goes, an idle chip ran some 6x real time: a host descheduled for
        1.5 s on a loaded machine let the flash's 8 s watchdog bite mid-copy.)
        A chip that fails while served raises its ChipError when the block is left;
        until then what the host sends is dropped, as a dead Pico would.
        """
        master, slave = os.openpty()
        tty.setraw(slave)
        path = os.ttyname(slave)
        stop = threading.Event()
        failed: list[ChipError] = []
        self.on_usb = lambda data: os.write(master, data)

        def serve() -> None:
            wall0, chip0 = time.monotonic(), self.t_ns
            while not stop.is_set():
                ahead_s = (self.t_ns - chip0) / NS - (time.monotonic() - wall0)
                wait_s = 0.05 if failed else min(max(ahead_s, 0.0), 0.01)
                ready, _, _ = select.select([master], [], [], wait_s)
                data = os.read(master, 4096) if ready else b""
                if failed:
                    continue
                try:
                    if data:
                        self.usb_in(data)
                    if ahead_s <= 0:
                        self.run_to(self.t_ns + USB_STEP_NS)
                except ChipError as exc:
                    failed.append(exc)

        thread = threading.Thread(target=serve, name="pico-usb", daemon=True)
        thread.start()
        try:
            yield path
        finally:
            stop.set()
            thread.join()       # its command's answer is bounded by ANSWER_LIMIT_S
            self.on_usb = lambda data: None
            for fd in (master, slave):
                with contextlib.suppress(OSError):
                    os.close(fd)
            if failed:      # the cause, whatever the host made of the silence
                raise failed[0]

    def close(self) -> None:
        if self._proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                assert self._proc.stdin is not None
                self._proc.stdin.close()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
