"""The board firmware's pin layer in the simulator: channels wired to a `SimTable`.

`board/` is the I/O board's firmware, written for MicroPython; on a Pico its pins are
GPIOs (`board/pins_pico.py`). Here the same firmware runs under CPython with its pins
bound to the simulated table and its millisecond clock on the simulation's clock, so
the simulator's board is the board's code, not a second implementation of it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from hal.protocol import CHANNEL_OF, CHANNELS, decode_value, encode_value
from mjtable_core.clock import Clock
from mjtable_core.signals import Value
from simulator.physics.table import SimTable

# Each board powered up in this process gets its own session (a Pico draws one at random).
_SESSIONS = itertools.count(0x5A00)


class SimPins:
    """`board.core.Board`'s pins: outputs command the table, inputs read it."""

    def __init__(self, table: SimTable, clock: Clock, send: Callable[[bytes], None]) -> None:
        self.table = table
        self.clock = clock
        self.send = send
        fitted = [name for name in CHANNELS if name in table.signals]
        self.outputs: dict[int, bytes] = {
            CHANNEL_OF[name]: encode_value(name, table.signals[name].safe_value)
            for name in fitted if table.signals[name].is_output}
        self.names: dict[int, str] = dict(enumerate(CHANNELS))
        self.inputs: tuple[int, ...] = tuple(
            CHANNEL_OF[name] for name in fitted if not table.signals[name].is_output)

    def boot_token(self) -> int:
        return next(_SESSIONS)

    def now_ms(self) -> int:
        return round(self.clock.now() * 1000)

    def read(self, channel: int) -> bytes:
        name = CHANNELS[channel]
        return encode_value(name, self.table.values[name])

    def write(self, channel: int, value: bytes) -> None:
        """Drive an output; ValueError for a value this signal cannot take."""
        name = CHANNELS[channel]
        self.table.command(name, decode_value(name, value))

    def encode(self, name: str, value: Value) -> tuple[int, bytes]:
        """A table change as the board's pins see it: channel and value bytes."""
        return CHANNEL_OF[name], encode_value(name, value)
