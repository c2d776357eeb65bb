"""What a group of API methods is written against: the caller and the handler's shape.

The server (firmware/api/server.py) binds the method groups (health, hold, usage,
venue) and imports them; a group sees only what this module names, so it never
imports the server back. Each group says in a small Protocol of its own what it
uses of the server; everything here imports nothing of the firmware.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol


class Caller(Protocol):
    """One connection as a method sees it: whose session it has, and until when."""

    technician: str | None      # the session's, after `login`
    session_until: float        # table time


# A method: (the caller, the request's params, the technician it acts for) -> reply.
Handler = Callable[[Any, dict[str, Any], str | None], Awaitable[Any]]


class Emit(Protocol):
    """The table's event stream (`Controller.emit`)."""

    def __call__(self, kind: str, **data: Any) -> None: ...


class Now(Protocol):
    """The table's clock, as far as a method reads it."""

    def now(self) -> float: ...
