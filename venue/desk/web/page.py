"""The frame every page of the venue shares: header, language switch, navigation.

Pages are written here, in the server, in the reader's language; the scripts get the
few words they show from a JSON block in the page. No build step, nothing from
outside the box: every asset is under static/ in the package.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from aiohttp import web

from firmware.i18n import LANGUAGES, _, language
from venue.desk.web import lang as page_lang
from venue.desk.web.keys import CONFIG, NAV

LANGUAGE_NAMES = {"en": "English", "zh_CN": "中文"}


def escaped(**texts: str) -> dict[str, str]:
    """Translated words, escaped for HTML: call `_()` here, outside the f-strings
    (the message extractor does not look inside them)."""
    return {key: escape(text) for key, text in texts.items()}


def script_json(value: Any) -> str:
    """JSON to put inside a <script> block: no "<" at all, so nothing a table names
    itself ("</script>", "<!--") can end the block or change how it is read."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace(
        "<", "\\u003c")


def words_block(words: dict[str, Any]) -> str:
    return f'<script type="application/json" id="words">{script_json(words)}</script>'


def render(request: web.Request, title: str, body: str, lang: str, head: str = "",
           scripts: tuple[str, ...] = ()) -> web.Response:
    """A whole page; call inside `language(lang)` so the header speaks it too."""
    here = request.path
    nav = "".join(
        f'<a href="{escape(path)}"{" aria-current=page" if path == here else ""}>'
        f"{escape(_(label))}</a>" for path, label in request.app[NAV])
    switch = "".join(
        f'<a href="?lang={code}" lang="{page_lang.html_lang(code)}"'
        f'{" aria-current=true" if code == lang else ""}>{LANGUAGE_NAMES[code]}</a>'
        for code in LANGUAGES)
    w = escaped(title=_("mjtable venue"), language=_("Language"))
    tags = "".join(f'<script src="/static/{escape(name)}" defer></script>' for name in scripts)
    html = (
        f'<!doctype html><html lang="{page_lang.html_lang(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title>"
        '<link rel="stylesheet" href="/static/desk.css">'
        '<link rel="icon" href="data:,">'
        f"{head}{tags}</head><body>"
        f'<header><h1>{w["title"]}</h1><nav>{nav}</nav>'
        f'<span class="langs" aria-label="{w["language"]}">{switch}</span></header>'
        f"<main>{body}</main></body></html>")
    return web.Response(text=html, content_type="text/html", charset="utf-8",
                        headers={"Cache-Control": "no-store",
                                 "Content-Language": page_lang.html_lang(lang),
                                 "Vary": "Accept-Language, Cookie"})


async def chosen_language(request: web.Request) -> tuple[str, str | None]:
    """The page's language, and the one just picked with ?lang= (to remember)."""
    picked = request.query.get("lang")
    if picked in LANGUAGES:
        return picked, picked
    return page_lang.pick(request, request.app[CONFIG].desk.language), None


def page(handler: Any) -> Any:
    """Decorator: run a page handler in the reader's language; remember a pick."""
    async def wrapped(request: web.Request) -> web.StreamResponse:
        lang, picked = await chosen_language(request)
        with language(lang):
            response = await handler(request, lang)
        if picked:
            page_lang.remember(response, picked)
        return response
    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped
