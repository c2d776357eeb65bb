"""What a person sees from the `mjtable` command: no tracebacks on Ctrl-C or a closed
pipe, a hint instead of silence, the fault card, and no Python reprs."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from firmware.console.view import log_line
from mjtable.cli import main

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "MJTABLE_LANG": "en", "PYTHONPATH": str(ROOT)}


def interrupt(args: list[str], wait_for: str, stdin=None,
              stderr_tty: bool = False) -> subprocess.CompletedProcess:
    """Ctrl-C once the command has said `wait_for` on stderr: waited for, not slept on
    (a fixed delay on a loaded machine lands in the interpreter's start-up, before
    the command runs). `stderr_tty` gives the command a terminal for its stderr."""
    leader = follower = None
    if stderr_tty:
        leader, follower = pty.openpty()
    # A shell's background job (`make test &`, a script) ignores SIGINT, and an ignored
    # signal stays ignored across exec: the command would never see the Ctrl-C. Any
    # handler here is reset to the default in the child, as at a terminal.
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "mjtable.cli", *args], cwd=ROOT,
                                env=ENV, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=follower if follower is not None else subprocess.PIPE)
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    source = leader if leader is not None else proc.stderr.fileno()
    said = b""
    try:
        deadline = time.monotonic() + 120
        while wait_for.encode() not in said:
            left = deadline - time.monotonic()
            assert left > 0 and proc.poll() is None, said.decode(errors="replace")
            if select.select([source], [], [], min(left, 1.0))[0]:
                said += os.read(source, 4096)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        if leader is not None:
            while select.select([leader], [], [], 0)[0]:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:     # the terminal's other end is closed
                    break
                if not chunk:
                    break
                said += chunk
    finally:
        if leader is not None:
            os.close(leader)
            os.close(follower)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out.decode(),
                                       (said + (err or b"")).decode(errors="replace"))


def test_ctrl_c_during_simulate_ends_with_a_line_not_a_traceback() -> None:
    # Its progress line on a terminal says the hands are being dealt.
    result = interrupt(["simulate", "--cycles", "100000"], wait_for="hand ", stderr_tty=True)
    assert result.returncode == 130
    assert "Traceback" not in result.stderr and "interrupted" in result.stderr


def test_bare_deal_says_it_reads_the_keyboard_and_ctrl_c_ends_it() -> None:
    leader, follower = pty.openpty()
    try:
        result = interrupt(["deal"], wait_for="Ctrl-D", stdin=follower)
    finally:
        os.close(leader)
        os.close(follower)
    assert "reading the deal input (JSON) from the keyboard" in result.stderr
    assert "Ctrl-D" in result.stderr
    assert result.returncode == 130 and "Traceback" not in result.stderr


def test_a_closed_pipe_ends_quietly() -> None:
    # As `mjtable faults | head -1`: the reader is gone before the card is written.
    code = ("import os, sys\n"
            "r, w = os.pipe(); os.close(r); os.dup2(w, 1)\n"
            "from mjtable.cli import main\n"
            "sys.exit(main(['faults']))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr


def test_fault_card_in_chinese_and_markdown(capsys) -> None:
    assert main(["faults", "--lang", "zh_CN"]) == 0
    card = capsys.readouterr().out
    assert card.startswith("mjtable 故障代码表")
    assert "E11  中心不降" in card and "E2N  机头卡牌" in card
    assert main(["faults", "--format", "md", "--lang", "en"]) == 0
    assert "| **E11** | lid does not lower |" in capsys.readouterr().out


def test_plain_log_lines_show_no_python_reprs() -> None:
    line = log_line({"t": 0.0, "kind": "start", "table": "table-1", "seed": None})
    assert line is not None and "{" not in line and "'" not in line and "None" not in line
    assert "table=table-1" in line


def test_bench_says_its_progress_and_ctrl_c_ends_it_with_a_line() -> None:
    # Before: minutes of silence, and silence again on Ctrl-C.
    result = interrupt(["bench"], wait_for="1/9")
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr
    assert "mjtable bench: interrupted" in result.stderr
    assert result.stdout == ""
