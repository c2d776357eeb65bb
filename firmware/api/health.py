"""The table's health over the API: wear trends, maintenance warnings, the schedule.

`health` is open (it reveals nothing secret); `maintained` records a routine job done
or a part serviced (its as-new time is learned again) and needs a technician.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from firmware.api import protocol as p
from firmware.api.access import OPEN, TECHNICIAN, method
from firmware.diagnosis import upkeep
from firmware.i18n import _

if TYPE_CHECKING:
    from firmware.api.server import ApiServer, Client

Handler = Callable[["Client", dict[str, Any], str | None], Awaitable[Any]]


def handlers(server: ApiServer) -> dict[str, Handler]:
    @method(OPEN)
    async def health(client: Client, params: dict[str, Any], _who: str | None) -> Any:
        return server.ctl.wear.report()

    @method(TECHNICIAN)
    async def maintained(client: Client, params: dict[str, Any], who: str | None) -> Any:
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
