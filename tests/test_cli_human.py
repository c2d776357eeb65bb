"""What a person sees from the `mjtable` command: no tracebacks on Ctrl-C or a closed
pipe, a hint instead of silence, the fault card, and no Python reprs."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

from firmware.cli import main
from firmware.view import log_line

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "MJTABLE_LANG": "en", "PYTHONPATH": str(ROOT)}


def interrupt(args: list[str], stdin=None, after_s: float = 2.5) -> subprocess.CompletedProcess:
    proc = subprocess.Popen([sys.executable, "-m", "firmware.cli", *args], cwd=ROOT, env=ENV,
                            stdin=stdin if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(after_s)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_ctrl_c_during_simulate_ends_with_a_line_not_a_traceback() -> None:
    result = interrupt(["simulate", "--cycles", "100000"])
    assert result.returncode == 130
    assert "Traceback" not in result.stderr and "interrupted" in result.stderr


def test_bare_deal_says_it_reads_the_keyboard_and_ctrl_c_ends_it() -> None:
    leader, follower = pty.openpty()
    try:
        result = interrupt(["deal"], stdin=follower, after_s=2.0)
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
            "from firmware.cli import main\n"
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
