"""The serial cable between the host and a board, as the rigs model it: cut for a while,
and noisy (each bit flipped with a probability).

A board behind it (the emulated board, the emulated Pico) sets `clock`, `noise`,
`bits_flipped` and `_drop_until` (float("-inf")) and keeps its own random streams.
"""

from __future__ import annotations

import random

from mjtable_core.clock import Clock


class Cable:
    clock: Clock
    noise: float
    bits_flipped: int
    _drop_until: float

    def drop_link(self, duration_s: float) -> None:
        """From now on, for `duration_s`, nothing crosses the cable either way. A drop
        already longer (the power off, a cable pulled) is not cut short by a shorter
        one: bytes the board sent while a dead host's port is closed would stay unread
        and stall the lockstep."""
        self._drop_until = max(self._drop_until, self.clock.now() + duration_s)

    def _dropping(self) -> bool:
        return self.clock.now() < self._drop_until

    def _garble(self, data: bytes, rng: random.Random) -> bytes:
        if self.noise <= 0:
            return data
        out = bytearray(data)
        for i in range(len(out)):
            for bit in range(8):
                if rng.random() < self.noise:
                    out[i] ^= 1 << bit
                    self.bits_flipped += 1
        return bytes(out)
