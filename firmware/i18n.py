"""The language a person reads: gettext catalogues, English source strings.

Every string shown to a person goes through `_()` (or is marked with `N_()` where it
is defined and translated where it is shown). JSON keys, fault ids, signal names and
display codes never go through here: they are the same in every language.

The language comes from `[display] language`, else `MJTABLE_LANG`, else the locale
(`LC_ALL`, `LC_MESSAGES`, `LANG`). Catalogues are the `.po` files under
`firmware/locale/<lang>/LC_MESSAGES/mjtable.po`; a `.mo` beside one is used when it is
at least as new, otherwise the `.po` is compiled in memory with Babel on first use, so
a checkout, an editable install and a wheel all speak the same language.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
import io
import os
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path

from mjtable_core import i18n as core_i18n

DOMAIN = "mjtable"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
SOURCE = "en"
LANGUAGES = (SOURCE, "zh_CN")
ENV = "MJTABLE_LANG"

_process_language = SOURCE
_override: contextvars.ContextVar[str | None] = contextvars.ContextVar("mjtable_lang",
                                                                       default=None)


def N_(message: str) -> str:
    """Mark a string for extraction; it is translated where it is shown."""
    return message


def normalize(name: str | None) -> str | None:
    """A supported language for a locale-ish name ("zh_CN.UTF-8", "zh", "C"), or None."""
    if not name:
        return None
    base = name.split(".")[0].split("@")[0].replace("-", "_")
    if base in ("C", "POSIX"):
        return SOURCE
    lowered = base.lower()
    for lang in LANGUAGES:
        if lowered == lang.lower():
            return lang
    if lowered.startswith("zh"):
        # Hong Kong and Taiwan read traditional script; zh_CN is still nearer than English.
        return "zh_CN"
    if lowered.startswith("en"):
        return SOURCE
    return None


def resolve(configured: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language to use: config, else $MJTABLE_LANG, else the locale, else English."""
    env = os.environ if environ is None else environ
    for candidate in (configured, env.get(ENV)):
        lang = normalize(candidate)
        if lang:
            return lang
    # gettext's own order: the first of these that is set decides.
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            first = value.split(":")[0]
            return normalize(first) or SOURCE
    return SOURCE


def set_language(lang: str) -> None:
    """Set the process's language (at start-up, from `resolve`)."""
    global _process_language
    checked = normalize(lang)
    if checked is None:
        raise ValueError(f"unknown language {lang!r}; languages: " + ", ".join(LANGUAGES))
    _process_language = checked


def current() -> str:
    """The language in force here (a `language()` block, else the process's)."""
    return _override.get() or _process_language


def table_language() -> contextlib.AbstractContextManager[str]:
    """Speak the table's own language (the process's) inside the block: what the table
    writes for itself (its log, its events) never follows the client being answered."""
    return language(_process_language)


@contextlib.contextmanager
def language(lang: str | None) -> Iterator[str]:
    """Speak `lang` inside the block (None: keep the current language)."""
    checked = normalize(lang) if lang else current()
    if checked is None:
        raise ValueError(f"unknown language {lang!r}; languages: " + ", ".join(LANGUAGES))
    token = _override.set(checked)
    try:
        yield checked
    finally:
        _override.reset(token)


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalogue of `lang` (English: none, the source strings are English)."""
    if lang == SOURCE:
        return gettext.NullTranslations()
    po = po_path(lang)
    mo = po.with_suffix(".mo")
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fh:
            return gettext.GNUTranslations(fh)
    if not po.exists():
        return gettext.NullTranslations()
    return gettext.GNUTranslations(io.BytesIO(compile_po(po)))


def compile_po(po: Path) -> bytes:
    """The `.mo` bytes of a `.po` file (Babel, as `pybabel compile` does)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as fh:
        catalog = read_po(fh)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def _(message: str) -> str:
    """`message` in the current language."""
    lang = current()
    if lang == SOURCE or not message:
        return message
    return translations(lang).gettext(message)


def keep_language(callback: Callable[[], None]) -> Callable[[], None]:
    """`callback`, run later, in the language in force now (a timer on the table's
    clock does not carry the context it was set in)."""
    lang = current()

    def run() -> None:
        with language(lang):
            callback()
    return run


def join(items: list[str]) -> str:
    """Items of a list in one line, with the current language's separator."""
    return _("; ").join(items)


__all__ = ["LANGUAGES", "N_", "_", "current", "join", "keep_language", "language", "resolve",
           "set_language", "table_language"]


# Core and the rules engine cannot import the firmware; they speak through this hook.
core_i18n.install(_)
