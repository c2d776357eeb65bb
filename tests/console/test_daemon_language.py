"""The daemon's own output is in the table's language, whatever a client speaks: a
Chinese technician's test mode left `第 0 局：测试模式` in an English daemon's journal,
and an English console left English in a Chinese one's."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware.api.auth import Technicians
from tests.conftest import ROOT
from tests.console.conftest import TOKEN

HAN = re.compile(r"[\u4e00-\u9fff]")


def ask(sock: socket.socket, reader, method: str, params: dict | None = None,
        lang: str | None = None, auth: dict | None = None) -> dict:
    line: dict = {"id": method, "method": method, "params": params or {}}
    if lang:
        line["lang"] = lang
    if auth:
        line["auth"] = auth
    sock.sendall(json.dumps(line).encode() + b"\n")
    while True:
        reply = json.loads(reader.readline())
        if reply.get("id") == method:
            return reply


def session(tmp_path: Path, table_lang: str, client_lang: str) -> list[str]:
    """The daemon's log lines (its start-up lines aside: the table's id, the socket)."""
    state = tmp_path / "state"
    state.mkdir()
    Technicians(state / "technicians.json").add("li", TOKEN)
    path = tmp_path / "api.sock"
    daemon = subprocess.Popen(
        [sys.executable, "-m", "mjtable.cli", "--state-dir", str(state), "run", "--plain",
         "--speed", "20", "--socket", str(path)], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "MJTABLE_LANG": table_lang})
    try:
        deadline = time.monotonic() + 60
        while not path.exists():
            assert time.monotonic() < deadline and daemon.poll() is None
            time.sleep(0.05)
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(path))
            sock.settimeout(30)
            reader = sock.makefile("r", encoding="utf-8")
            assert ask(sock, reader, "login", lang=client_lang,
                       auth={"name": "li", "token": TOKEN})["ok"]
            on = ask(sock, reader, "testmode", {"on": True, "force": True}, lang=client_lang)
            assert on["ok"], on
            time.sleep(1.0)
            test = ask(sock, reader, "test", {"test": "dice"}, lang=client_lang)
            time.sleep(1.0)
            off = ask(sock, reader, "testmode", {"on": False}, lang=client_lang)
            assert off["ok"], off
            time.sleep(1.5)
            assert test is not None
    finally:
        daemon.send_signal(signal.SIGTERM)
        out, _ = daemon.communicate(timeout=30)
    lines = out.splitlines()
    return [line for line in lines if line.strip() and not line.startswith("mjtable: ")]


@pytest.mark.parametrize(("table_lang", "client_lang"), [("en", "zh_CN"), ("zh_CN", "en")])
def test_a_clients_language_never_reaches_the_daemons_log(tmp_path: Path, table_lang: str,
                                                          client_lang: str) -> None:
    lines = session(tmp_path, table_lang, client_lang)
    assert any("test" in line or "测试" in line for line in lines), lines
    if table_lang == "en":
        chinese = [line for line in lines if HAN.search(line)]
        assert chinese == [], "\n".join(chinese)
    else:
        # Every line the table writes names something in Chinese (ids, codes and the
        # table's name stay as they are); none is an English sentence.
        english = [line for line in lines if not HAN.search(line)]
        assert english == [], "\n".join(english)
