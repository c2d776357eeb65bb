"""The desk behind staff login: sessions, CSRF tokens, lockout, integrators' keys.

Each refusal is checked twice: what the caller gets, and the row in the desk's log."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from tests.venue.watch import VenueKey
from venue.desk.accounts.sessions import COOKIE, CSRF_HEADER
from venue.desk.config import parse
from venue.desk.tables.fleet import Fleet
from venue.desk.web.app import make_app
from venue.desk.web.keys import FLEET
from venue.desk.web.login import INTEGRATORS, OFFICE, STAFF
from venue.signing import sign

PASSWORD = "counter-password-1"
CONFIG = {"staff": {"lockout_failures": 3, "argon2_memory_kib": 64, "argon2_passes": 1}}


class FakeLink:
    """Signs like the broker link and answers as a table's agent would, at once."""

    def __init__(self, fleet: Fleet, accept: bool = True) -> None:
        self.fleet = fleet
        self.key = VenueKey()
        self.accept = accept
        self.sent: list[dict[str, Any]] = []

    async def command(self, table: str, name: str, args: dict[str, Any],
                      valid_s: float = 60.0) -> dict[str, Any]:
        now = time.time()
        envelope = sign(self.key.private, {"id": f"c{len(self.sent)}", "table": table,
                                           "name": name, "args": args, "key": "venue-1",
                                           "issued": now, "expires": now + valid_s})
        self.sent.append(envelope)
        ack = (b'{"id": "%s", "accepted": true, "result": {"open": true}}' if self.accept
               else b'{"id": "%s", "accepted": false, "why": "bad arguments"}')
        # The ack comes back before the publish returns, as it may on a fast broker.
        self.fleet.feed(f"mjt/v1/{table}/cmd/ack", ack % envelope["cmd"]["id"].encode())
        return envelope


def run(test: Callable[[TestClient, Any], Awaitable[None]], raw: dict[str, Any] | None = None,
        accept: bool = True) -> None:
    async def main() -> None:
        fleet = Fleet()
        for table in ("t1", "t2", "t3"):        # tables the venue has heard of
            fleet.feed(f"mjt/v1/{table}/avail", b"online")
        link = FakeLink(fleet, accept)
        app = make_app(parse({**CONFIG, **(raw or {})}, "venue.toml"), fleet, link=link)
        app[OFFICE].echo = False
        app[STAFF].add("li", PASSWORD)
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            await test(client, app)
    asyncio.run(main())


async def login(client: TestClient, name: str = "li", password: str = PASSWORD) -> Any:
    form = await client.get("/login")
    token = re.search(r'name="csrf" value="([^"]+)"', await form.text()).group(1)
    return await client.post("/login", data={"name": name, "password": password,
                                              "csrf": token, "next": "/"},
                             allow_redirects=False)


def logged(app: Any, kind: str) -> list[dict[str, Any]]:
    return app[OFFICE].rows(kind)


def test_every_page_and_api_needs_a_staff_login() -> None:
    async def test(client: TestClient, app: Any) -> None:
        page = await client.get("/", headers={"Accept": "text/html"}, allow_redirects=False)
        assert page.status == 303 and page.headers["Location"].startswith("/login?next=")
        for path in ("/api/tables", "/events", "/api/incidents", "/incidents?x=1",
                     "/static/desk.js"):
            assert (await client.get(path)).status == 401, path
        login_page = await client.get("/login")
        assert login_page.status == 200 and "password" in await login_page.text()
    run(test)


def test_a_login_sets_an_httponly_samesite_strict_session_cookie() -> None:
    async def test(client: TestClient, app: Any) -> None:
        answer = await login(client)
        assert answer.status == 303 and answer.headers["Location"] == "/"
        cookie = next(v for v in answer.headers.getall("Set-Cookie")
                      if v.startswith(f"{COOKIE}="))
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        assert (await client.get("/api/tables")).status == 200
        assert [r["who"] for r in logged(app, "staff.login")] == ["li"]
    run(test)


def test_a_post_without_the_csrf_token_is_refused_and_logged() -> None:
    async def test(client: TestClient, app: Any) -> None:
        await login(client)
        session = await (await client.get("/api/session")).json()
        body = {"for_s": 600, "booking_id": "B-1"}
        missing = await client.post("/api/tables/t1/enable", json=body)
        wrong = await client.post("/api/tables/t1/enable", json=body,
                                  headers={CSRF_HEADER: session["csrf"][:-1] + "x"})
        assert (missing.status, wrong.status) == (403, 403)
        assert "CSRF" in (await missing.json())["error"]
        rows = logged(app, "csrf.refused")
        assert [(r["who"], r["detail"]["given"]) for r in rows] == [("li", False),
                                                                    ("li", True)]
        elsewhere = await client.post("/api/tables/t1/enable", json=body, headers={
            CSRF_HEADER: session["csrf"], "Origin": "http://evil.example"})
        assert elsewhere.status == 403
        assert logged(app, "csrf.refused")[-1]["detail"]["origin"] == "http://evil.example"
        good = await client.post("/api/tables/t1/enable", json=body,
                                 headers={CSRF_HEADER: session["csrf"]})
        assert good.status == 200 and (await good.json())["ack"]["accepted"] is True
        sent = [r["detail"] for r in logged(app, "booking.sent")]
        assert [(s["table"], s["command"], s["booking_id"]) for s in sent] == [
            ("t1", "enable", "B-1")]
    run(test)


def test_a_login_form_without_its_csrf_token_is_refused_and_logged() -> None:
    async def test(client: TestClient, app: Any) -> None:
        answer = await client.post("/login", data={"name": "li", "password": PASSWORD},
                                   allow_redirects=False)
        assert answer.status == 403 and COOKIE not in answer.cookies
        assert [r["who"] for r in logged(app, "csrf.refused")] == ["li"]
    run(test)


