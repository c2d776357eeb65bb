"""Staff login, and the guard that keeps every page and API of the desk behind it.

Every request needs a live staff session, except the login page itself and the
routes marked `by_integrators` when they carry an integrator's API key
(`Authorization: Bearer mjk_…`). Every POST with a session needs that session's CSRF
token. Each refusal is logged with the name and the address it came from: a forged
key, a missing or wrong CSRF token, a locked-out name, an expired session.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from firmware.i18n import N_, _, language
from venue.desk.accounts.integrators import Integrators
from venue.desk.accounts.sessions import COOKIE, CSRF_FIELD, CSRF_HEADER, Session, Sessions
from venue.desk.accounts.staff import LOCKED, Cost, LoginRefused, Staff
from venue.desk.accounts.throttle import LoginThrottle, StreamSlots
from venue.desk.office import Office, own_connection
from venue.desk.web import lang as page_lang
from venue.desk.web.keys import CONFIG, STORE

LOGIN_PATH = "/login"
LOGOUT_PATH = "/logout"
LOGIN_COOKIE = "mjt_login"      # the login form's own CSRF token (double submit)
SWEEP_S = 600.0
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
OFFICE = web.AppKey("office", Office)
STAFF = web.AppKey("staff", Staff)
SESSIONS = web.AppKey("sessions", Sessions)
INTEGRATORS = web.AppKey("integrators", Integrators)
LOGINS = web.AppKey("logins", LoginThrottle)
STREAMS = web.AppKey("streams", StreamSlots)
# What the guard and the login form leave on a request for the handler after them.
STAFF_SESSION = web.RequestKey("staff", Session)
INTEGRATOR = web.RequestKey("integrator", str)
NEXT_PAGE = web.RequestKey("next", str)


def by_integrators(handler: Handler) -> Handler:
    """Mark a route an integrator's API key may call (the booking API)."""
    handler.by_integrators = True    # type: ignore[attr-defined]
    return handler


def page_language(request: web.Request) -> str:
    """The reader's language, as every page of the venue chooses it."""
    return page_lang.pick(request, request.app[CONFIG].desk.language)


def remote(request: web.Request) -> str | None:
    return request.remote


def staff_of(request: web.Request) -> Session | None:
    """The staff session of a request the guard let through (None: an integrator)."""
    return request.get(STAFF_SESSION)


def integrator_of(request: web.Request) -> str | None:
    return request.get(INTEGRATOR)


def _refuse(request: web.Request, status: int, kind: str, message: str,
            who: str | None = None, **detail: Any) -> web.StreamResponse:
    if kind:
        request.app[OFFICE].refused(kind, who=who, remote=remote(request), path=request.path,
                                   method=request.method, **detail)
    with language(page_language(request)):
        text = _(message)
    wants_page = request.method in SAFE_METHODS and not request.path.startswith("/api/") \
        and "text/html" in request.headers.get("Accept", "")
    if status == 401 and wants_page:
        raise web.HTTPSeeOther(f"{LOGIN_PATH}?next={_quote_next(request.path_qs)}")
    return web.json_response({"error": text}, status=status)


def _quote_next(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="")


def _safe_next(target: str | None) -> str:
    """Only a path on this site: never //host or a scheme (an open redirect). Spaces
    and control characters are refused too: a browser drops a tab or a newline from
    a URL, so "/<tab>/evil.example" is "//evil.example"."""
    if not target or not target.startswith("/") or target.startswith("//") or \
            "\\" in target or any(ch.isspace() or not ch.isprintable() for ch in target):
        return "/"
    return target


