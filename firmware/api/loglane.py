"""The event-log lane: one read at a time, taken in turn by each uid that waits.

A read holds the GIL for most of its work, so reads run one at a time (many at once
starved the loop the table runs on), and after each the lane rests `pace` times the
processor time the read took. Waiting readers are served by key (a uid; TCP is one
key) in turn, first come first served within a key: a uid that queued a hundred reads
holds another uid's one read back by one read, not a hundred. A waiter that goes
(its connection closed, its request cancelled) leaves the queue; the lane's rest
after a read is kept whoever comes next, so hanging up never skips it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress


class LogLane:
    def __init__(self) -> None:
        self._busy = False
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._rest_until = 0.0     # the loop's time: the lane rests after a read

    def waiting(self) -> int:
        return sum(len(q) for q in self._waiting.values())

    @asynccontextmanager
    async def turn(self, key: str) -> AsyncIterator[None]:
        """Hold the lane for one read by `key`, after the readers before it in turn."""
        loop = asyncio.get_running_loop()
        if self._busy or self._waiting:
            handed: asyncio.Future[None] = loop.create_future()
            self._waiting.setdefault(key, deque()).append(handed)
            try:
                await handed
            except asyncio.CancelledError:
                if handed.done() and not handed.cancelled():
                    self._next()        # handed the lane as we went: pass it on
                else:
                    self._forget(key, handed)
                raise
        else:
            self._busy = True
        try:
            rest = self._rest_until - loop.time()
            if rest > 0:
                await asyncio.sleep(rest)
            yield
        finally:
            self._next()

    def rest(self, seconds: float) -> None:
        """The lane rests `seconds` from now, before the next read (any reader's)."""
        self._rest_until = max(self._rest_until,
                               asyncio.get_running_loop().time() + seconds)

    def _forget(self, key: str, handed: asyncio.Future[None]) -> None:
        queue = self._waiting.get(key)
        if queue is None:
            return
        with suppress(ValueError):
            queue.remove(handed)
        if not queue:
            del self._waiting[key]

    def _next(self) -> None:
        """Hand the lane to the first waiter of the next key in turn, or free it."""
        while self._waiting:
            key, queue = next(iter(self._waiting.items()))
            handed = queue.popleft()
            if queue:
                self._waiting.move_to_end(key)      # its next read after the others'
            else:
                del self._waiting[key]
            if not handed.cancelled():
                handed.set_result(None)
                return
        self._busy = False
