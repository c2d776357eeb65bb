"""The usage ledger over the API: read records after a sequence.

Open to the socket's group (the agent runs there): reading reveals no tile. Only the
venue acknowledges, by a signed `usage_ack` (firmware/api/venue.py): an unsigned one
from anyone on the socket, ahead of the agent, would keep hands from the venue's bill.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.api import protocol as p
from firmware.api.access import OPEN, method
from firmware.api.calls import Caller, Handler

if TYPE_CHECKING:
    from firmware.state.ledger import Ledger


def handlers(server: object) -> dict[str, Handler]:
    """The methods, bound to whatever ledger is attached to `server` (`server.ledger`)."""

    def ledger() -> Ledger:
        found = getattr(server, "ledger", None)
        if found is None:
            raise p.ApiError(p.NOT_AVAILABLE, "this daemon runs without a usage ledger")
        return found

    @method(OPEN)   # the venue acknowledges by a signed command
    async def usage(client: Caller, params: dict[str, Any], _: str | None) -> Any:
        after, limit = params.get("after", 0), params.get("limit", 100)
        for name, value in (("after", after), ("limit", limit)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise p.ApiError(p.BAD_REQUEST, f"usage: {name} must be an integer ≥ 0")
        book = ledger()
        return {"totals": book.totals(), "records": book.records(after, max(1, limit))}

    return {"usage": usage}
