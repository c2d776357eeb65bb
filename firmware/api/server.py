"""The API server inside the daemon's loop: a Unix socket (and TCP only if configured).

Each client has a bounded send queue drained by its own writer task, so a client that
stops reading fills only its own queue — and is then dropped, never waited for.
Requests run as tasks (at most MAX_IN_FLIGHT per client); anything that touches the
controller runs in the loop, slow work (token hashes, log queries) in threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import json
import os
import socket
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from firmware.api import protocol as p
from firmware.api.auth import Lockout, Technicians
from firmware.controller import ClearRefused, Controller
from firmware.eventlog import EventLog
from firmware.faults import Fault
from firmware.service import NoSuchMechanism, Service, ServiceRefused, mechanism_tests
from firmware.view import LAMPS

SEND_QUEUE = 512          # messages waiting for one client before it is dropped
STALL_S = 5.0             # a client that takes no bytes for this long is dropped
MAX_IN_FLIGHT = 16        # requests one client may have running at once; then reading waits
AUTH_AT_ONCE = 2          # token hashes computed at once (each takes 16 MiB)
SIGNALS_EVERY_S = 0.1     # the meter's sampling period (wall time)
STATUS_EVERY_S = 0.25
READ_CHUNK = 65536

OPEN_METHODS = ("info", "status", "subscribe", "faults", "diagnose", "walls", "log",
                "config", "estop")
PRIVILEGED = ("test", "testmode", "jog", "clear")   # and estop with release=true
SECRET_WORDS = ("token", "secret", "password", "key_hash")

Handler = Callable[["Client", dict[str, Any], str | None], Awaitable[Any]]


class Client:
    """One connection: its send queue, writer task and subscription."""

    def __init__(self, server: ApiServer, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, remote: bool) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.remote = remote
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(SEND_QUEUE)
        self.room = asyncio.Event()     # set while the send queue is under half full
        self.room.set()
        self.subscribed: set[str] = set()
        self.closed = False
        self.tasks: set[asyncio.Task[Any]] = set()
        self.peer = "tcp" if remote else "unix"

    def send(self, message: dict[str, Any]) -> bool:
        if self.closed:
            return False
        try:
            self.queue.put_nowait(p.encode(message))
        except asyncio.QueueFull:
            self.drop("it stopped reading (send queue full)")
            return False
        if self.queue.qsize() >= SEND_QUEUE // 2:
            self.room.clear()
        return True

    def drop(self, why: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.server.clients.discard(self)
        self.server.ctl.emit("api.client.dropped", why=why, peer=self.peer)
        self.writer.transport.abort()
        self.room.set()
        for task in self.tasks:
            task.cancel()

    async def write_loop(self) -> None:
        try:
            while True:
                data = await self.queue.get()
                if self.queue.qsize() < SEND_QUEUE // 2:
                    self.room.set()
                if data is None:
                    break
                self.writer.write(data)
                try:
                    await asyncio.wait_for(self.writer.drain(), STALL_S)
                except TimeoutError:
                    self.drop(f"it took nothing for {STALL_S:g} s (stopped reading)")
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.closed = True


class ApiServer:
    """Serves the API of one controller."""

    def __init__(self, ctl: Controller, service: Service, technicians: Technicians,
                 eventlog: EventLog | None, lockout: Lockout | None = None) -> None:
        self.ctl = ctl
        self.service = service
        self.technicians = technicians
        self.eventlog = eventlog
        api = ctl.config.api
        self.lockout = lockout or Lockout(ctl.clock, api.lockout_failures, api.lockout_s)
        self.clients: set[Client] = set()
        self.servers: list[asyncio.AbstractServer] = []
        self.socket_path: Path | None = None
        self.tcp_address: tuple[str, int] | None = None
        self._auth_slots = asyncio.Semaphore(AUTH_AT_ONCE)
        self._ticker: asyncio.Task[None] | None = None
        self._signals: dict[str, Any] = {}
        self._dirty: set[str] = set()       # inputs that changed since the last sample
        self._status_text = ""
        self._status_due = False            # an event happened: status may have changed
        self.handlers: dict[str, Handler] = {
            "info": self._info, "status": self._status, "subscribe": self._subscribe,
            "faults": self._faults, "diagnose": self._diagnose, "test": self._test,
            "testmode": self._testmode, "jog": self._jog, "clear": self._clear,
            "estop": self._estop, "walls": self._walls, "log": self._log,
            "config": self._config}
        ctl.subscribers.append(self._on_event)
        ctl.input_watchers.append(lambda name, _: self._dirty.add(name))

    # -- listening ----------------------------------------------------------------

    async def start_unix(self, path: str | Path) -> None:
        """Listen on `path` (mode 0660); a stale socket file is replaced."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_socket(path)
        server = await asyncio.start_unix_server(
            lambda r, w: self._serve(r, w, remote=False), path=str(path))
        os.chmod(path, 0o660)
        self.socket_path = path
        self.servers.append(server)
        self._start_ticker()

    async def start_tcp(self, host: str, port: int) -> None:
        """Listen on TCP: every request from there needs a technician credential."""
        server = await asyncio.start_server(
            lambda r, w: self._serve(r, w, remote=True), host=host, port=port)
        self.tcp_address = server.sockets[0].getsockname()[:2]
        self.servers.append(server)
        self._start_ticker()

    def _start_ticker(self) -> None:
        if self._ticker is None:
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def close(self) -> None:
        for server in self.servers:
            server.close()
        for client in list(self.clients):
            client.drop("the daemon is stopping")
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        for server in self.servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)
        if self.socket_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.socket_path.unlink()

    # -- one connection ----------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     remote: bool) -> None:
        client = Client(self, reader, writer, remote)
        self.clients.add(client)
        writer_task = asyncio.get_running_loop().create_task(client.write_loop())
        buffer = b""
        discarding = False
        try:
            while not client.closed:
                chunk = await reader.read(READ_CHUNK)
                if not chunk:
                    break
                buffer += chunk
                while True:
                    line, newline, rest = buffer.partition(b"\n")
                    if not newline:
                        if len(buffer) > p.MAX_LINE:
                            if not discarding:
                                client.send(p.error(None, p.TOO_LONG,
                                                    f"request line over {p.MAX_LINE} bytes; "
                                                    "skipped up to the next newline"))
                            discarding = True
                            buffer = b""
                        break
                    buffer = rest
                    if discarding:
                        discarding = False
                        continue
                    if len(line) > p.MAX_LINE:
                        client.send(p.error(None, p.TOO_LONG,
                                            f"request line over {p.MAX_LINE} bytes"))
                        continue
                    if line.strip():
                        # Backpressure: a client gets no more work done than it reads.
                        while len(client.tasks) >= MAX_IN_FLIGHT and not client.closed:
                            await asyncio.wait(set(client.tasks),
                                               return_when=asyncio.FIRST_COMPLETED)
                        await client.room.wait()
                        if client.closed:
                            break
                        self._dispatch(client, line)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.clients.discard(client)
            if not client.closed:
                # Let queued replies go out, then close.
                with contextlib.suppress(asyncio.QueueFull):
                    client.queue.put_nowait(None)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer_task, 2.0)
            client.closed = True
            writer_task.cancel()
            with contextlib.suppress(Exception):
                writer.close()

    def _dispatch(self, client: Client, line: bytes) -> None:
        try:
            request = p.decode_request(line)
        except p.ApiError as exc:
            client.send(p.error(None, exc.code, exc.message))
            return
        task = asyncio.get_running_loop().create_task(self._handle(client, request))
        client.tasks.add(task)
        task.add_done_callback(client.tasks.discard)

    async def _handle(self, client: Client, request: dict[str, Any]) -> None:
        request_id = request.get("id")
        method = request["method"]
        handler = self.handlers.get(method)
        try:
            if handler is None:
                raise p.ApiError(p.BAD_REQUEST, f"unknown method {method!r}; methods: "
                                 + ", ".join(self.handlers))
            technician = None
            if method in PRIVILEGED or client.remote or (
                    method == "estop" and request["params"].get("release")):
                technician = await self._authorize(request, method)
            result = await handler(client, request["params"], technician)
            client.send(p.reply(request_id, result))
        except p.ApiError as exc:
            client.send(p.error(request_id, exc.code, exc.message))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: answer it, log it, keep serving
            self.ctl.emit("api.error", method=method, error=repr(exc))
            client.send(p.error(request_id, p.INTERNAL, f"{method} failed inside the "
                                f"daemon: {exc!r}; the event log has it"))

    # -- technicians -------------------------------------------------------------

    async def _authorize(self, request: dict[str, Any], action: str) -> str:
        auth = request.get("auth")
        if auth is None:
            self.ctl.emit("technician.refused", name=None, action=action,
                          reason="no credential")
            raise p.ApiError(p.UNAUTHORIZED,
                             f"{action} needs a technician: pass --technician NAME and the "
                             "token in MJTABLE_TOKEN (or at the prompt)")
        name, token = auth["name"], auth["token"]
        locked = self.lockout.locked_for(name)
        if locked > 0:
            self.ctl.emit("technician.refused", name=name, action=action, reason="locked out")
            raise p.ApiError(p.FORBIDDEN,
                             f"technician {name!r} is locked out for another {locked:.0f} s "
                             "(table time) after repeated wrong tokens")
        async with self._auth_slots:
            ok = await asyncio.get_running_loop().run_in_executor(
                None, self.technicians.verify, name, token)
        if not ok:
            locked_now = self.lockout.failed(name)
            self.ctl.emit("technician.refused", name=name, action=action,
                          reason="wrong name or token", locked_out=locked_now)
            raise p.ApiError(p.FORBIDDEN, "wrong technician name or token"
                             + (f"; {name!r} is now locked out for {self.lockout.lock_s:g} s"
                                if locked_now else ""))
        self.lockout.succeeded(name)
        self.ctl.emit("technician.action", name=name, action=action,
                      params=_redact(request.get("params", {})))
        return name

    # -- streams -----------------------------------------------------------------

    def _on_event(self, event: dict[str, Any]) -> None:
        self._status_due = True
        for client in list(self.clients):
            if "events" in client.subscribed:
                client.send({"stream": "event", "event": event})

    async def _tick(self) -> None:
        """Sample every signal for the meter, and the status, for subscribers."""
        loop = asyncio.get_running_loop()
        next_status = loop.time()
        while True:
            await asyncio.sleep(SIGNALS_EVERY_S)
            watching = [c for c in self.clients if c.subscribed]
            if not watching:
                continue
            now = self.signals()
            # A pulse shorter than the sampling period still shows as a change.
            changed = {k: v for k, v in now.items()
                       if k in self._dirty or self._signals.get(k, object()) != v}
            self._signals = now
            self._dirty.clear()
            if changed:
                message = {"stream": "signals", "t": round(self.ctl.clock.now(), 3),
                           "signals": changed}
                for client in watching:
                    if "signals" in client.subscribed:
                        client.send(message)
            if loop.time() >= next_status:
                next_status = loop.time() + STATUS_EVERY_S
                status = self.status()
                text = json.dumps({k: v for k, v in status.items()
                                   if k not in ("t", "signals", "counters")}, default=str)
                if text != self._status_text or self._status_due:
                    self._status_text = text
                    self._status_due = False
                    for client in watching:
                        if "status" in client.subscribed:
                            client.send({"stream": "status", "status": status})

    # -- views -------------------------------------------------------------------

    def signals(self) -> dict[str, Any]:
        hal = self.ctl.hal
        return {name: hal.read(name) for name in hal.signals}

    def status(self, with_signals: bool = False) -> dict[str, Any]:
        ctl = self.ctl
        status = ctl.status()
        status.update({
            "t": round(ctl.clock.now(), 3),
            "table": ctl.config.table.id,
            "estopped": ctl.estopped,
            "display": ctl.hal.read("display"),
            "lamps": {name: bool(ctl.hal.read(name)) for name in LAMPS},
            "service": self.service.status(),
            "counters": {
                "hands": ctl.cycle.number,
                "handoffs": ctl.handoff.count,
                "faults_total": len(ctl.faults),
                "faults_active": sum(1 for f in ctl.faults if f.active),
                "events_logged": self.eventlog.written if self.eventlog else None,
                "tiles_counted": sum(s.counted for s in ctl.sides),
                "clients": len(self.clients),
            },
        })
        if with_signals:
            status["signals"] = {
                name: {"value": ctl.hal.read(name), "kind": sig.kind.value, "doc": sig.doc,
                       "output": sig.is_output}
                for name, sig in ctl.hal.signals.items()}
        return status

    def _fault(self, index: int, fault: Fault) -> dict[str, Any]:
        return {"ref": index + 1, **fault.as_dict()}

    # -- methods -----------------------------------------------------------------

    async def _info(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        return {"name": "mjtable", "protocol": p.VERSION, "table": self.ctl.config.table.id,
                "t": round(self.ctl.clock.now(), 3), "methods": sorted(self.handlers),
                "technician_needed": [*PRIVILEGED, "estop (release)"],
                "tests": [{"number": t.number, "name": t.name, "label": t.label}
                          for t in mechanism_tests()],
                "event_log_run": self.eventlog.run if self.eventlog else None}

    async def _status(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        return self.status(with_signals=True)

    async def _subscribe(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        wanted = params.get("streams", ["events", "signals", "status"])
        if not isinstance(wanted, list) or not set(wanted) <= {"events", "signals", "status"}:
            raise p.ApiError(p.BAD_REQUEST,
                             "streams must be a list of \"events\", \"signals\", \"status\"")
        client.subscribed = set(wanted)
        # The first stream messages are the whole picture; changes follow.
        return {"streams": sorted(client.subscribed), "status": self.status(True)}

    async def _faults(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        faults = [self._fault(i, f) for i, f in enumerate(self.ctl.faults)]
        logged: list[dict[str, Any]] = []
        if self.eventlog is not None:
            logged = await asyncio.get_running_loop().run_in_executor(
                None, lambda: self.eventlog.query(kind="fault", limit=100))
        return {"active": [f for f in faults if f["active"]], "history": faults,
                "logged": [row for row in logged if row.get("kind") == "fault"]}

    async def _diagnose(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        symptom = params.get("symptom")
        if not isinstance(symptom, str) or not symptom.strip():
            raise p.ApiError(p.BAD_REQUEST, "diagnose needs a \"symptom\" string")
        try:
            module = importlib.import_module("firmware.diagnosis")
        except ModuleNotFoundError as exc:
            if exc.name != "firmware.diagnosis":
                raise
            module = None
        diagnose = getattr(module, "diagnose", None)
        if diagnose is None:
            raise p.ApiError(p.NOT_AVAILABLE, "guided diagnosis is not available in this "
                             "build (firmware/diagnosis.py); see the fault list and "
                             "docs/console.md")
        finished: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        try:
            # The checks move mechanisms and take a few seconds; `done` ends them.
            result = diagnose(self.ctl, symptom,
                              lambda r: finished.done() or finished.set_result(r))
        except ValueError as exc:       # an unknown symptom
            raise p.ApiError(p.NOT_FOUND, str(exc)) from None
        if result is None:
            result = await finished
        self.ctl.emit("diagnosis", symptom=symptom, result=result)
        return result

    async def _test(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        name = params.get("mechanism")
        if not isinstance(name, str):
            raise p.ApiError(p.BAD_REQUEST, "test needs a \"mechanism\" (e.g. lid, head.2, all)")
        expected = len(mechanism_tests()) if name == "all" else 1
        loop = asyncio.get_running_loop()
        finished: asyncio.Future[list[dict[str, Any]]] = loop.create_future()
        results: list[dict[str, Any]] = []

        def done(result: dict[str, Any]) -> None:
            results.append(result)
            aborted = result["detail"].startswith("aborted")
            if (len(results) >= expected or aborted) and not finished.done():
                finished.set_result(results)

        try:
            self.service.test(name, who, done)
        except NoSuchMechanism as exc:
            raise p.ApiError(p.NOT_FOUND, str(exc)) from None
        except ServiceRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None
        return {"results": await finished, "test_mode": self.service.test_mode}

    async def _testmode(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        on = params.get("on")
        if not isinstance(on, bool):
            raise p.ApiError(p.BAD_REQUEST, "testmode needs \"on\": true or false")
        try:
            if on:
                self.service.enter(who, force=bool(params.get("force")))
            else:
                self.service.leave(who)
        except ServiceRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None
        return {"test_mode": self.service.test_mode, "cycle": self.ctl.cycle.state}

    async def _jog(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        motor, direction, seconds = (params.get(k) for k in ("motor", "direction", "seconds"))
        if not isinstance(motor, str) or not isinstance(direction, str) or not isinstance(
                seconds, int | float) or isinstance(seconds, bool):
            raise p.ApiError(p.BAD_REQUEST,
                             "jog needs \"motor\", \"direction\" and \"seconds\"")
        finished: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        try:
            self.service.jog(motor, direction, float(seconds), who or "?",
                             lambda r: finished.done() or finished.set_result(r))
        except NoSuchMechanism as exc:
            raise p.ApiError(p.NOT_FOUND, str(exc)) from None
        except ServiceRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None
        return await finished

    async def _clear(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        wanted = params.get("fault")
        if not isinstance(wanted, str | int) or isinstance(wanted, bool):
            raise p.ApiError(p.BAD_REQUEST,
                             "clear needs \"fault\": its ref number, id or display code")
        matches = [f for i, f in enumerate(self.ctl.faults) if f.active and (
            str(wanted) in (str(i + 1), f.id, f.code))]
        if not matches:
            active = ", ".join(f"#{i + 1} {f.code} {f.id}"
                               for i, f in enumerate(self.ctl.faults) if f.active)
            raise p.ApiError(p.NOT_FOUND, f"no active fault {wanted!r}; active: "
                             + (active or "none"))
        refed = params.get("refed") is True     # the operator refed the set it holds for
        for fault in matches:
            try:
                self.ctl.clear_fault(fault, who or "?", refed=refed)
            except ClearRefused as exc:     # a sensor still shows the cause
                raise p.ApiError(p.REFUSED, str(exc)) from None
        resumed = self.service.resume_if_clear()
        return {"cleared": [f.as_dict() for f in matches], "resumed": resumed,
                "still_active": [self._fault(i, f) for i, f in enumerate(self.ctl.faults)
                                 if f.active],
                "estopped": self.ctl.estopped, "test_mode": self.service.test_mode}

    async def _estop(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        if params.get("release"):
            if not self.ctl.estopped:
                raise p.ApiError(p.REFUSED, "the e-stop is not active")
            self.ctl.release_estop(who or "?")
            resumed = self.service.resume_if_clear()
            return {"estopped": False, "resumed": resumed}
        # Anyone who can reach the socket may stop the table; a name is logged if given.
        by = who
        auth = params.get("name")
        if by is None and isinstance(auth, str):
            by = f"{auth[:32]} (unverified)"
        self.ctl.estop(by)
        return {"estopped": True, "cycle": self.ctl.cycle.state}

    async def _walls(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        limit = params.get("limit", 5)
        if not isinstance(limit, int) or limit < 1:
            raise p.ApiError(p.BAD_REQUEST, "limit must be a positive integer")
        handoff = self.ctl.handoff
        return {"commitment": handoff.commitment, "records": handoff.records[-limit:]}

    async def _log(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        if self.eventlog is None:
            raise p.ApiError(p.NOT_AVAILABLE, "this daemon runs without an event log")
        filters: dict[str, Any] = {}
        types = {"kind": str, "cycle": int, "run": int, "since": (int, float),
                 "until": (int, float), "after_seq": int, "limit": int}
        for key, value in params.items():
            if key not in types:
                raise p.ApiError(p.BAD_REQUEST, f"unknown log filter {key!r}; filters: "
                                 + ", ".join(types))
            if value is None:
                continue
            if not isinstance(value, types[key]) or isinstance(value, bool):
                raise p.ApiError(p.BAD_REQUEST, f"log filter {key} has the wrong type")
            filters[key] = value
        log = self.eventlog
        await asyncio.get_running_loop().run_in_executor(None, log.flush)
        rows = await asyncio.get_running_loop().run_in_executor(
            None, lambda: log.query(**filters))
        return {"run": log.run, "rows": rows}

    async def _config(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        return _redact(dataclasses.asdict(self.ctl.config))


def _redact(value: Any) -> Any:
    """Config or params with anything secret-looking replaced."""
    if isinstance(value, dict):
        return {k: "<redacted>" if any(w in str(k).lower() for w in SECRET_WORDS)
                else _redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact(v) for v in value]
    return value


def _remove_stale_socket(path: Path) -> None:
    """Remove a socket file left by a daemon that died; refuse to steal a live one."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise OSError(f"{path} exists and is not a socket; move it away or pick another "
                      "--socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        path.unlink()
        return
    finally:
        probe.close()
    raise OSError(f"another table daemon is already serving {path}; stop it first or "
                  "pick another --socket")
