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
from venue.desk.accounts.sessions import CSRF_FIELD
from venue.desk.faults.faultwords import of_incident
from venue.desk.faults.incidents import Incidents
from venue.desk.faults.notify import Notifier
from venue.desk.web.keys import CONFIG, FLEET, NAV
from venue.desk.web.login import LOGOUT_PATH, OFFICE, staff_of
from venue.desk.web.page import escaped, page, render

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


def _steps(items: list[str]) -> str:
    return "".join(f"<li>{escape(item)}</li>" for item in items)


def _row(incident: dict[str, Any], csrf: str, acknowledge_word: str) -> str:
    words = of_incident(incident)
    ack = ""
    # Only an incident still open asks to be acknowledged: one the table cleared by
    # itself needs nobody (its row says so).
    if incident["acked"] is None and incident["cleared"] is None:
        ack = (f'<form method="post" action="/api/incidents/{incident["id"]}/ack">'
               f'<input type="hidden" name="{CSRF_FIELD}" value="{csrf}">'
               f'<button type="submit">{acknowledge_word}</button></form>')
    w = escaped(cause=_("Cause"), remedy=_("Remedy"))
    details = ""
    if words["causes"] or words["remedy"]:
        details = (f'<details><summary>{w["cause"]} · {w["remedy"]}</summary>'
                   f'<p class="label">{w["cause"]}</p><ul>{_steps(words["causes"])}</ul>'
                   f'<p class="label">{w["remedy"]}</p><ol>{_steps(words["remedy"])}</ol>'
                   "</details>")
    open_ = incident["cleared"] is None and incident["acked"] is None
    return (f'<tr data-incident="{incident["id"]}" class="{"open" if open_ else "closed"}">'
            f'<td>{escape(incident["table_id"])}</td>'
            f'<td class="code">{escape(incident["code"] or "")}</td>'
            f'<td><span class="summary">{escape(words["summary"])}</span>{details}</td>'
            f'<td>{_clock(incident["opened"])}</td>'
            f'<td>{escape(state_of(incident))}</td><td>{ack}</td></tr>')


@page
async def incidents_page(request: web.Request, lang: str) -> web.Response:
    session = staff_of(request)
    assert session is not None
    csrf = escape(session.csrf)
    acknowledge_word = escape(_("Acknowledge"))
    rows = [_row(incident, csrf, acknowledge_word)
            for incident in request.app[NOTIFIER].incidents.listed()]
    heads = "".join(f"<th>{escape(_(h))}</th>" for h in (
        N_("Table"), N_("Code"), N_("Fault"), N_("Since"), N_("State"), ""))
    title = _("Incidents")
    none = _("No incidents.")
    log_out = _("Log out {name}").format(name=session.name)
    empty = f"<p>{escape(none)}</p>" if not rows else ""
    body = (f"<h2>{escape(title)}</h2>{empty}"
            f'<div class="scroll"><table class="sheet incidents"><thead><tr>{heads}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<form class="out" method="post" action="{LOGOUT_PATH}">'
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
    fleet.on_status.append(notifier.status)
    fleet.on_avail.append(notifier.avail)
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
