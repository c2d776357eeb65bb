"""The table's health over the API: wear trends, maintenance warnings, the schedule.

`health` is open (it reveals nothing secret); `maintained` records a routine job done
or a part serviced (its as-new time is learned again) and needs a technician.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from firmware.api import protocol as p
from firmware.api.access import OPEN, TECHNICIAN, method
from firmware.api.calls import Caller, Handler
from firmware.diagnosis import upkeep
from firmware.i18n import _

if TYPE_CHECKING:
    from firmware.diagnosis.wear import Wear


class Table(Protocol):
    """What these methods use of the table."""

    @property
    def wear(self) -> Wear: ...
    def emit(self, kind: str, **data: Any) -> None: ...
    def save_journal(self, clean: bool = False) -> None: ...


class Server(Protocol):
    @property
    def ctl(self) -> Table: ...


def handlers(server: Server) -> dict[str, Handler]:
    @method(OPEN)
    async def health(client: Caller, params: dict[str, Any], _who: str | None) -> Any:
        return server.ctl.wear.report()

    @method(TECHNICIAN)
    async def maintained(client: Caller, params: dict[str, Any], who: str | None) -> Any:
        job, part = params.get("job"), params.get("part")
        wear = server.ctl.wear
        if isinstance(job, str) and job in upkeep.BY_ID:
            wear.done(job)
        elif isinstance(part, str) and part in wear.as_new:
            wear.replaced(part)
        else:
            raise p.ApiError(p.BAD_REQUEST, _(
                "maintained needs \"job\" (one of {jobs}) or \"part\" (one of {parts})").format(
                    jobs=", ".join(upkeep.BY_ID), parts=", ".join(sorted(wear.as_new)) or "-"))
        server.ctl.emit("maintenance.done", job=job, part=part, by=who)
        server.ctl.save_journal()
        return wear.report()

    return {"health": health, "maintained": maintained}