def test_a_locked_out_name_is_refused_even_with_its_password_and_logged() -> None:
    async def test(client: TestClient, app: Any) -> None:
        statuses = [(await login(client, password="guess-guess-guess")).status
                    for _attempt in range(3)]
        answer = await login(client)
        assert statuses == [401, 401, 401] and answer.status == 401
        assert "locked" in await answer.text()
        assert COOKIE not in answer.cookies
        whys = [r["detail"]["why"] for r in logged(app, "staff.refused")]
        assert whys == ["wrong", "wrong", "locked", "locked"]
        assert [r["who"] for r in logged(app, "staff.locked")] == ["li"]
    run(test)


def test_an_expired_session_is_refused_and_logged() -> None:
    async def test(client: TestClient, app: Any) -> None:
        await login(client)
        assert (await client.get("/api/tables")).status == 200
        # Two hours without a request (the default idle limit is one).
        app[OFFICE].db.execute("UPDATE sessions SET used = used - 7200")
        answer = await client.get("/api/tables")
        assert answer.status == 401 and "expired" in (await answer.json())["error"]
        assert [r["who"] for r in logged(app, "session.expired")] == [None]
        assert (await client.get("/api/tables")).status == 401   # gone for good
    run(test)


def test_a_forged_or_revoked_api_key_is_refused_and_logged() -> None:
    async def test(client: TestClient, app: Any) -> None:
        key = app[INTEGRATORS].issue("miniapp")
        body = {"for_s": 3600, "booking_id": "WX-20261201-7"}
        forged = key[:-3] + "abc"
        answers = []
        for presented in (forged, "mjk_nosuchkeyid_secret", "not a key"):
            answer = await client.post("/api/tables/t3/enable", json=body,
                                       headers={"Authorization": f"Bearer {presented}"})
            answers.append(answer.status)
        assert answers == [401, 401, 401]
        rows = logged(app, "integrator.refused")
        assert len(rows) == 3 and rows[0]["detail"]["key_id"] == key.split("_")[1]
        assert key.split("_", 2)[2] not in str(rows)        # never the secret
        good = await client.post("/api/tables/t3/enable", json=body,
                                 headers={"Authorization": f"Bearer {key}"})
        assert good.status == 200
        assert [r["who"] for r in logged(app, "booking.sent")] == ["miniapp"]
        # A key opens the booking API only, never a staff page.
        other = await client.get("/api/tables", headers={"Authorization": f"Bearer {key}"})
        assert other.status == 401
        app[INTEGRATORS].revoke("miniapp")
        again = await client.post("/api/tables/t3/enable", json=body,
                                  headers={"Authorization": f"Bearer {key}"})
        assert again.status == 401 and len(logged(app, "integrator.refused")) == 5
    run(test)


def test_bad_bookings_are_refused_before_anything_is_signed() -> None:
    async def test(client: TestClient, app: Any) -> None:
        key = app[INTEGRATORS].issue("miniapp")
        auth = {"Authorization": f"Bearer {key}"}
        for path, body in (("/api/tables/t1/enable", {"for_s": -5, "booking_id": "B"}),
                           ("/api/tables/t1/enable", {"for_s": 600}),
                           ("/api/tables/t1/enable", {"for_s": 1e9, "booking_id": "B"}),
                           ("/api/tables/t+/enable", {"for_s": 600, "booking_id": "B"}),
                           ("/api/tables/t1/disable", {"reason": "x" * 500})):
            answer = await client.post(path, json=body, headers=auth)
            assert answer.status == 400, (path, body)
            assert (await answer.json())["error"]
        assert len(logged(app, "booking.bad_request")) == 5
        assert logged(app, "booking.sent") == []
    run(test)


def test_a_table_refusing_the_command_is_said_to_the_caller() -> None:
    async def test(client: TestClient, app: Any) -> None:
        key = app[INTEGRATORS].issue("miniapp")
        answer = await client.post("/api/tables/t1/disable", json={"reason": "closing"},
                                   headers={"Authorization": f"Bearer {key}"})
        assert answer.status == 409
        assert (await answer.json())["ack"]["why"] == "bad arguments"
    run(test, accept=False)


def test_the_incidents_page_speaks_the_readers_language() -> None:
    async def test(client: TestClient, app: Any) -> None:
        await login(client)
        app[FLEET].feed("mjt/v1/t9/event/fault", json.dumps(
            {"code": "E11", "id": "lid.not_lowering", "where": "motor.lid",
             "active": True}).encode())
        page = await client.get("/incidents", headers={"Accept-Language": "zh-CN,zh"})
        text = await page.text()
        assert page.status == 200 and "故障单" in text and "确认" in text and "t9" in text
        english = await (await client.get("/incidents",
                                          headers={"Accept-Language": "en"})).text()
        assert "Acknowledge" in english and "Log out li" in english
    run(test)


def test_enable_on_a_table_the_venue_never_heard_of_is_refused_at_once() -> None:
    # Before: the command was signed and sent, the desk waited its 5 s for an ack
    # nobody would send, and answered 202 "sent".
    async def test(client: TestClient, app: Any) -> None:
        await login(client)
        session = await (await client.get("/api/session")).json()
        started = time.monotonic()
        answer = await client.post("/api/tables/t99/enable",
                                   json={"for_s": 600, "booking_id": "B-1"},
                                   headers={CSRF_HEADER: session["csrf"]})
        assert answer.status == 404 and time.monotonic() - started < 2.0
        assert "t99" in (await answer.json())["error"]
        assert logged(app, "booking.sent") == []
        assert [r["detail"]["table"] for r in logged(app, "booking.unknown_table")] == ["t99"]
    run(test)
