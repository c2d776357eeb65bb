"""Usage per table and per day from the hand records the venue holds (and has
acknowledged), and the CSV a venue bills from."""

from __future__ import annotations

import datetime
import time
from html import escape
from typing import Any

from aiohttp import web

from firmware.i18n import N_, _
from venue.desk.accounts.sessions import CSRF_FIELD
from venue.desk.office import Office
from venue.desk.tables.store import amount, day_of, records_csv, usage_csv
from venue.desk.web.keys import NAV, STORE
from venue.desk.web.login import OFFICE, remote, staff_of
from venue.desk.web.page import escaped, page, render

MAX_DAYS = 366
PRICE = "price_per_hour"
MAX_PRICE = 100_000.0
REFUSED = "refused"       # the query key of a form the usage page refused


def setup(app: web.Application) -> None:
    app.router.add_get("/usage", usage_page)
    app.router.add_get("/api/usage", usage_json)
    app.router.add_get("/api/usage.csv", usage_file)
    app.router.add_get("/api/records.csv", records_file)
    app.router.add_post("/usage/price", set_price)
    app[NAV].append(("/usage", N_("Usage")))


def price(office: Office) -> float:
    """The hourly price staff set on the usage page (0: none set)."""
    try:
        return float(office.setting(PRICE) or 0.0)
    except ValueError:
        return 0.0


async def set_price(request: web.Request) -> web.StreamResponse:
    """The usage page's price form (the guard checked the session and its CSRF token)."""
    session = staff_of(request)
    assert session is not None
    form = await request.post()
    try:
        value = float(str(form.get(PRICE, "")).strip().replace(",", "."))
    except ValueError:
        value = -1.0
    back = str(form.get("back", "/usage"))
    back = back if back.startswith("/usage") else "/usage"
    if not 0.0 <= value <= MAX_PRICE:       # NaN, infinity, negative: kept as it was, said
        raise web.HTTPSeeOther(back + ("&" if "?" in back else "?") + f"{REFUSED}={PRICE}")
    request.app[OFFICE].set_setting(PRICE, f"{value:.2f}")
    request.app[OFFICE].log("usage.price", who=session.name, remote=remote(request),
                            price_per_hour=round(value, 2))
    raise web.HTTPSeeOther(back)


class BadRange(Exception):
    pass


def days(request: web.Request) -> tuple[str, str]:
    """`from` and `to` (YYYY-MM-DD, inclusive) from the query; today by default."""
    today = day_of(time.time())
    first = request.query.get("from") or request.query.get("day") or today
    last = request.query.get("to") or first
    try:
        start, end = (datetime.date.fromisoformat(d) for d in (first, last))
    except ValueError:
        raise BadRange(_("dates are YYYY-MM-DD, as {today}").format(today=today)) from None
    if end < start:
        raise BadRange(_("“to” {last} is before “from” {first}").format(first=first,
                                                                        last=last))
    if (end - start).days >= MAX_DAYS:
        raise BadRange(_("at most {n} days at a time").format(n=MAX_DAYS))
    return start.isoformat(), end.isoformat()


def _bad(exc: BadRange) -> web.Response:
    return web.Response(status=400, text=str(exc) + "\n", charset="utf-8")


async def usage_json(request: web.Request) -> web.Response:
    try:
        first, last = days(request)
    except BadRange as exc:
        return _bad(exc)
    store = request.app[STORE]
    return web.json_response({"from": first, "to": last, "usage": store.usage(first, last),
                              "conflicts": store.conflicts(first, last)})


