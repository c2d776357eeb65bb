"""Request lines out of a connection's bytes, in time linear in what was read.

The splitter keeps one buffer and a read position: each line is found with one `find`
from where the last one ended, and the consumed part is cut once per read, never once
per line (a block of 64 KiB of bare newlines used to copy the rest of the buffer for
every one of them and held the table's loop for seconds).
"""

from __future__ import annotations


class Overlong:
    """A line over the limit: answered once, skipped up to its newline."""


OVERLONG = Overlong()


class LineSplitter:
    """Feed it what was read; take lines (without their newline) one at a time."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self._buffer = bytearray()
        self._pos = 0
        self._skipping = False      # inside a line already answered as over-long

    def feed(self, chunk: bytes) -> None:
        if self._pos:
            del self._buffer[:self._pos]
            self._pos = 0
        self._buffer += chunk

    @property
    def partial(self) -> bool:
        """A line has begun and not ended."""
        return self._skipping or self._pos < len(self._buffer)

    def next(self) -> bytes | Overlong | None:
        """The next whole line, OVERLONG once per over-long line, or None: read more."""
        while True:
            end = self._buffer.find(b"\n", self._pos)
            if end < 0:
                if len(self._buffer) - self._pos > self.max_line:
                    was_skipping = self._skipping
                    self._buffer.clear()
                    self._pos = 0
                    self._skipping = True
                    if not was_skipping:
                        return OVERLONG
                return None
            start, self._pos = self._pos, end + 1
            if self._skipping:
                self._skipping = False      # the tail of a line already answered
                continue
            if end - start > self.max_line:
                return OVERLONG
            return bytes(self._buffer[start:end])
