"""A JSON webhook on 127.0.0.1 that records what it receives (the notification tests
and bench point Apprise's `json://` at it: nothing leaves the machine)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from aiohttp import web


class WebhookStub:
    def __init__(self, port: int = 0) -> None:
        """`port` 0: any free one (known once started)."""
        self.received: list[tuple[float, dict[str, Any]]] = []   # wall time, body
        self.arrived: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self.port = port

    async def _hook(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.text())
        except ValueError:
            body = {"raw": await request.text()}
        self.received.append((time.time(), body))
        if self.arrived is not None:
            self.arrived.set()
        return web.json_response({"ok": True})

    async def start(self) -> WebhookStub:
        self.arrived = asyncio.Event()      # of the loop it runs in
        app = web.Application()
        app.router.add_post("/hook", self._hook)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    @property
    def url(self) -> str:
        """The Apprise URL of this webhook."""
        return f"json://127.0.0.1:{self.port}/hook"

    async def wait(self, count: int, timeout: float) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        assert self.arrived is not None
        while len(self.received) < count and time.monotonic() < deadline:
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), deadline - time.monotonic())
            except TimeoutError:
                break
        return [body for _t, body in self.received]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
