"""Debian's Chromium under Playwright, as the browser tests and the dashboard bench
launch it: headless, no sandbox (containers), nothing of its own on the network."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = Path(os.environ.get("MJTABLE_CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage"]
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
LOCAL_SCHEMES = {"data", "blob", "about"}


def why_no_browser() -> str | None:
    """Why no browser can run here, or None."""
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


def launch(driver: Any, profile: Path, **options: Any) -> Any:
    """A persistent context on the empty directory `profile` (Playwright's own
    temporary profiles are not empty of its defaults; this one is ours)."""
    return driver.chromium.launch_persistent_context(
        str(profile), executable_path=str(CHROMIUM), headless=True, args=ARGS, **options)
