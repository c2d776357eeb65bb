"""Hold-to-run jog over the API: the phone console's jog button.

`jog_hold` starts a jog that runs only while the same connection keeps sending
`jog_keep` (at least every maintenance.HOLD_S); silence, `jog_stop`, or the
connection closing stops the motor. The cap is the daemon's own: a page or an agent
that dies mid-press cannot keep a motor running.

`jog_keep` is open by class so that ten keeps a second do not each log a technician
action; it is refused unless this connection's session started the hold.
`jog_stop` is open like the e-stop: stopping is the safe direction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from firmware.api import protocol as p
from firmware.api.access import MOTION, OPEN, method
from firmware.api.calls import Caller, Handler, Now
from firmware.i18n import _
from firmware.machines.maintenance import (
    MAX_HOLD_S,
    Maintenance,
    MaintenanceRefused,
    NoSuchMechanism,
)


class Table(Protocol):
    @property
    def clock(self) -> Now: ...


class Server(Protocol):
    """What the jog methods use of the server: the table's clock, the maintenance
    machine, and the list of those told when a connection ends."""

    @property
    def ctl(self) -> Table: ...
    @property
    def maintenance(self) -> Maintenance: ...
    @property
    def closing(self) -> list[Callable[[Any], None]]: ...


def handlers(server: Server) -> dict[str, Handler]:
    held: dict[int, int] = {}       # id(client) -> the hold it started

    def number(params: dict[str, Any]) -> int | None:
        hold = params.get("hold")
        if hold is None:
            return None
        if not isinstance(hold, int) or isinstance(hold, bool):
            raise p.ApiError(p.BAD_REQUEST, "\"hold\" must be the number jog_hold gave")
        return hold

    @method(MOTION)   # starting moves a motor
    async def jog_hold(client: Caller, params: dict[str, Any], who: str | None) -> Any:
        motor, direction = params.get("motor"), params.get("direction")
        if not isinstance(motor, str) or not isinstance(direction, str):
            raise p.ApiError(p.BAD_REQUEST, "jog_hold needs \"motor\" and \"direction\"")
        try:
            started = server.maintenance.jog(motor, direction, MAX_HOLD_S, who or "?",
                                             hold=True)
        except NoSuchMechanism as exc:
            raise p.ApiError(p.NOT_FOUND, str(exc)) from None
        except MaintenanceRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None
        held[id(client)] = started["hold"]
        return started

    @method(OPEN)   # checked against the session that started the hold
    async def jog_keep(client: Caller, params: dict[str, Any], _who: str | None) -> Any:
        hold = number(params)
        session = (client.technician if server.ctl.clock.now() < client.session_until
                   else None)
        if hold is None or session is None or held.get(id(client)) != hold:
            raise p.ApiError(p.REFUSED, _("the jog has stopped; press and hold again"))
        try:
            return server.maintenance.keep(hold, session)
        except MaintenanceRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None

    @method(OPEN)   # a stop is the safe direction
    async def jog_stop(client: Caller, params: dict[str, Any], who: str | None) -> Any:
        hold = number(params)
        held.pop(id(client), None)
        return server.maintenance.stop_jog(hold, who or client.technician)

    def closed(client: Caller) -> None:
        hold = held.pop(id(client), None)
        if hold is not None:
            server.maintenance.stop_jog(hold, client.technician)

    server.closing.append(closed)
    return {"jog_hold": jog_hold, "jog_keep": jog_keep, "jog_stop": jog_stop}
