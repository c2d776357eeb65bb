"""The booking API a mini-program's back end calls: enable and disable a table.

`POST /api/tables/{t}/enable {for_s, booking_id}` and `POST /api/tables/{t}/disable
{reason}`, with an integrator's API key (`Authorization: Bearer mjk_…`) or a staff
session and its CSRF token. The desk signs the command with the venue's key
(firmware/service/signed.py checks it at the table), publishes it on the table's `cmd` topic
and waits a few seconds for the table's `cmd/ack`: the answer says whether the table
took it. Every command and every refusal is in the desk's log, with who asked.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import OrderedDict
from typing import Any

from aiohttp import web

from firmware.i18n import N_, _, language
from venue.desk.office import Office
from venue.desk.sections import BookingSection
from venue.desk.tables.link import NotConnected
from venue.desk.web.keys import CONFIG, FLEET, LINK
from venue.desk.web.login import (
    OFFICE,
    by_integrators,
    integrator_of,
    page_language,
    remote,
    staff_of,
)

# Whole strings (fullmatch: "$" alone lets a trailing newline through).
TABLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")      # never '/', '+' or '#'
BOOKING = re.compile(r"[\w.:-]{1,64}")
MAX_REASON_CHARS = 200
EARLY_ACKS = 256        # acks heard before their command's sender asked for them


class Acks:
    """Futures of the commands waiting for their table's `cmd/ack`."""

    def __init__(self) -> None:
        # By (table, command id): only the table a command was for answers it (a
        # table that could read another's commands cannot say it took them).
        self.waiting: dict[tuple[str, str], asyncio.Future[dict[str, Any]]] = {}
        # The table may answer before the publish returns (its ack races the PUBACK).
        self.early: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()

    def expect(self, table: str, cmd_id: str) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        early = self.early.pop((table, cmd_id), None)
        if early is not None:
            future.set_result(early)
        else:
            self.waiting[table, cmd_id] = future
        return future

    def heard(self, table: str, ack: Any) -> None:
        if not isinstance(ack, dict):
            return
        key = (table, str(ack.get("id")))
        future = self.waiting.pop(key, None)
        if future is None:
            self.early[key] = ack
            while len(self.early) > EARLY_ACKS:
                self.early.popitem(last=False)
        elif not future.done():
            future.set_result(ack)

    def forget(self, table: str, cmd_id: str) -> None:
        self.waiting.pop((table, cmd_id), None)


class BadRequest(Exception):
    pass


class Booking:
    def __init__(self, link: Any, fleet: Any, acks: Acks, office: Office,
                 section: BookingSection) -> None:
        self.link = link                # venue.desk.tables.link.BrokerLink: signs and publishes
        self.fleet = fleet
        self.acks = acks
        self.office = office
        self.section = section

    async def _body(self, request: web.Request) -> dict[str, Any]:
        if request.content_type == "application/json":
            try:
                body = json.loads(await request.text())
            except (ValueError, RecursionError):    # RecursionError: nested too deep
                raise BadRequest(N_("the body is not JSON")) from None
        else:
            body = dict(await request.post())
        if not isinstance(body, dict):
            raise BadRequest(N_("the body must be a JSON object"))
        return body

    def _enable_args(self, body: dict[str, Any]) -> dict[str, Any]:
        for_s = body.get("for_s")
        if isinstance(for_s, str):          # from a form
            try:
                for_s = float(for_s)
            except ValueError:
                for_s = None
        if not isinstance(for_s, int | float) or isinstance(for_s, bool) or \
                not 1 <= for_s <= self.section.max_for_s:
            raise BadRequest(N_("for_s must be a number of seconds from 1 to {most:g}"))
        booking_id = body.get("booking_id")
        if not isinstance(booking_id, str) or not BOOKING.fullmatch(booking_id):
            raise BadRequest(N_("booking_id must be 1–64 letters, digits, '.', ':', '_' "
                                "or '-'"))
        return {"for_s": for_s, "booking_id": booking_id}

    def _disable_args(self, body: dict[str, Any]) -> dict[str, Any]:
        reason = body.get("reason", "")
        if not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS or \
                not reason.isprintable():
            raise BadRequest(N_("reason must be text of at most 200 characters"))
        return {"reason": reason or "venue"}

    async def handle(self, request: web.Request, name: str) -> web.Response:
        table = request.match_info["table"]
        session = staff_of(request)
        who = integrator_of(request) or (session.name if session else None)
        by = "integrator" if integrator_of(request) else "staff"
        lang = page_language(request)
        try:
            if not TABLE.fullmatch(table):
                raise BadRequest(N_("not a table name"))
            body = await self._body(request)
            args = self._enable_args(body) if name == "enable" else self._disable_args(body)
        except BadRequest as bad:
            self.office.log("booking.bad_request", who=who, remote=remote(request),
                            table=table[:64], command=name, why=str(bad))
            with language(lang):
                text = _(str(bad)).format(most=self.section.max_for_s)
            return web.json_response({"error": text}, status=400)
        known = self.fleet.tables.get(table)
        if known is None or not known.seen:
            # Refused at once: a command for a table the venue never heard of would wait
            # for an ack nobody sends, and "202 sent" read as if it might work.
            self.office.log("booking.unknown_table", who=who, remote=remote(request),
                            table=table, command=name)
            with language(lang):
                text = _("no table {table} at this venue: it has never been heard on the "
                         "broker (check the id, and that its agent runs)").format(table=table)
            return web.json_response({"error": text}, status=404)
        try:
            if self.link is None:
                raise NotConnected("no broker link")
            envelope = await self.link.command(table, name, args,
                                               valid_s=self.section.command_valid_s)
        except (NotConnected, RuntimeError) as exc:
            self.office.log("booking.unsent", who=who, remote=remote(request), table=table,
                            command=name, error=str(exc))
            with language(lang):
                text = _("the venue's broker is not reachable: nothing was sent")
            return web.json_response({"error": text}, status=503)
        cmd_id = envelope["cmd"]["id"]
        future = self.acks.expect(table, cmd_id)
        self.office.log("booking.sent", who=who, remote=remote(request), by=by, table=table,
                        command=name, id=cmd_id, **args)
        try:
            ack = await asyncio.wait_for(future, self.section.ack_wait_s)
        except TimeoutError:
            self.acks.forget(table, cmd_id)
            # Sent, unanswered: the table is off or away. The command expires by itself.
            return web.json_response({"id": cmd_id, "table": table, "sent": True,
                                      "ack": None}, status=202)
        accepted = bool(ack.get("accepted"))
        self.office.log("booking.acked", who=who, table=table, command=name, id=cmd_id,
                        accepted=accepted, why=ack.get("why"))
        if accepted and name == "enable":
            self.fleet.book(table, args["booking_id"], time.time() + args["for_s"])
        elif accepted:
            self.fleet.book(table, None, None)
        answer = {"id": cmd_id, "table": table, "sent": True, "ack": ack}
        return web.json_response(answer, status=200 if accepted else 409)


def setup(app: web.Application) -> None:
    acks = Acks()
    app[FLEET].on_ack.append(acks.heard)
    booking = Booking(app[LINK], app[FLEET], acks, app[OFFICE], app[CONFIG].section("booking"))

    @by_integrators
    async def enable(request: web.Request) -> web.Response:
        return await booking.handle(request, "enable")

    @by_integrators
    async def disable(request: web.Request) -> web.Response:
        return await booking.handle(request, "disable")

    app.router.add_post("/api/tables/{table}/enable", enable)
    app.router.add_post("/api/tables/{table}/disable", disable)
