"""The venue process put together: broker link, store, fleet and web app (and, for
`--demo`, an embedded broker and made-up tables)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from firmware import statedir
from firmware.i18n import _, current
from venue.desk.config import DeskConfig, override
from venue.desk.tables.fleet import Fleet
from venue.desk.tables.link import BrokerLink, load_key
from venue.desk.tables.store import FILE_NAME, Store, day_of
from venue.desk.web.app import make_app

LOCK_NAME = "venue.lock"


class Desk:
    def __init__(self, config: DeskConfig, demo: int | None = None,
                 state_dir: str | None = None, embedded: bool = False,
                 store: Store | None = None, link: bool = True) -> None:
        """`demo`: that many made-up tables on an embedded broker; `embedded`: the
        embedded broker alone (tests, benches); `link` False: no broker at all (pages
        fed by hand, in tests)."""
        self.config = config
        self.demo = demo
        self.embedded = embedded or bool(demo)
        self.key = load_key(config.broker.key_file)     # ValueError: one clear line
        self._lock: int | None = None
        if store is None and not demo:
            directory = default_store(state_dir, config.desk.state_dir)
            self._lock = hold(directory / LOCK_NAME)
            store = Store(directory / FILE_NAME)
        elif store is None:
            store = Store()
        self.store = store
        self.fleet = Fleet()
        for table, (hands, play_s) in self.store.today(day_of(self.fleet.now())).items():
            self.fleet.set_today(table, hands, play_s)
        self.broker: Any = None
        self.with_link = link
        self.link: BrokerLink | None = None
        self.runner: web.AppRunner | None = None
        self.app: web.Application | None = None
        self.url = ""
        self.broker_url = ""
        self._tasks: list[asyncio.Task[Any]] = []
        self._stop = asyncio.Event()

    async def start(self, say: Callable[[str], None]) -> None:
        url = self.config.broker.url
        if self.embedded:
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

            from venue.desk.demo import EmbeddedBroker, demo_accounts, table_names
            quiet_broker_logs()
            accounts = demo_accounts(table_names(self.demo)) if self.demo else None
            self.broker = await EmbeddedBroker(free_port(), accounts).start()
            url = self.broker.url
            self.key = self.key or Ed25519PrivateKey.generate()
            if accounts is not None:
                self.config = override(self.config, "broker", username="venue",
                                       password=accounts["venue"])
        if self.with_link:
            self.link = BrokerLink(self.config.broker, self.fleet, self.store, self.key,
                                   url=url)
        app = self.app = make_app(self.config, self.fleet, self.store, self.link)
        self.runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=1.0)
        await self.runner.setup()
        host, port = self.config.desk.address()
        site = web.TCPSite(self.runner, host, port)
        await site.start()
        bound = self.runner.addresses[0]
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        self.url = f"http://{shown}:{bound[1]}/"
        say(_("mjtable venue: dashboard {url}").format(url=self.url))
        self.broker_url = url
        if self.demo:
            from venue.desk.demo import WATCHER
            say(_("mjtable venue: broker {url} (watch as {user}, password {password}: "
                  "read only)").format(url=url, user=WATCHER[0], password=WATCHER[1]))
        else:
            say(_("mjtable venue: broker {url}").format(url=url))
        staff_hint(app, say, demo=bool(self.demo))
        if self.link is not None:
            self._tasks.append(asyncio.create_task(self.link.run()))
        if self.demo:
            self._tasks.append(asyncio.create_task(self._demo_tables(url)))

    async def _demo_tables(self, url: str) -> None:
        """The made-up tables, once the venue listens: their first records are not
        re-sent as a real agent's would be."""
        from venue.desk.demo import DemoTable, table_names

        if self.link is not None:
            await self.link.connected.wait()
        lang = self.config.desk.language or current()
        accounts = self.broker.accounts
        tables = [DemoTable(name, url, seed, lang, login=(name, accounts[name]))
                  for seed, name in enumerate(table_names(self.demo or 0))]
        await asyncio.gather(*(table.run() for table in tables))

    def stop(self) -> None:
        self._stop.set()

    async def wait(self) -> None:
        await self._stop.wait()

    async def close(self) -> None:
        if self.link is not None:
            self.link.stop()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.runner is not None:
            await self.runner.cleanup()
        if self.broker is not None:
            await self.broker.stop()
        with contextlib.suppress(Exception):
            self.store.close()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def staff_hint(app: web.Application, say: Callable[[str], None], demo: bool) -> None:
    """The demo's login, printed; or how to make the first staff account."""
    import secrets

    from venue.desk.web.login import STAFF

    staff = app.get(STAFF)
    if staff is None:
        return
    if demo:
        password = secrets.token_urlsafe(9)
        staff.add("demo", password)
        say(_("mjtable venue: log in as demo, password {password}").format(
            password=password))
    elif not staff.names():
        say(_("mjtable venue: no staff account yet: mjtable venue staff add NAME"))


class AlreadyRunning(Exception):
    """Another venue process keeps its records in the same directory."""


def hold(path: Path) -> int:
    """An exclusive lock on `path` for the life of the process (the kernel drops it
    when the process ends, however it ends): two venues on one directory would share
    one file and one broker client id, each taking the broker from the other."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise AlreadyRunning(_("another mjtable venue is already running on {path}").format(
            path=path.parent)) from None
    return fd


def default_store(explicit: str | None, configured: str) -> Path:
    directory = statedir.state_dir(explicit or configured or None)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def quiet_broker_logs() -> None:
    # amqtt logs every connection at INFO and tracebacks of dropped clients at WARNING.
    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.ERROR)

