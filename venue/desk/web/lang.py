"""The page's language: the one the user picked (a cookie), else the browser's
Accept-Language, else the venue's `[desk] language`, else English."""

from __future__ import annotations

from aiohttp import web

from firmware.i18n import LANGUAGES, SOURCE, normalize

COOKIE = "lang"
ONE_YEAR_S = 365 * 24 * 3600


def accepted(header: str) -> str | None:
    """The first language we have in an Accept-Language header, by its q order."""
    ranked: list[tuple[float, int, str]] = []
    for position, item in enumerate(header.split(",")):
        name, *params = item.strip().split(";")
        quality = 1.0
        for param in params:
            key, _sep, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if name and quality > 0:
            ranked.append((-quality, position, name.strip()))
    for _q, _pos, name in sorted(ranked):
        lang = normalize(name) if name != "*" else None
        if lang:
            return lang
    return None


def pick(request: web.Request, default: str = "") -> str:
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return (accepted(request.headers.get("Accept-Language", ""))
            or normalize(default) or SOURCE)


def remember(response: web.StreamResponse, lang: str) -> None:
    response.set_cookie(COOKIE, lang, max_age=ONE_YEAR_S, path="/", samesite="Lax",
                        httponly=True)


def html_lang(lang: str) -> str:
    return "zh-CN" if lang == "zh_CN" else "en"
