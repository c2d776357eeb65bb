"""The phone console's HTTP server (aiohttp), run by the table's agent.

Read-only views (display, lamps, faults with cause and remedy, guided diagnosis)
for any address in `[venue] phone_networks`; test mode, self-tests and jog after a
technician logs in with the daemon's own login (sessions.py). Jog is hold-to-run:
the page says "still held" every HOLD_EVERY_S while the button is down, and the
daemon stops the motor on release, on silence (its own cap, firmware/api/hold.py)
and when this session's connection closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aiohttp import web

from firmware.api.client import (
    DIAGNOSE,
    FAULTS,
    INFO,
    JOG_HOLD,
    JOG_KEEP,
    JOG_MOTORS,
    JOG_STOP,
    SCORE,
    SUBSCRIBE,
    SYMPTOMS,
    TEST,
    TESTMODE,
    AsyncClient,
    ClientError,
)
from firmware.i18n import _, language
from mjtable_core.config import Config
from venue.agent.phone import guard, score, words
from venue.agent.phone.lockout import PhoneLockout
from venue.agent.phone.page import render
from venue.agent.phone.sessions import Session, Sessions, TooMany

STATIC = Path(__file__).resolve().parent / "static"
SESSION_COOKIE = "mjt_s"
LANG_COOKIE = "mjt_lang"
RETRY_S = 1.0
SWEEP_S = 10.0
FAULTS_EVERY_S = 1.0
MAX_BODY = 4096
# Connections to the daemon for open reads (no login) at once: the daemon allows one uid
# 16 (firmware/api/server.py MAX_PER_PEER), shared with the agent's own link, the status
# watch, the technicians' sessions and their logins; a burst from one page waits here.
PASSING = 4
# The technician's session a checked POST carries to its handler.
SESSION = web.RequestKey("session", Session)
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "img-src 'self'; connect-src 'self'; form-action 'self'; "
                               "base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def split_listen(text: str) -> tuple[str, int]:
    host, _sep, port = text.rpartition(":")
    return host.strip("[]"), int(port)


class PhoneConsole:
    def __init__(self, config: Config, socket: Path, listen: str | None = None) -> None:
        self.config = config
        self.socket = socket
        self.listen = config.venue.phone_listen if listen is None else listen
        self.networks = guard.networks(config.venue.phone_networks)
        self.default_lang = config.venue.language or config.display.language or "en"
        self.sessions = Sessions(socket)
        self.lockout = PhoneLockout()      # wrong tokens per phone (lockout.py)
        self.status: dict[str, Any] | None = None
        self._faults: dict[str, tuple[float, str, list[dict[str, Any]]]] = {}
        self._controls: dict[str, dict[str, Any]] = {}     # by language: see _controls_in
        self._tasks: list[asyncio.Task[None]] = []
        self._passing = asyncio.Semaphore(PASSING)
        self._runner: web.AppRunner | None = None
        self.address: tuple[str, int] | None = None

    # -- lifecycle -------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._gate], client_max_size=MAX_BODY)
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/favicon.ico", _no_icon)
        app.router.add_get("/api/view", self._view)
        for path, handler in (("/api/lang", self._lang), ("/api/login", self._login),
                              ("/api/logout", self._logout), ("/api/diagnose", self._diagnose),
                              ("/api/testmode", self._testmode), ("/api/test", self._test),
                              ("/api/jog/start", self._jog_start),
                              ("/api/jog/keep", self._jog_keep),
                              ("/api/jog/stop", self._jog_stop),
                              ("/api/score", self._score)):
            app.router.add_post(path, handler)
        return app

    async def start(self) -> None:
        host, port = split_listen(self.listen)
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.address = sockets[0].getsockname()[:2] if sockets else (host, port)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._watch()), loop.create_task(self._sweep())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.sessions.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @contextlib.asynccontextmanager
    async def _passing_link(self) -> AsyncIterator[AsyncClient]:
        """A connection for one open read, closed after it; at most PASSING at once."""
        async with self._passing:
            link = AsyncClient(self.socket)
            try:
                await link.open()
                yield link
            finally:
                await link.aclose()

    async def _watch(self) -> None:
        """One subscription for every page: the latest status, kept here."""
        while True:
            link = AsyncClient(self.socket)
            try:
                await link.open()
                first = await link.request(SUBSCRIBE, {"streams": ["status"]})
                self.status = first["status"]
                while (message := await link.stream.get()) is not None:
                    if message.get("stream") == "status":
                        self.status = message["status"]
            except ClientError:
                pass
            finally:
                self.status = None
                await link.aclose()
            await asyncio.sleep(RETRY_S)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            self.sessions.sweep()

    # -- the gate every request passes -------------------------------------------------

    @web.middleware
    async def _gate(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not guard.trusted(request.remote, self.networks):
            return web.Response(status=403, text=_("this console answers only on the "
                                                   "venue's own network") + "\n")
        if not guard.good_host(request.headers.get("Host"), self.config.venue.console_url):
            return web.Response(status=421, text="unknown host\n")
        if request.method == "POST":
            refused = await self._check_post(request)
            if refused is not None:
                return refused
        response = await handler(request)
        response.headers.update(HEADERS)
        return response

    async def _check_post(self, request: web.Request) -> web.Response | None:
        if not guard.same_origin(request.headers.get("Origin"),
                                 request.headers.get("Sec-Fetch-Site"),
                                 request.headers.get("Host")):
            return _refused(403, "another site's page may not post here")
        session = self.sessions.get(request.cookies.get(SESSION_COOKIE))
        if session is None:
            return _refused(401, _("log in again: this page's session has ended"), "session")
        given = request.headers.get(guard.CSRF_HEADER)
        if given is None and request.content_type == "application/x-www-form-urlencoded":
            given = (await request.post()).get("csrf")     # a closing page's beacon
        if not guard.csrf_ok(session.csrf, given if isinstance(given, str) else None):
            return _refused(403, "missing or wrong CSRF token")
        request[SESSION] = session
        return None

    # -- pages -------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.Response:
        session = self.sessions.get(request.cookies.get(SESSION_COOKIE))
        fresh = session is None
        if session is None:
            session = self.sessions.visitor(request.remote or "")
        lang = self._language(request)
        controls = await self._controls_in(lang)
        html = render(lang, self.config.table.id, {
            "csrf": session.csrf, "technician": session.technician, "lang": lang,
            "words": words.script_words(lang), "symptoms": controls["symptoms"],
            "tests": controls["tests"], "motors": controls["motors"],
            "score": words.score_words(lang), "tiles": score.faces(lang)})
        response = web.Response(text=html, content_type="text/html", charset="utf-8")
        if fresh:
            _set_session(response, session)
        return response

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        kinds = {"phone.js": "text/javascript", "phone.css": "text/css",
                 "score.js": "text/javascript"}
        if name not in kinds:
            raise web.HTTPNotFound()
        return web.Response(body=(STATIC / name).read_bytes(), content_type=kinds[name],
                            charset="utf-8")

    def _language(self, request: web.Request) -> str:
        return guard.choose_language(request.cookies.get(LANG_COOKIE),
                                     request.headers.get("Accept-Language"), self.default_lang)

    async def _controls_in(self, lang: str) -> dict[str, Any]:
        """What the page's controls offer, in `lang`, as the daemon says it: its
        self-tests, the symptoms of a guided diagnosis and the motors a jog turns
        (with the test labels `running` names). Kept once had; none while the daemon
        cannot be asked."""
        if lang not in self._controls:
            try:
                async with self._passing_link() as link:
                    info = await link.request(INFO, lang=lang)
                    symptoms = await link.request(SYMPTOMS, lang=lang)
                    motors = await link.request(JOG_MOTORS, lang=lang)
            except ClientError:
                return {"tests": [], "symptoms": [], "motors": [], "test_labels": {}}
            self._controls[lang] = {
                "tests": [{"name": t["name"], "label": f"{t['number']} {t['label']}"}
                          for t in info["tests"]],
                "test_labels": {t["name"]: t["label"] for t in info["tests"]},
                "symptoms": symptoms["symptoms"], "motors": motors["motors"]}
        return self._controls[lang]

    async def _view(self, request: web.Request) -> web.Response:
        """Everything the page shows, in the reader's language."""
        session = self.sessions.get(request.cookies.get(SESSION_COOKIE))
        status = self.status
        lang = self._language(request)
        if status is None:
            return web.json_response({"online": False,
                                      "technician": session and session.technician})
        test_labels = (await self._controls_in(lang))["test_labels"]
        with language(lang):
            lamps = [{"name": n, "label": words.lamp_name(n), "on": bool(v)}
                     for n, v in (status.get("lamps") or {}).items()]
            service = status.get("service") or {}
            running = words.running(service.get("running"), test_labels)
        return web.json_response({
            "online": True, "table": status.get("table"), "display": status.get("display"),
            "lamps": lamps, "estopped": status.get("estopped"),
            "held_by": status.get("held_by"), "test_mode": service.get("test_mode"),
            "running": running, "hand_in_play": status.get("hand_in_play"),
            "faults": await self._active_faults(status, lang),
            "technician": session.technician if session else None})

    async def _active_faults(self, status: dict[str, Any], lang: str) -> list[dict[str, Any]]:
        active = status.get("faults") or []
        if not active:
            return []
        key = json.dumps([(f.get("id"), f.get("where")) for f in active])
        loop = asyncio.get_running_loop()
        cached = self._faults.get(lang)
        if cached and cached[1] == key and loop.time() - cached[0] < FAULTS_EVERY_S:
            return cached[2]
        try:
            async with self._passing_link() as link:
                found = (await link.request(FAULTS, lang=lang))["active"]
        except ClientError:
            found = active
        shown = [{"code": f.get("code"), "id": f.get("id"), "where": f.get("where"),
                  "summary": (f.get("diagnosis") or {}).get("summary"),
                  "cause": (f.get("diagnosis") or {}).get("causes") or [],
                  "remedy": (f.get("diagnosis") or {}).get("remedy") or []} for f in found]
        self._faults[lang] = (loop.time(), key, shown)
        return shown

    # -- actions -----------------------------------------------------------------------

    async def _lang(self, request: web.Request) -> web.Response:
        body = await _body(request)
        picked = body.get("lang")
        if picked not in ("en", "zh_CN"):
            return _refused(400, "lang is en or zh_CN")
        response = web.json_response({"lang": picked})
        response.set_cookie(LANG_COOKIE, picked, max_age=365 * 86400, httponly=True,
                            samesite="Strict", path="/")
        return response

    async def _diagnose(self, request: web.Request) -> web.Response:
        body = await _body(request)
        symptom = body.get("symptom")
        known = {s["name"] for c in self._controls.values() for s in c["symptoms"]}
        if not known:
            controls = await self._controls_in(self._language(request))
            known = {s["name"] for s in controls["symptoms"]}
        # Without the daemon's list (it cannot be asked) the daemon refuses it itself.
        if not isinstance(symptom, str) or (known and symptom not in known):
            return _refused(400, "unknown symptom")
        return await self._daemon(request, None, DIAGNOSE, {"symptom": symptom})

    async def _login(self, request: web.Request) -> web.Response:
        body = await _body(request)
        name, token = body.get("name"), body.get("token")
        if not isinstance(name, str) or not isinstance(token, str) or not name or not token:
            return _refused(400, _("a name and a token, please"))
        session = request[SESSION]
        remote = request.remote or ""
        with language(self._language(request)):
            wait = self.lockout.begin(remote, session.sid)
            if wait > 0:
                return _refused(429, _("too many wrong tokens from this phone: try again "
                                       "in {seconds} s").format(seconds=round(wait)),
                                "locked")
            wrong = False
            try:
                new = await self.sessions.login(session, name[:64], token[:1024])
            except TooMany:
                return _refused(409, _("too many technicians are logged in here; one of "
                                       "them must log out first"))
            except ClientError as exc:
                wrong = exc.error.get("code") in ("forbidden", "unauthorized")
                return _daemon_refused(exc)
            finally:
                self.lockout.end(remote, session.sid, wrong)
        response = web.json_response({"technician": new.technician, "csrf": new.csrf})
        _set_session(response, new)
        return response

    async def _logout(self, request: web.Request) -> web.Response:
        session = request[SESSION]
        await self.sessions.logout(session)
        fresh = self.sessions.visitor(request.remote or "")
        response = web.json_response({"logged_out": session.technician, "csrf": fresh.csrf})
        _set_session(response, fresh)
        return response

    async def _testmode(self, request: web.Request) -> web.Response:
        body = await _body(request)
        if not isinstance(body.get("on"), bool):
            return _refused(400, "on: true or false")
        return await self._daemon(request, True, TESTMODE,
                                  {"on": body["on"], "force": body.get("force") is True})

    async def _test(self, request: web.Request) -> web.Response:
        body = await _body(request)
        if not isinstance(body.get("mechanism"), str):
            return _refused(400, "mechanism")
        return await self._daemon(request, True, TEST, {"mechanism": body["mechanism"]},
                                  timeout=120.0)

    async def _jog_start(self, request: web.Request) -> web.Response:
        body = await _body(request)
        motor, direction = body.get("motor"), body.get("direction")
        if not isinstance(motor, str) or not isinstance(direction, str):
            return _refused(400, "motor and direction")
        response = await self._daemon(request, True, JOG_HOLD,
                                      {"motor": motor, "direction": direction})
        if response.status == 200:
            request[SESSION].hold = json.loads(response.text or "{}").get("hold")
        return response

    async def _jog_keep(self, request: web.Request) -> web.Response:
        body = await _body(request)
        return await self._daemon(request, True, JOG_KEEP, {"hold": body.get("hold")})

    async def _jog_stop(self, request: web.Request) -> web.Response:
        """Stop: from a technician's session it stops that session's hold; from a
        visitor's page, or a session with no hold of its own (a second stop, a beacon
        after a post that did arrive), it stops nothing: the daemon's `jog_stop` with
        no number would stop another technician's jog (the e-stop on the table stops
        everything)."""
        session = request[SESSION]
        if session.link is None or session.hold is None:
            return web.json_response({"stopped": None})
        hold, session.hold = session.hold, None
        return await self._daemon(request, True, JOG_STOP, {"hold": hold})

    async def _score(self, request: web.Request) -> web.Response:
        """A hand's result from the players: a player's action, open to any session
        (the daemon decides whether the hand just ended may be scored now)."""
        body = await _body(request)
        lang = self._language(request)
        with language(lang):
            try:
                asked = score.params(body)
            except ValueError as exc:
                return _refused(400, str(exc), "bad_request")
        try:
            async with self._passing_link() as link:
                result = await link.request(SCORE, asked, lang=lang)
        except ClientError as exc:
            refused = exc.error.get("message") or _("no answer from the table")
            with language(lang):
                message = _("{verb} refused: {message}").format(verb=_("score"),
                                                                message=refused)
            return _refused(409 if exc.error else 503, message,
                            exc.error.get("code") or "offline")
        with language(lang):
            return web.json_response({"lines": score.answer(result), "result": result})

    async def _daemon(self, request: web.Request, technician: bool | None, method: str,
                      params: dict[str, Any], timeout: float = 10.0) -> web.Response:
        """One request to the daemon: on the session's own connection for a technician's
        action (`technician`), on a passing one for an open read."""
        session = request[SESSION]
        lang = self._language(request)
        if technician:
            link = session.link
            if link is None:
                return _refused(401, _("log in as a technician first"), "login")
            try:
                return web.json_response(await link.request(method, params, lang=lang,
                                                            timeout=timeout))
            except ClientError as exc:
                if exc.error.get("code") == "unauthorized" or not exc.error:
                    await self.sessions.logout(session)     # the daemon's session ended
                return _daemon_refused(exc)
        try:
            async with self._passing_link() as link:
                return web.json_response(await link.request(method, params, lang=lang,
                                                            timeout=timeout))
        except ClientError as exc:
            return _daemon_refused(exc)


async def _no_icon(_request: web.Request) -> web.Response:
    return web.Response(status=204)


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_type == "application/x-www-form-urlencoded":
        form = await request.post()
        # isdigit() alone takes "²", which int() refuses: ASCII digits only.
        return {k: (int(v) if k == "hold" and isinstance(v, str) and v.isascii()
                    and v.isdigit() else v) for k, v in form.items()}
    try:
        body = await request.json()
    except (ValueError, RecursionError):     # a body nested deeper than json reads
        return {}
    return body if isinstance(body, dict) else {}


def _refused(status: int, message: str, why: str = "refused") -> web.Response:
    return web.json_response({"error": why, "message": message}, status=status,
                             headers=HEADERS)


def _daemon_refused(exc: ClientError) -> web.Response:
    code = exc.error.get("code") or "offline"
    status = {"unauthorized": 401, "forbidden": 403, "refused": 409, "not_found": 404,
              "bad_request": 400}.get(code, 503)
    message = exc.error.get("message") or _("no answer from the table")
    return _refused(status, message, code)


def _set_session(response: web.Response, session: Session) -> None:
    response.set_cookie(SESSION_COOKIE, session.sid, httponly=True, samesite="Strict",
                        path="/")
