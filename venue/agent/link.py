"""The agent's one connection to the daemon's API socket: requests and the stream.

The agent is a client like the console: the daemon drops it if it stops reading and
never waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from pathlib import Path
from typing import Any

from firmware.i18n import _
from mjtable_core.oserror import said

READ_LIMIT = 1 << 20


class LinkError(Exception):
    """The daemon is gone, or refused a request (`error`: its code and message)."""

    def __init__(self, message: str, error: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.error = error or {}


class DaemonLink:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.stream: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader_task: asyncio.Task[None] | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        try:
            reader, self._writer = await asyncio.open_unix_connection(str(self.path),
                                                                      limit=READ_LIMIT)
        except OSError as exc:
            raise LinkError(_("no daemon at {path}: {error}").format(
                path=self.path, error=said(exc))) from None
        self._reader_task = asyncio.get_running_loop().create_task(self._read(reader))

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader_task

    async def request(self, method: str, params: dict[str, Any] | None = None,
                      lang: str | None = None, timeout: float = 10.0,
                      auth: dict[str, str] | None = None) -> Any:
        if self._writer is None or self._writer.is_closing():
            raise LinkError(_("the link to the daemon is closed"))
        request_id = next(self._ids)
        message: dict[str, Any] = {"id": request_id, "method": method, "params": params or {}}
        if lang:
            message["lang"] = lang
        if auth is not None:
            message["auth"] = auth      # only with "login": it opens this link's session
        future = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        try:
            self._writer.write(json.dumps(message).encode() + b"\n")
            await self._writer.drain()
            reply = await asyncio.wait_for(future, timeout)
        except (OSError, TimeoutError) as exc:
            raise LinkError(_("{method}: no answer from the daemon ({error})").format(
                method=method, error=repr(exc))) from None
        finally:
            self._waiting.pop(request_id, None)
        if not reply.get("ok"):
            error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
            raise LinkError(f"{method}: {reply.get('error')}", error)
        return reply.get("result")

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                message = json.loads(line)
                future = self._waiting.get(message.get("id")) if "id" in message else None
                if future is not None and not future.done():
                    future.set_result(message)
                elif "stream" in message:
                    self.stream.put_nowait(message)
        except (OSError, ValueError):
            pass
        finally:
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(LinkError(_("the daemon closed the link")))
            self.stream.put_nowait(None)        # tells the session the daemon is gone
