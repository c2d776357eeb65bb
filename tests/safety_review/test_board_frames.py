"""The I/O-board emulator against malformed SET frames (issue 11, finding 11, attacked).

A frame whose checksum is good but whose payload is not a valid SET (empty, a channel
the protocol does not know, a value cut short) must never escape the frame handler as
an exception (it would kill the board's loop): the board goes on. Today such a frame is
dropped without an ERROR frame (unlike a SET on an input): the host is not told.
"""

from __future__ import annotations

import pytest

from hal.protocol import Frame, Msg, encode_hello, encode_signal
from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config
from simulator.physics.table import SimTable
from simulator.rigs.ioboard_emulator import IoBoardEmulator
from tests.conftest import CONFIGS, quick
from tests.hal.test_ioboard import _Wire

PAYLOADS = {
    "empty": b"",
    "unknown channel": bytes((250, 1)),
    "value cut short": encode_signal("motor.lid", "up")[:1],
}


@pytest.mark.parametrize("what", list(PAYLOADS))
def test_a_malformed_set_is_refused_and_the_board_goes_on(what: str) -> None:
    clock = VirtualClock()
    table = SimTable(quick(load_config(CONFIGS["144"]), play_time_s=2.0), clock, seed=1)
    wire = _Wire()
    board = IoBoardEmulator(table, clock, wire, heartbeat_limit_s=3.0)
    board._hello(encode_hello())
    try:
        board._on_bytes(Frame(0, Msg.SET, PAYLOADS[what]).encode())
        board._on_bytes(Frame(1, Msg.SET, encode_signal("motor.disc", True)).encode())
        clock.run_until(0.1)
        assert table.values["motor.disc"] is True          # the link goes on
        assert table.values["motor.lid"] == "off"          # nothing half-applied
    finally:
        board.close()
