"""The venue's web app: `make_app(config, fleet)`; each part of it adds its routes
with a `setup(app)` function listed in PARTS (or passed in `parts`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any

from aiohttp import web

from venue.desk.config import DeskConfig
from venue.desk.tables.fleet import Fleet
from venue.desk.tables.store import Store
from venue.desk.web.keys import CONFIG, FLEET, LINK, NAV, STORE

# Each module's setup(app) adds its routes, in this order.
PARTS = (
    "venue.desk.web.login",         # first: every part after it is behind staff login
    "venue.desk.web.dashboard",
    "venue.desk.web.usage",
    "venue.desk.web.booking",
    "venue.desk.web.incident_pages",
)

STATIC = resources.files("venue.desk.web") / "static"


def make_app(config: DeskConfig, fleet: Fleet, store: Store | None = None,
             link: Any = None,
             parts: Iterable[Callable[[web.Application], None]] | None = None
             ) -> web.Application:
    app = web.Application()
    app[CONFIG] = config
    app[FLEET] = fleet
    app[STORE] = store if store is not None else Store()
    app[LINK] = link
    app[NAV] = []
    for setup in parts if parts is not None else default_parts():
        setup(app)
    app.router.add_static("/static/", str(STATIC), append_version=False)
    return app


def default_parts() -> list[Callable[[web.Application], None]]:
    return [importlib.import_module(name).setup for name in PARTS]
