"""`console status` piped into a script or a pager: whole lines, no label wrapped away
from its value at 80 columns."""

from __future__ import annotations

from mjtable.cli import main
from tests.console.conftest import Daemon


def test_piped_status_keeps_each_label_with_its_value(daemon: Daemon, capsys) -> None:
    assert main(["console", "--socket", str(daemon.socket), "status"]) == 0
    lines = capsys.readouterr().out.splitlines()
    commitment = [line for line in lines if line.startswith("commitment:")]
    assert commitment and (commitment[0] == "commitment: -"
                           or commitment[0].startswith("commitment: sha256:")), lines
    counters = [line for line in lines if line.startswith("hands:")]
    assert counters and "tiles counted:" in counters[0], lines
