"""When an input changed, on the host's clock, from the I/O board's millisecond stamp.

A stamp reaches the host after the link's delay, which is never below some shortest
delay; the smallest (arrival - stamp) seen so far is that shortest delay plus the
offset between the two clocks, so stamp + that smallest value is when the change
happened, as near as the host can know. An INPUT that needed a retransmission keeps
its true time instead of arriving bunched with the next one.
"""

from __future__ import annotations

WRAP_MS = 2**32
# The two crystals drift apart by tens of ppm: let the estimate creep up this much per
# second, so it follows a board clock that runs slow instead of sticking to an old low.
DRIFT = 1e-4


class BoardTime:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """A new handshake: the board may have restarted its clock."""
        self._offset: float | None = None
        self._last_ms: int | None = None
        self._board_s = 0.0
        self._last_arrival = 0.0

    def at(self, stamp_ms: int, arrival: float) -> float:
        """The host time at which the board saw the change stamped `stamp_ms`."""
        if self._last_ms is None:
            self._board_s = stamp_ms / 1000
        else:   # stamps come in order (INPUT is sequenced), so a smaller one wrapped
            self._board_s += ((stamp_ms - self._last_ms) % WRAP_MS) / 1000
        self._last_ms = stamp_ms
        sample = arrival - self._board_s
        if self._offset is None:
            self._offset = sample
        else:
            self._offset = min(sample,
                               self._offset + DRIFT * (arrival - self._last_arrival))
        self._last_arrival = arrival
        return self._board_s + self._offset
