"""`mjtable board flash`'s one line for each way a flash fails, against a port that
answers as MicroPython's raw REPL does (the emulated Pico in tests/pico flashes for real):
no Pico, a Pico without MicroPython, a MicroPython too old, files that did not verify."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hal import board_flash
from hal.board_flash import FlashError, flash

FILES = [("board/__init__.py", b""), ("board/main.py", b"print('board')\n")]


class RawReplPort:
    """A serial port with MicroPython's raw REPL behind it: it answers every code run
    with OK, then what `answer` says it printed."""

    name = "/dev/ttyACM9"

    def __init__(self, version: str = "(1, 27, 0)", digest: str | None = None,
                 speaks: bool = True) -> None:
        self.version, self.digest, self.speaks = version, digest, speaks
        self.out = b""
        self.code = b""
        self.closed = False

    @property
    def in_waiting(self) -> int:
        return len(self.out)

    def read(self, size: int = 1) -> bytes:
        data, self.out = self.out[:size], self.out[size:]
        return data

    def reset_input_buffer(self) -> None:
        self.out = b""

    def close(self) -> None:
        self.closed = True

    def write(self, data: bytes) -> int:
        if not self.speaks:
            return len(data)
        if data == b"\r\x01":
            self.out += b"raw REPL; CTRL-B to exit\r\n>"
            return len(data)
        self.code += data
        if self.code.endswith(b"\x04"):
            code, self.code = self.code.decode(), b""
            self.out += b"OK" + self.answer(code).encode() + b"\x04\x04>"
        return len(data)

    def answer(self, code: str) -> str:
        if "sys.implementation.version" in code:
            return self.version + "\r\n"
        if "hashlib" in code:
            return (self.digest or board_flash.files_digest(FILES)) + "\r\n"
        return ""


def flash_to(port: RawReplPort) -> str:
    with pytest.raises(FlashError) as caught:
        flash("/dev/ttyACM9", FILES, open_port=lambda name: port, start=False)
    assert port.closed
    return str(caught.value)


def test_a_good_flash_verifies() -> None:
    done = flash("/dev/ttyACM9", FILES, open_port=lambda name: RawReplPort(), start=False)
    assert done.digest == board_flash.files_digest(FILES)


def test_a_pico_without_micropython_says_where_the_image_comes_from() -> None:
    line = flash_to(RawReplPort(speaks=False))
    assert "no MicroPython on the Pico at /dev/ttyACM9" in line
    assert board_flash.IMAGE_HINT in line and "\n" not in line


def test_a_micropython_too_old_names_both_versions() -> None:
    line = flash_to(RawReplPort(version="(1, 19, 1)"))
    assert "MicroPython 1.19.1 on the Pico is too old" in line and "1.23" in line
    assert "\n" not in line


def test_files_that_did_not_land_as_sent_are_not_verified() -> None:
    line = flash_to(RawReplPort(digest="0" * 64))
    assert line.startswith("the flash did not verify: the Pico holds 000000000000")
    assert "\n" not in line


def test_no_pico_at_the_port_named_is_one_line_from_the_command(tmp_path) -> None:
    mjtable = Path(sys.executable).parent / "mjtable"
    run = subprocess.run([str(mjtable), "board", "flash", "--port", str(tmp_path / "ttyACM9")],
                         capture_output=True, text=True, env={"LANG": "C", "PATH": ""},
                         timeout=60)
    assert run.returncode != 0 and run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "no Pico found at" in lines[0], run.stderr
