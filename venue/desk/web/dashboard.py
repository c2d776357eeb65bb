"""The grid of tables: one tile each, coloured by state, live by Server-Sent Events.

The page carries the tiles as they are at load, so they paint without waiting for the
stream; the stream (`/events`) then sends them all again (also after every reconnect)
and each tile that changes, as soon as it changes. A page that reads slowly gets the
newest state of each table it missed, never a backlog.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from aiohttp import web

from firmware.i18n import N_, _
from venue.desk.faults.faultwords import summaries
from venue.desk.tables.fleet import STATES, Fleet
from venue.desk.web.keys import CONFIG, FLEET, NAV
from venue.desk.web.login import STREAMS, staff_of
from venue.desk.web.page import escaped, page, render, script_json, words_block

PING_S = 15.0       # a comment this often: the page knows a silent stream is dead
# A stream waits this long after a change for the others of a burst: 100 tables
# changing each second are ~20 writes a second per page, not 100.
GATHER_S = 0.05
HOURS = (1, 2, 3, 4, 5, 6, 8)   # the counter's choices of how long a table is opened for
STATE_WORDS = {"idle": N_("idle"), "playing": N_("playing"), "booked": N_("booked"),
               "fault": N_("fault"), "offline": N_("offline")}


def setup(app: web.Application) -> None:
    app.router.add_get("/", dashboard)
    app.router.add_get("/events", events)
    app.router.add_get("/api/tables", tables)
    app[NAV].append(("/", N_("Tables")))
    app.on_shutdown.append(_end_streams)


async def _end_streams(app: web.Application) -> None:
    app[FLEET].close_watches()


def snapshot(app: web.Application) -> dict[str, Any]:
    fleet = app[FLEET]
    return {"now": fleet.now(), "tiles": fleet.tiles()}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@page
async def dashboard(request: web.Request, lang: str) -> web.Response:
    words = {"states": {state: _(word) for state, word in STATE_WORDS.items()},
             "hands": _("hands {n}"), "hours": _("{h} h"),
             "age_s": _("{n} s"), "age_min": _("{n} min"), "age_h": _("{n} h {m} min"),
             "more_faults": _("+{n}"),
             "open_console": _("open the console of table {table}"),
             "no_console": _("table {table}: no console address"),
             "live": _("live"), "reconnecting": _("reconnecting…"),
             # The fault's summary in the page's language (the tiles carry its id):
             # shown on the tile, not in a tooltip a phone never shows.
             "summaries": summaries(), "estop": _("e-stop pressed"),
             "opened": _("table {table} open for {booking}"),
             "closed": _("table {table} closed"),
             "no_answer": _("sent to table {table}: no answer yet (is it on?)"),
             "refused": _("table {table} refused: {why}"),
             "need_booking": _("give the booking a name"),
             "bad_booking": _("booking name: 1–64 letters, digits, . : _ - (no other signs)"),
             "failed": _("not sent: {why}")}
    legend = "".join(
        f'<li class="s-{state}"><span class="dot"></span>{escape(_(STATE_WORDS[state]))} '
        f'<b data-count="{state}">0</b></li>' for state in STATES)
    w = escaped(connecting=_("connecting…"), tables=_("Tables"),
                noscript=_("The live grid needs JavaScript; the tables as JSON: "))
    tiles = script_json(snapshot(request.app))
    body = (
        f"{counter(request)}"
        f'<div class="bar"><ul class="legend">{legend}</ul>'
        f'<span id="live" class="live" role="status">{w["connecting"]}</span></div>'
        f'<section id="grid" class="grid" aria-label="{w["tables"]}"></section>'
        f'<noscript>{w["noscript"]}'
        '<a href="/api/tables">/api/tables</a></noscript>'
        f'<script type="application/json" id="snapshot">{tiles}</script>'
        f"{words_block(words)}")
    return render(request, _("Tables"), body, lang, scripts=("desk.js",))


def counter(request: web.Request) -> str:
    """The counter's form: open a table for a booking and a time, or close it (the
    booking API, with the staff session's CSRF token; no curl)."""
    session = staff_of(request)
    if session is None:
        return ""
    fleet = request.app[FLEET]
    most_h = request.app[CONFIG].section("booking").max_for_s / 3600
    tables = "".join(f'<option value="{escape(t)}">{escape(t)}</option>' for t in fleet.ids())
    hours = "".join(f'<option value="{h * 3600}"{" selected" if h == 2 else ""}>'
                    f'{escape(_("{h} h").format(h=h))}</option>' for h in HOURS if h <= most_h)
    w = escaped(title=_("Counter"), table=_("Table"), booking=_("Booking name"),
                hint=_("a name or number: letters, digits, . : _ -"), length=_("For"),
                open=_("Open"), close=_("Close"))
    return (
        f'<form id="counter" class="counter" data-csrf="{escape(session.csrf)}" '
        f'aria-label="{w["title"]}"><b>{w["title"]}</b>'
        f'<label>{w["table"]} <select name="table" required>{tables}</select></label>'
        f'<label>{w["booking"]} <input name="booking_id" maxlength="64" '
        f'placeholder="{w["hint"]}" autocomplete="off"></label>'
        f'<label>{w["length"]} <select name="for_s">{hours}</select></label>'
        f'<button type="submit" name="do" value="enable" class="primary">{w["open"]}</button>'
        f'<button type="submit" name="do" value="disable">{w["close"]}</button>'
        '<output class="said" role="status"></output></form>')


async def tables(request: web.Request) -> web.Response:
    return web.json_response(snapshot(request.app), dumps=_json)


def encoded(fleet: Fleet, table: str) -> bytes:
    """One tile's event, built once per change of the table however many pages
    stream it (with the venue's clock of when it was built)."""
    version = fleet.versions.get(table, 0)
    hit = fleet.encoded.get(table)
    if hit is None or hit[0] != version:
        text = f"event: tile\ndata: {_json({**fleet.tile(table), 'now': fleet.now()})}\n\n"
        hit = fleet.encoded[table] = (version, text.encode())
    return hit[1]


async def events(request: web.Request) -> web.StreamResponse:
    """The tiles, then each change as it happens (text/event-stream); a few streams
    per staff session and per address (venue/desk/accounts/throttle.py)."""
    session = staff_of(request)
    with request.app[STREAMS].slot(session.csrf if session else "", request.remote or "") \
            as room:
        if not room:
            return web.json_response({"error": _("too many live pages open: close some")},
                                     status=429, headers={"Retry-After": "5"})
        return await _events(request)


async def _events(request: web.Request) -> web.StreamResponse:
    fleet = request.app[FLEET]
    response = web.StreamResponse(headers={
        "Content-Type": "text/event-stream", "Cache-Control": "no-store",
        "X-Accel-Buffering": "no"})
    watch = fleet.watch()
    try:
        await response.prepare(request)
        await response.write(
            f"retry: 1000\nevent: tiles\ndata: {_json(snapshot(request.app))}\n\n".encode())
        while True:
            changed = await watch.changed(PING_S, GATHER_S)
            if watch.closed:
                break
            if not changed:
                await response.write(b"event: ping\ndata:\n\n")
                continue
            await response.write(b"".join(encoded(fleet, t) for t in changed))
    except ConnectionResetError:
        pass                # the page went away
    finally:
        watch.close()
    return response
