"""The venue process in a thread of the test, on free ports, for pytest and the
benches: `Desk` as `mjtable venue` runs it, with the embedded broker by default."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from venue.desk.config import parse
from venue.desk.serve import Desk
from venue.desk.tables.store import Store


class DeskThread:
    def __init__(self, raw: dict[str, Any] | None = None, broker_url: str | None = None,
                 store: Store | None = None, broker: bool = True) -> None:
        """`broker` False: no broker and no link (tests fed through `feed`)."""
        raw = {**(raw or {})}
        raw["desk"] = {"listen": "127.0.0.1:0", **raw.get("desk", {})}
        if broker_url:
            raw["broker"] = {**raw.get("broker", {}), "url": broker_url}
        self.config = parse(raw, "test.toml")
        self.embedded = broker_url is None and broker
        self.with_link = broker
        self.store = store or Store()
        self.loop = asyncio.new_event_loop()
        self.desk: Desk | None = None
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> DeskThread:
        self._thread.start()

        async def up() -> Desk:
            desk = Desk(self.config, embedded=self.embedded, store=self.store,
                        link=self.with_link)
            await desk.start(self.lines.append)
            return desk
        self.desk = self.run(up())
        return self

    @property
    def url(self) -> str:
        assert self.desk is not None
        return self.desk.url

    @property
    def broker_url(self) -> str:
        assert self.desk is not None
        return self.desk.broker_url

    @property
    def fleet(self) -> Any:
        assert self.desk is not None
        return self.desk.fleet

    def run(self, coro: Any, timeout: float = 20.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in the desk's loop (the fleet is not thread-safe)."""
        done: Future[Any] = Future()

        def inside() -> None:
            try:
                done.set_result(fn(*args))
            except Exception as exc:       # handed to the caller
                done.set_exception(exc)
        self.loop.call_soon_threadsafe(inside)
        return done.result(10)

    def session(self, name: str = "staff-test") -> tuple[str, str]:
        """A staff session opened straight in the desk (its cookie value, its CSRF
        token): for tests of the pages behind the login."""
        from venue.desk.web.login import SESSIONS, STAFF

        assert self.desk is not None and self.desk.app is not None
        app = self.desk.app
        if name not in self.call(app[STAFF].names):
            self.call(app[STAFF].add, name, "a-test-password-" + name)
        session_id, session = self.call(app[SESSIONS].open, name)
        return session_id, session.csrf

    def login(self, page: Any, name: str = "staff-test") -> str:
        """Log a Playwright page or browser context in (the context gets the session
        cookie); the CSRF token. The pages are all behind the staff login."""
        from venue.desk.accounts.sessions import COOKIE

        session_id, csrf = self.session(name)
        self.cookie = session_id
        context = page if hasattr(page, "add_cookies") else page.context
        context.add_cookies([{"name": COOKIE, "value": session_id, "url": self.url,
                              "httpOnly": True, "sameSite": "Strict"}])
        return csrf

    def adopt(self, session_id: str, name: str = "staff-test") -> None:
        """Take another desk's session as this one's (a venue restarted on its file)."""
        import hashlib
        import time as clock

        from venue.desk.web.login import OFFICE

        assert self.desk is not None and self.desk.app is not None
        now = clock.time()
        self.call(self.desk.app[OFFICE].db.execute,
                  "INSERT INTO sessions (id_hash, name, csrf, created, used) "
                  "VALUES (?, ?, ?, ?, ?)",
                  (hashlib.sha256(session_id.encode()).hexdigest(), name, "csrf", now, now))

    def feed(self, topic: str, payload: bytes) -> None:
        self.call(self.fleet.feed, topic, payload)

    def connected(self, timeout: float = 10.0) -> None:
        assert self.desk is not None and self.desk.link is not None
        self.run(asyncio.wait_for(self.desk.link.connected.wait(), timeout))

    def stop(self) -> None:
        if self.desk is not None:
            self.run(self.desk.close())
        self.run(_cancel_the_rest())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


async def _cancel_the_rest() -> None:
    """Whatever the app left (a page's stream) ends before the loop closes."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