def same_origin(request: web.Request) -> bool:
    """A browser says where a POST comes from: another site's page is refused even
    with a token (belt and braces; a request without Origin is judged by its token)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.host


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path == LOGIN_PATH:
        return await handler(request)
    route_handler = getattr(request.match_info, "handler", None)
    authorization = request.headers.get("Authorization", "")
    if authorization:
        if not getattr(route_handler, "by_integrators", False):
            return _refuse(request, 401, "integrator.refused",
                           N_("an API key is not taken here"))
        key = authorization.removeprefix("Bearer ").strip()
        found = request.app[INTEGRATORS].check(key) \
            if authorization.startswith("Bearer ") else None
        if found is None:
            # The key id only, never the secret, in the log.
            return _refuse(request, 401, "integrator.refused", N_("unknown or revoked API key"),
                           key_id=key.split("_")[1][:16] if key.count("_") >= 2 else None)
        request[INTEGRATOR] = found.name
        return await handler(request)
    session, expired = request.app[SESSIONS].find(request.cookies.get(COOKIE))
    if session is None:
        if expired:
            return _refuse(request, 401, "session.expired",
                           N_("your session has expired: log in again"))
        if COOKIE not in request.cookies and request.method in SAFE_METHODS:
            # Someone who never logged in: sent to the login page, not logged.
            return _refuse(request, 401, "", N_("log in first"))
        return _refuse(request, 401, "session.refused", N_("log in first"))
    if request.method not in SAFE_METHODS:
        if not same_origin(request):
            return _refuse(request, 403, "csrf.refused", N_("missing or wrong CSRF token"),
                           who=session.name, origin=request.headers.get("Origin", "")[:100])
        token = request.headers.get(CSRF_HEADER)
        if token is None and request.content_type in (
                "application/x-www-form-urlencoded", "multipart/form-data"):
            token = (await request.post()).get(CSRF_FIELD)
        if not session.csrf_ok(token if isinstance(token, str) else None):
            return _refuse(request, 403, "csrf.refused", N_("missing or wrong CSRF token"),
                           who=session.name, given=token is not None)
    request[STAFF_SESSION] = session
    return await handler(request)


LOGIN_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body{{font-family:system-ui,sans-serif;background:#f4f4f0;margin:0;display:flex;
justify-content:center;align-items:center;min-height:100vh}}
form{{background:#fff;padding:24px;border-radius:8px;width:min(320px,90vw);
box-shadow:0 1px 4px #0002}}
label{{display:block;margin:12px 0 4px}}
input{{width:100%;box-sizing:border-box;font-size:16px;min-height:44px;padding:6px}}
button{{margin-top:16px;width:100%;min-height:44px;font-size:16px}}
.error{{color:#b00020}}
</style></head>
<body><form method="post" action="{action}">
<h1>{title}</h1>
<p class="error" role="alert">{error}</p>
<input type="hidden" name="csrf" value="{csrf}">
<input type="hidden" name="next" value="{next}">
<label for="name">{name_label}</label>
<input id="name" name="name" autocomplete="username" required value="{name}">
<label for="password">{password_label}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">{submit}</button>
</form></body></html>
"""


def _login_page(request: web.Request, error: str = "", name: str = "",
                status: int = 200) -> web.Response:
    token = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
    lang = page_language(request)
    with language(lang):
        text = LOGIN_PAGE.format(
            lang=lang.replace("_", "-"), title=html.escape(_("Venue staff login")),
            action=LOGIN_PATH, error=html.escape(_(error)) if error else "",
            csrf=html.escape(token),
            next=html.escape(_safe_next(request.query.get("next") or request.get(NEXT_PAGE))),
            name_label=html.escape(_("Name")), password_label=html.escape(_("Password")),
            name=html.escape(name), submit=html.escape(_("Log in")))
    response = web.Response(text=text, content_type="text/html", status=status)
    response.headers["Cache-Control"] = "no-store"
    response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="Strict",
                        path=LOGIN_PATH, secure=request.app[STAFF].section.secure_cookie)
    return response


async def login_form(request: web.Request) -> web.Response:
    return _login_page(request)


