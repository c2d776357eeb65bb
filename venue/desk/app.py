"""The venue's web app: `make_app(config, fleet)`; each part of it adds its routes
with a `setup(app)` function listed in PARTS (or passed in `parts`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any

from aiohttp import web

from venue.desk.config import DeskConfig
from venue.desk.fleet import Fleet
from venue.desk.keys import CONFIG, FLEET, LINK, NAV, STORE
from venue.desk.store import Store

# Each module's setup(app) adds its routes, in this order.
PARTS = (
    "venue.desk.login",         # first: every part after it is behind staff login
    "venue.desk.dashboard",
    "venue.desk.usage",
    "venue.desk.booking",
    "venue.desk.incident_pages",
)

STATIC = resources.files("venue.desk") / "static"


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
