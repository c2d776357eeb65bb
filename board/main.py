# The board's main loop on a Pico: bytes from the UART, expander inputs, timers.
#
# Copy the board/ directory to the Pico and a main.py that says `import board.main`
# (docs/board.md, or `mjtable board flash`). The watchdog resets the chip, every output
# off, if this loop stops.
#
# Between passes the loop waits in select.poll (the core sleeps in WFE) for a byte on
# the UART, at most 1 ms: a pin's interrupt wakes it at once and its handler runs
# inside the wait, so an armed stop does not wait for the loop. Once a second it
# collects the heap (a collection forced later, by an allocation in a pin's handler,
# would hold a stop for its length) and says on the USB console how much is free.

import gc
import select

import machine

from board import pinmap
from board.core import Board
from board.pins_pico import Pins

STATUS_MS = 1000


def run():
    pins = Pins(pinmap)
    board = Board(pins, heartbeat_limit_ms=pinmap.HEARTBEAT_LIMIT_MS)
    pins.attach(board)
    watchdog = machine.WDT(timeout=pinmap.WATCHDOG_MS)
    uart = pins.uart
    poller = select.poll()
    poller.register(uart, select.POLLIN)
    status_at = 0
    try:
        while True:
            waiting = uart.any()
            if waiting:
                board.feed(uart.read(waiting))
            pins.poll_slow()
            now = pins.now_ms()
            due = board.next_due()
            if due is not None and now >= due:
                board.poll()
                due = board.next_due()
            watchdog.feed()
            if now >= status_at:
                status_at = now + STATUS_MS
                gc.collect()
                print("board mem_free", gc.mem_free())
            poller.poll(0 if due is not None and due <= pins.now_ms() else 1)
    finally:
        # Stopped (Ctrl-C at the USB console, an exception): nothing runs unwatched.
        pins.all_off()


run()
