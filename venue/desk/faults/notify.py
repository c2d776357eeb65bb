"""Pages an incident through Apprise, in the venue's language.

Apprise speaks the trade's own apps (`wecombot://` WeCom, `dingtalk://`, `feishu://`,
`bark://`) as well as `mailto://` and `json://` webhooks. It sends with blocking
HTTP, so each page goes out on a worker thread: the desk's event loop never waits
for a slow chat server. A page that fails is logged, never retried in a loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from firmware.i18n import _, language
from venue.desk.faults.faultwords import of_incident
from venue.desk.faults.incidents import (
    CONDITION_SUMMARIES,
    ESCALATED,
    ESTOP,
    OFFLINE,
    Incidents,
    Page,
    severity,
)
from venue.desk.office import Office
from venue.desk.sections import NotifySection

TICK_S = 1.0        # look for due pages at least this often (escalations)
# Threads of its own for pages: a hung chat server holds these, never the default
# executor's, where staff logins check their argon2id hashes.
PAGERS = 4


def words(page: Page, dashboard_url: str = "") -> tuple[str, str]:
    """The title and body of a page, in the current language."""
    incident = page.incident
    table, code = incident["table_id"], incident["code"] or "?"
    summary = of_incident(incident)["summary"]      # in the page's language when known
    opened = time.strftime("%H:%M:%S", time.localtime(incident["opened"]))
    number = incident["id"]      # the incident's number on the dashboard's page
    if page.kind == ESCALATED:
        title = _("Still not acknowledged: table {table}, fault {code} (#{number})").format(
            table=table, code=code, number=number)
    else:
        title = _("Table {table}: fault {code} (#{number})").format(
            table=table, code=code, number=number)
    lines = [summary, _("Since {time}.").format(time=opened)]
    if dashboard_url:
        lines.append(_("Acknowledge on the dashboard: {url}").format(url=dashboard_url))
    return title, "\n".join(line for line in lines if line)


def send_apprise(urls: list[str], title: str, body: str, timeout_s: float,
                 notify_type: str = "info") -> bool:
    """Blocking: one notification to every URL; True when all took it. `notify_type`
    is Apprise's (`failure`, `warning`, `info`): WeCom, DingTalk and Bark show a failure
    as an alarm, not a note."""
    import apprise

    sender = apprise.Apprise()
    for url in urls:
        sender.add(url)
    # Apprise reads the socket timeouts from each URL; the desk gives a bound too.
    for server in sender:
        with contextlib.suppress(AttributeError):
            server.socket_read_timeout = timeout_s
            server.socket_connect_timeout = timeout_s
    return bool(sender.notify(body=body, title=title, notify_type=notify_type))


def _unusable(urls: list[str]) -> list[str]:
    """Loads Apprise and its plugins; the URLs it cannot use (a typo in a token)."""
    import apprise

    return [url for url in urls if not apprise.Apprise().add(url)]


class Notifier:
    """Sends what `Incidents.due` says, when it is due."""

    def __init__(self, incidents: Incidents, office: Office, section: NotifySection,
                 lang: str | None, dashboard_url: str = "",
                 wall: Callable[[], float] = time.time,
                 send: Callable[[list[str], str, str, float, str], bool] = send_apprise
                 ) -> None:
        self.incidents = incidents
        self.office = office
        self.section = section
        self.lang = section.language or lang
        self.dashboard_url = dashboard_url
        self.wall = wall
        self.send = send
        self.wake = asyncio.Event()
        self.sent: list[tuple[str, int, bool]] = []   # kind, incident, taken (for tests)
        self._sending: set[asyncio.Task[None]] = set()
        self._pagers = ThreadPoolExecutor(PAGERS, thread_name_prefix="mjtable-page")

    def fault(self, table: str, fault: dict[str, Any]) -> None:
        if self.incidents.raised(table, fault, self.wall()) is not None:
            self.wake.set()

    def faults(self, table: str, active: list[dict[str, Any]]) -> None:
        self.incidents.active(table, active, self.wall())
        self.wake.set()

    def status(self, table: str, status: dict[str, Any]) -> None:
        """An e-stop pressed pages like an E fault (after the debounce); released, its
        incident clears."""
        if not self.section.estop:
            return
        with language(self.lang):
            summary = _(CONDITION_SUMMARIES[ESTOP["id"]])
        self.incidents.condition(table, ESTOP, bool(status.get("estopped")), summary,
                                 self.wall())
        self.wake.set()

    def avail(self, table: str, online: bool) -> None:
        """A table offline for `offline_after_min` pages; back online, it clears."""
        if self.section.offline_after_min <= 0:
            return
        with language(self.lang):
            summary = _(CONDITION_SUMMARIES[OFFLINE["id"]])
        self.incidents.condition(table, OFFLINE, not online, summary, self.wall())
        self.wake.set()

    def page_due(self) -> None:
        """Send what is due, each page on its own: a slow server delays no other page."""
        for page in self.incidents.due(self.wall()):
            task = asyncio.get_running_loop().create_task(self._page(page))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def drain(self) -> None:
        """Wait for the pages being sent (tests, and a clean stop)."""
        while self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)

    async def _page(self, page: Page) -> None:
        urls = list(self.section.urls)
        if page.kind == ESCALATED and self.section.escalate_urls:
            urls = list(self.section.escalate_urls)
        incident = page.incident["id"]
        if not urls:
            return          # nobody to page: the incident is on the dashboard only
        with language(self.lang):
            title, body = words(page, self.dashboard_url)
        try:
            taken = await asyncio.get_running_loop().run_in_executor(
                self._pagers, self.send, urls, title, body, self.section.send_timeout_s,
                severity(page.incident))
        except Exception as exc:    # a notification plugin's bug must not stop paging
            taken = False
            self.office.log("incident.send_failed", incident=incident, error=repr(exc)[:200])
        self.sent.append((page.kind, incident, taken))
        self.office.log("incident.paged" if taken else "incident.send_failed",
                       incident=incident, page=page.kind, urls=len(urls))

    async def run(self) -> None:
        """Until cancelled: page each incident when it is due."""
        # Apprise takes a second or more to import on a small box: before the first
        # fault, not in its page's way.
        try:
            unusable = await asyncio.to_thread(
                _unusable, [*self.section.urls, *self.section.escalate_urls])
        except ImportError:
            unusable = []
            self.office.log("notify.unavailable",
                            why="apprise is missing: pip install 'mjtable[venue]'")
        for url in unusable:
            # The scheme is known (the config checked it), the rest is not: the
            # token's length, a missing device key. Said once, at start.
            self.office.log("notify.bad_url", url=url.split("://")[0] + "://…")
        while True:
            self.page_due()
            due = self.incidents.next_due()
            wait = TICK_S if due is None else max(0.0, min(TICK_S, due - self.wall()))
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), wait)
