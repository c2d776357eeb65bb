"""What the venue's web app holds, by key: each module reads the parts it needs."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from venue.desk.config import DeskConfig
from venue.desk.tables.fleet import Fleet
from venue.desk.tables.store import Store

CONFIG = web.AppKey("config", DeskConfig)
FLEET = web.AppKey("fleet", Fleet)
STORE = web.AppKey("store", Store)
# The broker link (venue.desk.tables.link.BrokerLink); absent when the app runs without one.
LINK = web.AppKey("link", Any)
# Links in every page's header: (path, untranslated label), added by each module.
NAV = web.AppKey("nav", list)