def _attachment(text: str, name: str) -> web.Response:
    # A BOM: spreadsheets on the venue's PC then read Chinese booking ids right.
    return web.Response(body=("\ufeff" + text).encode(), content_type="text/csv",
                        charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def usage_file(request: web.Request) -> web.Response:
    try:
        first, last = days(request)
    except BadRange as exc:
        return _bad(exc)
    return _attachment(usage_csv(request.app[STORE].usage(first, last),
                                 price(request.app[OFFICE])),
                       f"usage-{first}-{last}.csv")


async def records_file(request: web.Request) -> web.Response:
    try:
        first, last = days(request)
    except BadRange as exc:
        return _bad(exc)
    return _attachment(records_csv(request.app[STORE].records(first, last)),
                       f"hands-{first}-{last}.csv")


@page
async def usage_page(request: web.Request, lang: str) -> web.Response:
    try:
        first, last = days(request)
        problem = ""
    except BadRange as exc:
        first = last = day_of(time.time())
        problem = f'<p class="problem" role="alert">{escape(str(exc))}</p>'
    if request.query.get(REFUSED) == PRICE:
        problem += ('<p class="problem" role="alert">' + escape(
            _("not saved: a price per hour is a number from 0 to {most}").format(
                most=f"{MAX_PRICE:.0f}")) + "</p>")
    rows = request.app[STORE].usage(first, last)
    per_hour = price(request.app[OFFICE])
    query = f"from={first}&amp;to={last}"
    cells = "".join(
        f"<tr><td>{escape(r['day'])}</td><td>{escape(r['table'])}</td>"
        f"<td class=n>{r['hands']}</td><td class=n>{r['play_s'] / 3600:.2f}</td>"
        f"<td class=n>{r['bookings']}</td>"
        f"<td class=n>{amount(r['play_s'], per_hour):.2f}</td></tr>" for r in rows)
    hands = sum(r["hands"] for r in rows)
    hours = sum(r["play_s"] for r in rows) / 3600
    money = sum(amount(r["play_s"], per_hour) for r in rows)
    w = escaped(empty=_("no hands in these days"), first=_("from"), last=_("to"),
                show=_("Show"), per_day=_("CSV per table and day"),
                every_hand=_("CSV of every hand"), day=_("Day"), table=_("Table"),
                hands=_("Hands"), hours=_("Hours played"), bookings=_("Bookings"),
                total=_("Total"), amount=_("Amount"), price=_("Price per hour"),
                save=_("Save"))
    session = staff_of(request)
    csrf = escape(session.csrf) if session is not None else ""
    empty = f'<tr><td colspan=6>{w["empty"]}</td></tr>'
    body = (
        f"{problem}<form class=range method=get action=/usage>"
        f'<label>{w["first"]} <input type=date name=from value="{first}"></label> '
        f'<label>{w["last"]} <input type=date name=to value="{last}"></label> '
        f'<button>{w["show"]}</button></form>'
        f'<form class="range price" method=post action="/usage/price">'
        f'<input type=hidden name="{CSRF_FIELD}" value="{csrf}">'
        f'<input type=hidden name=back value="/usage?{query}">'
        f'<label>{w["price"]} <input name="{PRICE}" type=number min=0 '
        f'max={MAX_PRICE:.0f} step=0.01 inputmode=decimal value="{per_hour:.2f}"></label> '
        f'<button>{w["save"]}</button></form>'
        f'<p class=files><a href="/api/usage.csv?{query}" download>'
        f'{w["per_day"]}</a> · '
        f'<a href="/api/records.csv?{query}" download>{w["every_hand"]}</a></p>'
        f'<div class="scroll"><table class=usage><thead><tr><th>{w["day"]}</th>'
        f'<th>{w["table"]}</th><th>{w["hands"]}</th>'
        f'<th>{w["hours"]}</th><th>{w["bookings"]}</th><th>{w["amount"]}</th></tr></thead>'
        f"<tbody>{cells or empty}</tbody>"
        f'<tfoot><tr><th colspan=2>{w["total"]}</th><td class=n>{hands}</td>'
        f"<td class=n>{hours:.2f}</td><td></td><td class=n>{money:.2f}</td></tr></tfoot>"
        "</table></div>")
    return render(request, _("Usage"), _conflicts(request.app[STORE].conflicts(first, last))
                  + body, lang)


def _more(conflict: dict[str, Any]) -> str:
    """Past the few kept aside for a hand, how many more were only counted."""
    if not conflict.get("more"):
        return ""
    return escape(" " + _("(and {count} more for this hand, only counted)").format(
        count=conflict["more"]))


def _conflicts(found: list[dict[str, Any]]) -> str:
    """Records that arrived for a hand held already, with other fields: shown, never
    dropped (the first is billed until staff look)."""
    if not found:
        return ""
    w = escaped(title=_("Hand records in conflict: the first is billed, the other kept "
                        "aside"), table=_("Table"), record=_("Boot / seq"),
                held=_("Held"), aside=_("Kept aside"))
    rows = "".join(
        f"<tr><td>{escape(c['table'])}</td><td>{c['boot']} / {c['seq']}</td>"
        f"<td>{escape(_hand(c['held']))}</td><td>{escape(_hand(c['aside']))}{_more(c)}</td></tr>"
        for c in found[:200])
    return (f'<section class="problem conflicts" role="alert"><h2>{w["title"]}</h2>'
            f'<table class=usage><thead><tr><th>{w["table"]}</th><th>{w["record"]}</th>'
            f'<th>{w["held"]}</th><th>{w["aside"]}</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></section>")


def _hand(record: dict[str, Any]) -> str:
    start, duration = record.get("start"), record.get("duration_s")
    shown = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(start)) \
        if isinstance(start, int | float) else "?"
    return f"{shown}, {duration if duration is not None else '?'} s, " \
        f"{record.get('booking_id') or '—'}, {record.get('ended') or ''}"
