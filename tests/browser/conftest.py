"""A real browser for the venue's pages: Playwright driving Debian's Chromium
(`/usr/bin/chromium`, installed by .ci/run), headless, on an empty profile, nothing
of its own on the network. Every page a test opens has its requests checked: any
that would leave loopback is aborted and fails the test.

The tests skip, with the reason, only where Chromium cannot start at all.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = Path(os.environ.get("MJTABLE_CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage"]
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
LOCAL_SCHEMES = {"data", "blob", "about"}


def why_no_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ModuleNotFoundError:
        return "Python playwright is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (Debian: apt-get install chromium)"
    return None


def leaves_loopback(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme not in LOCAL_SCHEMES and parts.hostname not in LOOPBACK


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the session, on an empty profile directory."""
    reason = why_no_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import Error, sync_playwright

    driver = sync_playwright().start()
    try:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM),
            headless=True, args=ARGS, locale="en-US")
    except Error as exc:
        driver.stop()
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        pytest.skip(f"chromium cannot start here: {first}")
    try:
        yield context
    finally:
        context.close()
        driver.stop()


class Guarded:
    """A page and what it tried to fetch beyond loopback (aborted)."""

    def __init__(self, page: Any, outside: list[str]) -> None:
        self.page = page
        self.outside = outside


@pytest.fixture
def browser(chromium: Any) -> Iterator[Guarded]:
    """A fresh page (no cookies); fails the test if any request left loopback."""
    outside: list[str] = []

    def guard(route: Any) -> None:
        url = route.request.url
        if leaves_loopback(url):
            outside.append(url)
            route.abort()
        else:
            route.continue_()

    chromium.clear_cookies()
    chromium.route("**/*", guard)
    page = chromium.new_page()
    try:
        yield Guarded(page, outside)
    finally:
        page.close()
        chromium.unroute("**/*", guard)
    assert not outside, f"requests left loopback: {outside}"
