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

import pytest

from bench.helpers.browser import launch, leaves_loopback, why_no_browser


# Package scope: Playwright's sync driver keeps an event loop running in this thread
# while it lives, and tests elsewhere need asyncio.run.
@pytest.fixture(scope="package")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the browser tests, on an empty profile directory."""
    reason = why_no_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import Error, sync_playwright

    driver = sync_playwright().start()
    try:
        context = launch(driver, tmp_path_factory.mktemp("chromium-profile"), locale="en-US")
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


# How long a page may take to show what a test waits for: a wait ends as soon as it
# shows, and beside a second `make test` Chromium can take several seconds to paint.
WAIT_MS = 30_000

DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where a test writes its screenshots: docs/img/ when MJTABLE_SCREENSHOTS=1 (to
    refresh the pictures docs/venue.md shows), else a temporary folder, so a test run
    never changes the tracked files."""
    if os.environ.get("MJTABLE_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        return DOCS_IMG
    return tmp_path
