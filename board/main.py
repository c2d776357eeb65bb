# The board's main loop on a Pico: bytes from the UART, expander inputs, timers.
#
# Copy the board/ directory to the Pico and a main.py that says `import board.main`
# (docs/board.md, or `mjtable board flash`). The watchdog resets the chip, every output
# off, if this loop stops.
#
# Between passes the loop waits in select.poll (the core sleeps in WFE) for a byte on
# the UART, at most 1 ms: a pin's interrupt wakes it at once, and an armed stop on a
# GPIO input is cut in the interrupt, or a dwell's end in a hard timer's
# (board/pins_pico.py); the loop then decides and reports it.
# Once a second it collects the heap, if no stop is armed (a collection holds the loop
# for some 10-30 ms, and a stop the interrupts cannot cut, on an output they do not
# reach, is made by the loop), else once GC_LATE_MS have passed all the same; after
# each it says on the USB console how much is free.

import gc
import select

import machine

from board import pinmap
from board.core import Board
from board.pins_pico import Pins

STATUS_MS = 1000
GC_LATE_MS = 3000       # the heap is collected at least this often, stops or not


class Turn:
    """One turn of the loop in the board (run through pins.call: the board is not
    re-entrant and a pin's handler may fire meanwhile). Returns how long the loop may
    wait for a byte: 0 if the board is due now, else 1 ms."""

    def __init__(self, pins, board, uart):
        self.pins = pins
        self.board = board
        self.uart = uart

    def __call__(self):
        waiting = self.uart.any()
        if waiting:
            self.board.feed(self.uart.read(waiting))
        self.pins.poll_slow()
        now = self.pins.now_ms()
        due = self.board.next_due()
        if due is not None and now >= due:
            self.board.poll()
            due = self.board.next_due()
        return 0 if due is not None and due <= self.pins.now_ms() else 1


def run():
    pins = Pins(pinmap)
    board = Board(pins, heartbeat_limit_ms=pinmap.HEARTBEAT_LIMIT_MS)
    pins.attach(board)
    watchdog = machine.WDT(timeout=pinmap.WATCHDOG_MS)
    turn = Turn(pins, board, pins.uart)
    poller = select.poll()
    poller.register(pins.uart, select.POLLIN)
    collected_at = -GC_LATE_MS
    try:
        while True:
            wait = pins.call(turn)
            watchdog.feed()
            now = pins.now_ms()
            if now - collected_at >= STATUS_MS and (not board.stops
                                                    or now - collected_at >= GC_LATE_MS):
                collected_at = now
                gc.collect()
                print("board mem_free", gc.mem_free(), "tx_lost", pins.tx_lost)
            poller.poll(wait)
    finally:
        # Stopped (Ctrl-C at the USB console, an exception): nothing runs unwatched.
        pins.all_off()


run()
