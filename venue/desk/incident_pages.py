"""The incidents page and API: what faulted, who was paged, and acknowledging it.

The notifier runs beside the app (started and stopped with it) and hears the tables'
faults through the Fleet. Acknowledging is a POST with the staff session's CSRF token:
from the page's form, or `POST /api/incidents/{id}/ack` with `X-CSRF-Token`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from html import escape
from typing import Any

from aiohttp import web

from firmware.i18n import N_, _, current
from venue.desk.incidents import Incidents
from venue.desk.keys import CONFIG, FLEET, NAV
from venue.desk.login import LOGOUT_PATH, OFFICE, staff_of
from venue.desk.notify import Notifier
from venue.desk.page import page, render
from venue.desk.sessions import CSRF_FIELD

NOTIFIER = web.AppKey("notifier", Notifier)
PATH = "/incidents"


def state_of(incident: dict[str, Any]) -> str:
    if incident["acked"] is not None:
        return _("acknowledged by {name}").format(name=incident["acked_by"])
    if incident["cleared"] is not None:
        return _("cleared") if incident["paged"] is not None else _("cleared before paging")
    if incident["escalated"] is not None:
        return _("escalated")
    return _("paged") if incident["paged"] is not None else _("waiting (debounce)")


def _clock(wall: float | None) -> str:
    return "" if wall is None else time.strftime("%m-%d %H:%M:%S", time.localtime(wall))


@page
async def incidents_page(request: web.Request, lang: str) -> web.Response:
    session = staff_of(request)
    assert session is not None
    csrf = escape(session.csrf)
    rows = []
    acknowledge_word = escape(_("Acknowledge"))
    for incident in request.app[NOTIFIER].incidents.listed():
        ack = ""
        if incident["acked"] is None:
            ack = (f'<form method="post" action="/api/incidents/{incident["id"]}/ack">'
                   f'<input type="hidden" name="{CSRF_FIELD}" value="{csrf}">'
                   f'<button type="submit">{acknowledge_word}</button></form>')
        rows.append(
            f'<tr data-incident="{incident["id"]}"><td>{escape(incident["table_id"])}</td>'
            f'<td>{escape(incident["code"] or "")}</td>'
            f'<td>{escape(incident["summary"] or "")}</td>'
            f'<td>{_clock(incident["opened"])}</td><td>{escape(state_of(incident))}</td>'
            f"<td>{ack}</td></tr>")
    heads = "".join(f"<th>{escape(_(h))}</th>" for h in (
        N_("Table"), N_("Code"), N_("Fault"), N_("Since"), N_("State"), ""))
    title = _("Incidents")
    none = _("No incidents.")
    log_out = _("Log out {name}").format(name=session.name)
    empty = f"<p>{escape(none)}</p>" if not rows else ""
    body = (f"<h2>{escape(title)}</h2>{empty}"
            f'<table class="incidents"><thead><tr>{heads}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>'
            f'<form method="post" action="{LOGOUT_PATH}">'
            f'<input type="hidden" name="{CSRF_FIELD}" value="{csrf}">'
            f'<button type="submit">{escape(log_out)}</button></form>')
    return render(request, title, body, lang)


async def incidents_api(request: web.Request) -> web.Response:
    return web.json_response({"incidents": request.app[NOTIFIER].incidents.listed()})


async def acknowledge(request: web.Request) -> web.StreamResponse:
    session = staff_of(request)
    assert session is not None
    try:
        incident = int(request.match_info["id"])
    except ValueError:
        raise web.HTTPNotFound() from None
    notifier = request.app[NOTIFIER]
    done = notifier.incidents.acknowledge(incident, session.name, notifier.wall())
    if request.content_type == "application/json" or "X-CSRF-Token" in request.headers:
        return web.json_response({"id": incident, "acknowledged": done},
                                 status=200 if done else 404)
    raise web.HTTPSeeOther(PATH)


def setup(app: web.Application) -> None:
    config = app[CONFIG]
    section = config.section("notify")
    office = app[OFFICE]
    notifier = Notifier(Incidents(office, section), office, section,
                        config.desk.language or current(), section.dashboard_url)
    app[NOTIFIER] = notifier
    fleet = app[FLEET]
    fleet.on_fault.append(notifier.fault)
    fleet.on_faults.append(notifier.faults)
    app[NAV].append((PATH, N_("Incidents")))
    app.router.add_get(PATH, incidents_page)
    app.router.add_get("/api/incidents", incidents_api)
    app.router.add_post("/api/incidents/{id}/ack", acknowledge)

    async def running(app: web.Application) -> AsyncIterator[None]:
        task = asyncio.get_running_loop().create_task(notifier.run())
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await notifier.drain()
    app.cleanup_ctx.append(running)
