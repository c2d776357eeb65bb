"""An ARM the board refuses (its interlock forbids the motion, or it is stale behind a
SAFE) leaves its output at the safe value, as a refused SET does: the motion an older
stop watched on that output must not run on with no stop at all."""

from __future__ import annotations

from board.core import Board
from tests.board.conformance import ScriptPins

LID, LID_UPPER, LID_LOWER = 0, 8, 9
UP, DOWN = 1, 2


def arm(board: Board, stop_id: int, value: int, in_ch: int, now: int) -> None:
    # stop id, output, value, input, level, edges, blank, confirm, max time
    payload = bytes((stop_id, LID, value, in_ch, 1, 0)) + (0).to_bytes(2, "big") \
        + (0).to_bytes(2, "big") + (5000).to_bytes(4, "big")
    assert board._arm(payload, now)


class Forbids:
    """An interlock table that forbids driving the lid down."""

    def forbids(self, out_ch: int, value: int, safe: int, read: object) -> int | None:
        return LID_LOWER if (out_ch, value) == (LID, DOWN) else None


def lid_running_up() -> tuple[Board, ScriptPins]:
    pins = ScriptPins([])
    board = Board(pins, heartbeat_limit_ms=500)
    arm(board, 1, UP, LID_UPPER, now=10)
    assert pins.values[LID] == bytes((UP,)) and LID in board.stops
    return board, pins


def test_an_arm_the_interlock_refuses_stops_the_motion_the_old_stop_watched() -> None:
    board, pins = lid_running_up()
    board.interlocks = Forbids()
    arm(board, 2, DOWN, LID_LOWER, now=20)
    assert LID not in board.stops
    assert pins.values[LID] == b"\x00"      # not left running up with no stop


def test_a_stale_arm_behind_a_safe_stops_the_motion_the_old_stop_watched() -> None:
    board, pins = lid_running_up()
    board.fence[LID] = 1
    arm(board, 2, DOWN, LID_LOWER, now=20)
    assert LID not in board.stops
    assert pins.values[LID] == b"\x00"
