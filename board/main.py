# The board's main loop on a Pico: bytes from the UART, expander inputs, timers.
#
# Copy the board/ directory to the Pico and a main.py that says `import board.main`
# (docs/board.md). The watchdog resets the chip, every output off, if this loop stops.

import machine

from board import pinmap
from board.core import Board
from board.pins_pico import Pins


def run():
    pins = Pins(pinmap)
    board = Board(pins, heartbeat_limit_ms=pinmap.HEARTBEAT_LIMIT_MS)
    pins.attach(board)
    watchdog = machine.WDT(timeout=pinmap.WATCHDOG_MS)
    uart = pins.uart
    while True:
        waiting = uart.any()
        if waiting:
            board.feed(uart.read(waiting))
        pins.poll_slow()
        due = board.next_due()
        if due is not None and pins.now_ms() >= due:
            board.poll()
        watchdog.feed()


run()
