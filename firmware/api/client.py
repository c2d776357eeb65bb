"""The one client of the daemon's API: the console, the TUI, the venue's agent and phone
console and the benches all speak to the daemon through it.

Two faces of one protocol (newline-delimited JSON, docs/console.md):
- `Client` blocks: a technician's one-shot command, a bench. A refusal or a daemon
  that cannot be reached raises `ClientError`, whose message a technician reads.
- `AsyncClient` runs in an asyncio loop: the TUI (`call`, a reply that is never raised)
  and the agent (`request`, the result or `ClientError`). The daemon's streams go to a
  callback or to the `stream` queue, which ends with None when the daemon goes away.

The daemon never waits for a client: one that stops reading is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from firmware import i18n, words
from firmware.api import protocol as p
from firmware.i18n import _

# Method names, as the daemon registers them (firmware/api/access.py).
INFO, STATUS, SUBSCRIBE, FAULTS, WALLS, LOG, CONFIG = (
    "info", "status", "subscribe", "faults", "walls", "log", "config")
LOGIN, LOGOUT, ESTOP, DIAGNOSE, SCORE, USAGE, COMMAND = (
    "login", "logout", "estop", "diagnose", "score", "usage", "command")
HEALTH, MAINTAINED, CLEAR, TESTMODE, TEST, JOG = (
    "health", "maintained", "clear", "testmode", "test", "jog")
JOG_HOLD, JOG_KEEP, JOG_STOP = "jog_hold", "jog_keep", "jog_stop"
# What a remote console draws its controls from (firmware/api/controls.py).
SYMPTOMS, JOG_MOTORS = "symptoms", "jog_motors"
METHODS = frozenset({INFO, STATUS, SUBSCRIBE, FAULTS, WALLS, LOG, CONFIG, LOGIN, LOGOUT,
                     ESTOP, DIAGNOSE, SCORE, USAGE, COMMAND, HEALTH, MAINTAINED, CLEAR,
                     TESTMODE, TEST, JOG, JOG_HOLD, JOG_KEEP, JOG_STOP, SYMPTOMS, JOG_MOTORS})

EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_NO_DAEMON = 3
# Replies are read up to this long a line (a log page, a recording).
READ_LIMIT = p.MAX_LINE * 64
# A daemon that does not answer a request in this long (hung, stopped) is told as one
# line, never waited on for ever.
REPLY_TIMEOUT_S = 30.0
TIMEOUT = "timeout"     # the error code of a reply that did not come
CLOSED = "closed"       # the error code when there is no daemon to ask


class ClientError(Exception):
    """The daemon refused, or could not be reached. `str()` is what a person reads;
    `exit_code` what a command returns; `code` and `error` the daemon's own."""

    def __init__(self, message: str, exit_code: int = EXIT_REFUSED, code: str | None = None,
                 error: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.code = code
        self.error = error or {}


def refusal(method: str, reply: dict[str, Any]) -> ClientError:
    """The daemon's refusal of `method`, in the reader's language."""
    error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
    return ClientError(_("{verb} refused: {message}").format(
        verb=words.method(method), message=error.get("message") or _("no reason given")),
        EXIT_REFUSED, error.get("code"), error)


def _where(socket_path: str | Path | None, tcp: tuple[str, int] | None) -> str:
    return f"tcp {tcp[0]}:{tcp[1]}" if tcp else str(socket_path)


def _unreachable(where: str, exc: OSError) -> ClientError:
    if isinstance(exc, FileNotFoundError | ConnectionRefusedError):
        message = _("no table daemon at {where} — is `mjtable run` running?").format(
            where=where)
    elif isinstance(exc, PermissionError):
        message = _("not allowed to open {where}: join the table daemon's group (or run "
                    "as its user)").format(where=where)
    else:
        message = _("cannot reach the table daemon at {where}: {reason}").format(
            where=where, reason=exc.strerror or exc)
    return ClientError(message, EXIT_NO_DAEMON, CLOSED)


class Client:
    """One blocking connection; `call` sends a request and waits for its reply."""

    def __init__(self, socket_path: str | Path | None = None,
                 tcp: tuple[str, int] | None = None, timeout: float = REPLY_TIMEOUT_S,
                 technician: tuple[str, str] | None = None) -> None:
        self.where = _where(socket_path, tcp)
        self.technician = technician
        self.logged_in = False
        self._ids = itertools.count(1)
        try:
            if tcp is not None:
                self.sock = socket.create_connection(tcp, timeout=timeout)
            else:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.settimeout(timeout)
                self.sock.connect(str(socket_path))
        except OSError as exc:
            raise _unreachable(self.where, exc) from None
        self.file = self.sock.makefile("rb")

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def call(self, method: str, params: dict[str, Any] | None = None,
             auth: bool = False) -> Any:
        """The result, or ClientError carrying the daemon's error message."""
        if auth or self.technician is not None:
            if self.technician is None:
                raise ClientError(_("{method} needs a technician: pass --technician NAME "
                                    "(token in MJTABLE_TOKEN or at the prompt)")
                                  .format(method=words.method(method)), EXIT_REFUSED)
            if not self.logged_in:
                # The token travels once, in `login`; the session covers this connection.
                name, token = self.technician
                self._request({"id": next(self._ids), "method": LOGIN, "params": {},
                               "auth": {"name": name, "token": token}}, LOGIN)
                self.logged_in = True
        # "lang": the texts in the reply in the console's language (docs/console.md).
        return self._request({"id": next(self._ids), "method": method,
                              "params": params or {}, "lang": i18n.current()}, method)

    def streams(self) -> Iterator[dict[str, Any]]:
        """The stream messages a `subscribe` asked for, as they come, until the daemon
        closes the connection (no reply timeout: a stream may be quiet for long)."""
        self.sock.settimeout(None)
        for line in iter(lambda: self.file.readline(READ_LIMIT), b""):
            message = json.loads(line)
            if "stream" in message:
                yield message

    def _request(self, request: dict[str, Any], method: str) -> Any:
        data = p.encode(request)
        if len(data) > p.MAX_LINE:
            # The daemon would skip it, and answer without our id: say it here.
            raise ClientError(_("{verb}: the request is {size} KiB, over the daemon's "
                                "{limit} KiB; say it in fewer words").format(
                verb=method, size=len(data) // 1024, limit=p.MAX_LINE // 1024), EXIT_USAGE)
        try:
            self.sock.sendall(data)
            while True:
                line = self.file.readline(READ_LIMIT)
                if not line:
                    raise ClientError(_("the table daemon at {where} closed the connection")
                                      .format(where=self.where), EXIT_NO_DAEMON, CLOSED)
                message = json.loads(line)
                if "stream" in message:
                    continue
                # A line the daemon could not read is answered without an id; one
                # request is out at a time, so that answer is ours.
                if message.get("id") == request["id"] or (
                        message.get("id") is None and not message.get("ok")):
                    break
        except TimeoutError:
            raise ClientError(_("no reply from the table daemon at {where}")
                              .format(where=self.where), EXIT_NO_DAEMON, TIMEOUT) from None
        except OSError as exc:
            raise ClientError(_("lost the table daemon at {where}: {reason}")
                              .format(where=self.where, reason=exc), EXIT_NO_DAEMON,
                              CLOSED) from None
        if not message.get("ok"):
            raise refusal(method, message)
        return message.get("result")


def not_connected() -> dict[str, Any]:
    """The reply `AsyncClient.call` gives when there is no daemon to ask."""
    return p.error(None, CLOSED, _("not connected to a table daemon"))


class AsyncClient:
    """One asyncio connection: replies matched by id, streams to `on_stream` (or to
    the `stream` queue), `on_closed` called once when the daemon goes away."""

    def __init__(self, socket_path: str | Path | None = None,
                 tcp: tuple[str, int] | None = None,
                 on_stream: Callable[[dict[str, Any]], None] | None = None,
                 on_closed: Callable[[], None] | None = None,
                 reply_timeout_s: float = REPLY_TIMEOUT_S) -> None:
        self.socket_path, self.tcp = socket_path, tcp
        self.where = _where(socket_path, tcp)
        self.stream: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.on_stream = on_stream or self.stream.put_nowait
        self.on_closed = on_closed
        self.reply_timeout_s = reply_timeout_s
        self.closed = True
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._session: tuple[str, str] | None = None
        self._task: asyncio.Task[None] | None = None
        self._writer: asyncio.StreamWriter | None = None

    @classmethod
    async def connect(cls, socket_path: str | Path | None = None,
                      tcp: tuple[str, int] | None = None,
                      on_stream: Callable[[dict[str, Any]], None] | None = None,
                      on_closed: Callable[[], None] | None = None) -> AsyncClient:
        client = cls(socket_path, tcp, on_stream, on_closed)
        await client.open()
        return client

    async def open(self) -> None:
        """Connect; ClientError if the daemon cannot be reached."""
        try:
            if self.tcp is not None:
                reader, self._writer = await asyncio.open_connection(*self.tcp,
                                                                     limit=READ_LIMIT)
            else:
                reader, self._writer = await asyncio.open_unix_connection(
                    str(self.socket_path), limit=READ_LIMIT)
        except OSError as exc:
            raise _unreachable(self.where, exc) from None
        self.closed = False
        self._task = asyncio.get_running_loop().create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                message = json.loads(line)
                future = self._waiting.pop(message.get("id"), None) if "id" in message \
                    else None
                if future is not None:
                    if not future.done():
                        future.set_result(message)
                elif "stream" in message:
                    self.on_stream(message)
        except (OSError, ValueError):   # reset, or a line that is not the API's
            pass
        self._lost()

    def _lost(self) -> None:
        if self.closed:
            return
        self.closed = True
        waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_result(not_connected())
        self.stream.put_nowait(None)        # tells a reader of the queue it is over
        if self.on_closed is not None:
            self.on_closed()

    async def call(self, method: str, params: dict[str, Any] | None = None,
                   credential: tuple[str, str] | None = None, lang: str | None = None,
                   timeout: float | None = None) -> dict[str, Any]:
        """The reply; a daemon gone away or silent is a refusal like any other, never
        raised. `credential` logs this connection in first (once per session)."""
        if self.closed:
            return not_connected()
        try:
            if credential is not None and credential != self._session:
                login = await self.login(credential)
                if not login.get("ok"):
                    return login
            return await self._send({"id": next(self._ids), "method": method,
                                     "params": params or {},
                                     "lang": lang or i18n.current()}, timeout)
        except (OSError, RuntimeError):     # reset, broken pipe, transport closed
            self._lost()
            return not_connected()

    async def request(self, method: str, params: dict[str, Any] | None = None,
                      lang: str | None = None, timeout: float = 10.0,
                      auth: dict[str, str] | None = None) -> Any:
        """The result, or ClientError (refused, gone, or no answer within `timeout`).
        `auth` only with "login": it opens this connection's session."""
        if self.closed:
            raise ClientError(_("the link to the daemon is closed"), EXIT_NO_DAEMON, CLOSED)
        message: dict[str, Any] = {"id": next(self._ids), "method": method,
                                   "params": params or {}}
        if lang:
            message["lang"] = lang
        if auth is not None:
            message["auth"] = auth
        try:
            reply = await self._send(message, timeout)
        except (OSError, RuntimeError) as exc:
            self._lost()
            raise ClientError(_("{method}: no answer from the daemon ({error})").format(
                method=method, error=repr(exc)), EXIT_NO_DAEMON, CLOSED) from None
        if not reply.get("ok"):
            # `error` is the daemon's own, and only when the daemon answered: empty, the
            # daemon is gone or silent (the caller tells "offline" from "refused").
            error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
            if reply.get("id") is None and error.get("code") == TIMEOUT:
                raise ClientError(_("{method}: no answer from the daemon ({error})").format(
                    method=method, error="TimeoutError()"), EXIT_NO_DAEMON, TIMEOUT)
            if reply.get("id") is None and error.get("code") == CLOSED:
                raise ClientError(_("the daemon closed the link"), EXIT_NO_DAEMON, CLOSED)
            raise ClientError(f"{method}: {reply.get('error')}", EXIT_REFUSED,
                              error.get("code"), error)
        return reply.get("result")

    async def login(self, credential: tuple[str, str]) -> dict[str, Any]:
        """Open the session now: the token travels once, and a wrong one is said at the
        login, not at the first action."""
        reply = await self._send({"id": next(self._ids), "method": LOGIN, "params": {},
                                  "auth": {"name": credential[0], "token": credential[1]}})
        if reply.get("ok"):
            self._session = credential
        return reply

    async def _send(self, request: dict[str, Any],
                    timeout: float | None = None) -> dict[str, Any]:
        assert self._writer is not None
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request["id"]] = future
        try:
            self._writer.write(p.encode(request))
            await self._writer.drain()
            return await asyncio.wait_for(future, timeout or self.reply_timeout_s)
        except TimeoutError:
            return p.error(None, TIMEOUT, _("the table daemon did not answer in {s:.0f} s")
                           .format(s=timeout or self.reply_timeout_s))
        finally:
            self._waiting.pop(request["id"], None)

    def close(self) -> None:
        """Our own close: nobody is told (`on_closed` is for the daemon going away)."""
        self.closed = True
        if self._task is not None:
            self._task.cancel()
        if self._writer is not None:
            self._writer.close()

    async def aclose(self) -> None:
        """Close, and wait for the reader to end."""
        self.close()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