async def login(request: web.Request) -> web.StreamResponse:
    form = await request.post()
    name, password = str(form.get("name", ""))[:128], str(form.get("password", ""))
    request[NEXT_PAGE] = str(form.get("next", "/"))
    token, expected = form.get(CSRF_FIELD), request.cookies.get(LOGIN_COOKIE)
    office = request.app[OFFICE]
    if not (isinstance(token, str) and expected and secrets.compare_digest(token, expected)):
        office.refused("csrf.refused", who=name or None, remote=remote(request),
                       path=LOGIN_PATH, method="POST", given=token is not None)
        return _login_page(request, N_("missing or wrong CSRF token: reload the page"), name,
                           status=403)
    staff = request.app[STAFF]
    throttle = request.app[LOGINS]
    wait = throttle.wait_s(remote(request) or "")
    if wait > 0:
        # Before the hash: made-up names each have a lockout of their own, not a cost.
        office.refused("staff.throttled", who=name or None, remote=remote(request))
        page = _login_page(request, N_("too many logins from this address: wait a "
                                       "minute"), name, status=429)
        page.headers["Retry-After"] = str(max(1, round(wait)))
        return page
    try:
        # argon2id takes tens of milliseconds: a worker thread, not the event loop,
        # and a few at a time whoever asks.
        async with throttle.hashes:
            name = await asyncio.to_thread(staff.verify, name, password)
    except LoginRefused as refused:
        office.refused("staff.refused", who=name, remote=remote(request),
                       why="locked" if refused.why == LOCKED else "wrong")
        return _login_page(request, refused.why, name, status=401)
    session_id, _session = request.app[SESSIONS].open(name)
    office.log("staff.login", who=name, remote=remote(request))
    response = web.HTTPSeeOther(_safe_next(request[NEXT_PAGE]))
    section = staff.section
    response.set_cookie(COOKIE, session_id, httponly=True, samesite="Strict", path="/",
                        secure=section.secure_cookie, max_age=int(section.session_max_s))
    response.del_cookie(LOGIN_COOKIE, path=LOGIN_PATH)
    raise response


async def logout(request: web.Request) -> web.StreamResponse:
    request.app[SESSIONS].close(request.cookies.get(COOKIE))
    session = staff_of(request)
    request.app[OFFICE].log("staff.logout", who=session.name if session else None,
                           remote=remote(request))
    response = web.HTTPSeeOther(LOGIN_PATH)
    response.del_cookie(COOKIE, path="/")
    raise response


async def whoami(request: web.Request) -> web.Response:
    """The page's script reads its CSRF token here (the cookie is HttpOnly)."""
    session = staff_of(request)
    assert session is not None
    return web.json_response({"name": session.name, "csrf": session.csrf},
                             headers={"Cache-Control": "no-store"})


def offices(db: Any, config: Any) -> tuple[Office, Staff, Sessions, Integrators]:
    """The back office on the venue's database (the app, and the command line)."""
    section = config.section("staff")
    office = Office(own_connection(db))
    cost = Cost(memory_kib=section.argon2_memory_kib, passes=section.argon2_passes)
    return (office, Staff(office, section, cost), Sessions(office, section),
            Integrators(office))


async def _sweeping(app: web.Application) -> AsyncIterator[None]:
    """Sessions past their time and spent lockouts go, now and then."""
    async def sweep() -> None:
        while True:
            app[SESSIONS].sweep()
            app[STAFF].sweep()
            app[OFFICE].flush_refusals()
            await asyncio.sleep(SWEEP_S)
    task = asyncio.get_running_loop().create_task(sweep())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def setup(app: web.Application) -> None:
    """Put every page and API of the desk behind staff login (the first part set up)."""
    app[OFFICE], app[STAFF], app[SESSIONS], app[INTEGRATORS] = offices(
        app[STORE].db, app[CONFIG])
    app[LOGINS], app[STREAMS] = LoginThrottle(), StreamSlots()
    app.middlewares.append(guard)
    app.cleanup_ctx.append(_sweeping)
    app.router.add_get(LOGIN_PATH, login_form)
    app.router.add_post(LOGIN_PATH, login)
    app.router.add_post(LOGOUT_PATH, logout)
    app.router.add_get("/api/session", whoami)
