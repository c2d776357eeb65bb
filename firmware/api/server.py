"""The API server inside the daemon's loop: a Unix socket (and TCP only if configured).

Each client has a bounded send queue drained by its own writer task, so a client that
stops reading fills only its own queue — and is then dropped, never waited for.
Requests run as tasks (at most MAX_IN_FLIGHT per client); anything that touches the
controller runs in the loop, slow work (token hashes, log queries) in threads.

The table runs on the same loop, so no client may hold it: lines are framed in linear
time (firmware/api/framing.py) and the loop gets a turn every few lines; every line
and byte a client sends is charged to its own budget and everyone's
(firmware/api/guards/budget.py), and a client past them is not read; an e-stop press skips
every budget. Rows a client can cause go through one gate (mjtable_core/clientrows.py).

Access (docs/console.md, "Security"): every method has a class (firmware/api/access.py);
technician and motion requests need a session, opened on the connection by `login`
with a name and token, so a captured request line carries no token and cannot be
replayed on another connection. Connections are limited in number (overall and per
uid) and dropped when idle.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import itertools
import json
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware import i18n, words
from firmware.api import controls, health, hold, usage, venue
from firmware.api import protocol as p
from firmware.api.access import (
    MOTION,
    OPEN,
    TECHNICIAN,
    check_classified,
    classify,
    method,
    needs_technician,
)
from firmware.api.auth import Technicians, technician_name
from firmware.api.calls import Handler
from firmware.api.framing import OVERLONG, LineSplitter
from firmware.api.guards.budget import Budgets
from firmware.api.guards.lockout import Lockout
from firmware.api.guards.peers import Peer, admitted, connection_budget, group_id, unix_peer
from firmware.api.guards.tcpslots import PER_TECHNICIAN as TCP_PER_TECHNICIAN
from firmware.api.guards.tcpslots import Slot, place, technician_full
from firmware.api.loglane import LogLane
from firmware.api.logreply import Encoded, bounded_log
from firmware.api.refusals import DroppedConnections, OpenDiagnoses, RefusalLog
from firmware.api.table import Table
from firmware.diagnosis.guided import diagnose
from firmware.faults.clearing import ClearRefused
from firmware.faults.kinds import Fault
from firmware.faults.recovery import plan
from firmware.hands.handoff import public_event, public_record
from firmware.hands.scoring import ScoreRefused
from firmware.i18n import N_, _
from firmware.machines.cycle import HAND_IN_PLAY, CycleState
from firmware.machines.maintenance import (
    Maintenance,
    MaintenanceRefused,
    NoSuchMechanism,
    mechanism_tests,
)
from firmware.printable import clean, printable
from firmware.state.eventlog import EventLog
from firmware.state.ledger import Ledger
from firmware.state.storage import STORAGE_ERRORS, problem
from firmware.why import IDLE, SLOW_LINE, STOPPED_READING
from mjtable_core.clientrows import ClientRows
from mjtable_core.limits import Bucket, network
from mjtable_core.signals import Kind

SEND_QUEUE = 512          # messages waiting for one client before it is dropped
STALL_S = 5.0             # a client that takes no bytes for this long is dropped
MAX_IN_FLIGHT = 16        # requests one client may have running at once; then reading waits
AUTH_AT_ONCE = 2          # token hashes computed at once (each takes 16 MiB)
SIGNALS_EVERY_S = 0.1     # the meter's sampling period (wall time)
STATUS_EVERY_S = 0.25
READ_CHUNK = 65536
MAX_CLIENTS = 128         # connections at once (fewer if the fd limit is low)
MAX_PER_PEER = 16         # connections at once from one uid (or from TCP)
LINE_S = 10.0             # a request line must arrive whole within this (slowloris)
IDLE_S = 300.0            # a connection that sends nothing and subscribes to nothing
SESSION_S = 900.0         # a login lasts this long on its connection (table time)
SECRET_WORDS = ("token", "secret", "password", "key_hash", "nonce")
# A client past its budget (firmware/api/guards/budget.py) is not read until the budget is
# back: the kernel then holds its bytes.
LINES_PER_TURN = 8        # lines framed before the loop gets a turn (timers, the table)
JUNK_HOLD_S = 10.0        # a connection sending lines that are no request: held, closed
LOG_PACE = 9.0            # after a log read, wait this many times its processor time:
                          # log reads take at most a tenth of a processor
MAX_SYMPTOM = 300         # characters a technician says of a symptom
TCP_LOGIN_S = 10.0        # a TCP connection not logged in by then is dropped
ACTIONS_PER_WINDOW = 60   # rows of one technician's action (or login) a minute


_OPENED = itertools.count()


class Client:
    """One connection: its send queue, writer task and subscription."""

    def __init__(self, server: ApiServer, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, remote: bool, peer: Peer) -> None:
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
        self.peer = peer
        self.technician: str | None = None     # the session's, after `login`
        self.session_until = 0.0
        budgets = server.budgets
        self.lines = Bucket(*budgets.client_lines)
        self.bytes = Bucket(*budgets.client_bytes)
        self.junk = Bucket(*budgets.junk)
        self.estops = Bucket(*budgets.estop_lane)
        self.host = ""      # a TCP client's address
        self.net = ""       # and the network it is counted in (mjtable_core/limits.py)
        self.opened = next(_OPENED)     # oldest first, when a slot is taken

    def send(self, message: dict[str, Any]) -> bool:
        return self.send_line(p.encode(message))

    def send_line(self, line: bytes) -> bool:
        if self.closed:
            return False
        transport = self.writer.transport
        if self.queue.empty() and not transport.is_closing() and (
                transport.get_write_buffer_size() == 0):
            # Nothing waits before it and the kernel took all the rest: out now, not
            # after the loop's turn. A fault's event must not wait for the journal's
            # fsync in the emit that raised it, nor for the rest of a batch of timers.
            # A client that stops reading fills the kernel's buffer, then the queue.
            self.writer.write(line)
            return True
        try:
            self.queue.put_nowait(line)
        except asyncio.QueueFull:
            self.drop(N_("it stopped reading (send queue full)"), "stopped reading")
            return False
        if self.queue.qsize() >= SEND_QUEUE // 2:
            self.room.clear()
        return True

    def drop(self, why: str, cause: str | None = None) -> None:
        """Close the connection now; logged once per peer and `cause` per window."""
        if self.closed:
            return
        self.closed = True
        self.server.clients.discard(self)
        self.server.dropped.dropped(self.peer.key, cause or why, why, self.peer.as_log())
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
                    self.drop(STOPPED_READING.format(seconds=f"{STALL_S:g}"),
                              "stopped reading")
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.closed = True


class ApiServer:
    """Serves the API of one controller."""

    def __init__(self, ctl: Table, maintenance: Maintenance, technicians: Technicians,
                 eventlog: EventLog | None, lockout: Lockout | None = None,
                 max_clients: int = MAX_CLIENTS) -> None:
        self.ctl = ctl
        self.maintenance = maintenance
        self.technicians = technicians
        self.eventlog = eventlog
        api = ctl.config.api
        self.lockout = lockout or Lockout(ctl.clock, api.lockout_failures, api.lockout_s)
        # Every row a client can cause goes through one gate (mjtable_core/clientrows.py).
        self.client_rows = ClientRows(ctl.clock, ctl.emit)
        self.refusals = RefusalLog(ctl.clock, self.client_rows.emit)
        self.dropped = DroppedConnections(ctl.clock, self.client_rows.emit)
        self.set_budgets(Budgets())
        self.estop_networks = _networks(ctl.config.api.tcp_estop_networks)
        self.net_prefix = ctl.config.api.tcp_net_prefix
        # Event-log reads, one at a time over every client: each holds the GIL for
        # most of its work, and many at once starve the loop the table runs on.
        self.log_reads = LogLane()
        self.open_diagnoses = OpenDiagnoses(ctl.clock, self.client_rows.emit)
        self.clients: set[Client] = set()
        self.max_clients = connection_budget(max_clients)
        self.socket_gid = os.getgid()
        self.servers: list[asyncio.AbstractServer] = []
        self.socket_path: Path | None = None
        self.tcp_address: tuple[str, int] | None = None
        self._auth_slots = asyncio.Semaphore(AUTH_AT_ONCE)
        self._ticker: asyncio.Task[None] | None = None
        self._signals: dict[str, Any] = {}
        self._dirty: set[str] = set()       # inputs that changed since the last sample
        self._status_text = ""
        self._status_due = False            # an event happened: status may have changed
        self.closing: list[Callable[[Client], None]] = []   # told when a connection ends
        # Wall time stamps a fault for people (its age on the venue's screens, kept
        # across the venue's and the agent's restarts); it never steers the table.
        self.wall: Callable[[], float] | None = None
        self._raised_walls: dict[tuple[str, str, float], float] = {}
        self.handlers: dict[str, Handler] = {
            "info": self._info, "status": self._status, "subscribe": self._subscribe,
            "faults": self._faults, "diagnose": self._diagnose, "test": self._test,
            "testmode": self._testmode, "jog": self._jog, "clear": self._clear,
            "estop": self._estop, "walls": self._walls, "log": self._log,
            "config": self._config, "login": self._login, "logout": self._logout,
            "score": self._score, **usage.handlers(self), **venue.handlers(self),
            **hold.handlers(self), **health.handlers(self), **controls.handlers(self)}
        self.ledger: Ledger | None = None      # the usage ledger, when the daemon has one
        self.venue: venue.Venue | None = None  # signed commands and the booking gate
        # Default deny: a handler written without its class, and no daemon starts.
        self.classes = check_classified(self.handlers)
        ctl.subscribers.append(self._on_event)
        # A reader's own reports never mark it changed: a backend that reports only a
        # new code would say "the same tile as the last" by its silence. Its shown
        # value ("read" or none) still changes, the same for every tile.
        self._readers = {n for n, sig in ctl.hal.signals.items() if sig.kind is Kind.READER}
        ctl.input_watchers.append(
            lambda name, _: None if name in self._readers else self._dirty.add(name))

    def set_budgets(self, budgets: Budgets) -> None:
        """What clients may make the daemon do; new connections get their own share."""
        self.budgets = budgets
        self.all_lines = Bucket(*budgets.all_lines)
        self.all_bytes = Bucket(*budgets.all_bytes)
        self.peer_quiet: dict[str, Bucket] = {}     # by uid (or "tcp"): a few keys

    def _quiet(self, peer: Peer) -> Bucket:
        bucket = self.peer_quiet.get(peer.key)
        if bucket is None:
            bucket = self.peer_quiet[peer.key] = Bucket(*self.budgets.peer_quiet)
        return bucket

    # -- listening ----------------------------------------------------------------

    async def start_unix(self, path: str | Path, group: str = "") -> None:
        """Listen on `path` (mode 0660, owned by `group` when given); a stale socket
        file is replaced. Only root, our uid and the group's members are served."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_socket(path)
        gid = group_id(group)
        server = await asyncio.start_unix_server(
            lambda r, w: self._serve(r, w, remote=False), path=str(path))
        os.chmod(path, 0o660)
        if gid is not None:
            os.chown(path, -1, gid)
            self.socket_gid = gid
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
            client.drop(N_("the daemon is stopping"))
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
        peer = (Peer(address=str(writer.get_extra_info("peername"))) if remote
                else unix_peer(writer.get_extra_info("socket")))
        host = _host(writer.get_extra_info("peername")) if remote else ""
        why = self._refuse_connection(peer, host)
        if why is not None:
            # Said once, not logged: a flood of connections must not flood the log.
            with contextlib.suppress(Exception):
                writer.write(p.encode(p.error(None, p.REFUSED, why)))
                writer.transport.abort()
            return
        client = Client(self, reader, writer, remote, peer)
        client.host, client.net = host, network(host, self.net_prefix) if remote else ""
        self.clients.add(client)
        writer_task = asyncio.get_running_loop().create_task(client.write_loop())
        splitter = LineSplitter(p.MAX_LINE)
        loop = asyncio.get_running_loop()
        line_due = 0.0      # when the request line begun must be whole
        if remote:
            # Over TCP nothing but the e-stop works without a session: no slot is held
            # by a client that never logs in.
            loop.call_later(TCP_LOGIN_S, self._drop_unless_logged_in, client)
        try:
            while not client.closed:
                # A line begun must end in LINE_S: one byte every few seconds would
                # otherwise hold the slot for ever (slowloris).
                partial = splitter.partial
                wait = max(0.0, line_due - loop.time()) if partial else IDLE_S
                try:
                    chunk = await asyncio.wait_for(reader.read(READ_CHUNK), wait)
                except TimeoutError:
                    if partial:
                        client.drop(SLOW_LINE.format(seconds=f"{LINE_S:g}"), "slow line")
                        break
                    if client.subscribed or client.tasks:
                        continue
                    client.drop(IDLE.format(seconds=f"{IDLE_S:g}"), "idle")
                    break
                if not chunk:
                    break
                if not partial:
                    line_due = loop.time() + LINE_S
                splitter.feed(chunk)
                client.bytes.charge(len(chunk), loop.time())
                self.all_bytes.charge(len(chunk), loop.time())
                turn = 0
                while not client.closed:
                    line = splitter.next()
                    if line is None:
                        break
                    line_due = loop.time() + LINE_S     # the next line's own time
                    turn += 1
                    if turn >= LINES_PER_TURN:
                        # A read of many lines never holds the loop: the table's timers
                        # and the other clients get their turn.
                        turn = 0
                        await asyncio.sleep(0)
                    if line is not OVERLONG and self._estop_lane(client, line):
                        continue
                    # Past the lane an e-stop press or release waits for its own
                    # connection's budget only: never behind a flood from other clients.
                    estop = line is not OVERLONG and _is_estop(line)
                    # Every line costs, empty or garbage: none is free to send.
                    client.lines.charge(1, loop.time())
                    self.all_lines.charge(1, loop.time())
                    if not estop:
                        self._quiet(client.peer).charge(1, loop.time())
                    line_due += await self._spend(client, client.lines, self.all_lines,
                                                  estop=estop)
                    if line is OVERLONG:
                        client.send(p.error(None, p.TOO_LONG,
                                            f"request line over {p.MAX_LINE} bytes; "
                                            "skipped up to the next newline"))
                        await self._junk(client)
                        continue
                    if not line.strip():
                        await self._junk(client)
                        continue
                    # Backpressure: a client gets no more work done than it reads.
                    while len(client.tasks) >= MAX_IN_FLIGHT and not client.closed:
                        await asyncio.wait(set(client.tasks),
                                           return_when=asyncio.FIRST_COMPLETED)
                    await client.room.wait()
                    if client.closed:
                        break
                    if not self._dispatch(client, line):
                        await self._junk(client)
                line_due += await self._spend(client, client.bytes, self.all_bytes)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.clients.discard(client)
            for closing in self.closing:
                closing(client)     # a hold-to-run jog of this connection stops now
            if not client.closed:
                # Let queued replies go out, then close.
                with contextlib.suppress(asyncio.QueueFull):
                    client.queue.put_nowait(None)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(writer_task, 2.0)
            client.closed = True
            writer_task.cancel()
            # Its replies can no longer go anywhere: requests still waiting (a pipeline
            # of log reads, say) are dropped, never left holding a lane for others.
            for task in list(client.tasks):
                task.cancel()
            with contextlib.suppress(Exception):
                writer.close()

    def _refuse_connection(self, peer: Peer, host: str = "") -> str | None:
        """Why a new connection is turned away, or None."""
        if not admitted(peer, self.socket_gid):
            return (f"uid {peer.uid} may not use this table's API: join the socket's "
                    "group")
        if len(self.clients) >= self.max_clients:
            return f"too many connections ({self.max_clients}); try again later"
        if peer.uid is None:
            # TCP has its own slots, counted per network; one not logged in holds
            # little and gives its slot up to a newcomer (firmware/api/guards/tcpslots.py).
            slots = [Slot(c, c.net, c.technician is not None,
                          c.technician is None and not self._estop_network(c))
                     for c in sorted(self.clients, key=lambda c: c.opened)
                     if c.remote and not c.closed]
            why, taken = place(slots, network(host, self.net_prefix))
            if why is not None:
                return why
            if taken is not None:
                taken.client.drop(N_("a newer connection took its slot (it had not "
                                     "logged in)"), "no login")
            return None
        if sum(1 for c in self.clients if c.peer.key == peer.key) >= MAX_PER_PEER:
            return f"too many connections from {peer.key} ({MAX_PER_PEER}); close some"
        return None

    def _dispatch(self, client: Client, line: bytes) -> bool:
        """Start one request; False when the line was no request (answered, counted)."""
        try:
            request = p.decode_request(line)
        except p.ApiError as exc:
            client.send(p.error(exc.request_id, exc.code, exc.message))
            return False
        self._start(client, request)
        return True

    def _start(self, client: Client, request: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._handle(client, request))
        client.tasks.add(task)
        task.add_done_callback(client.tasks.discard)

    def _estop_lane(self, client: Client, line: bytes) -> bool:
        """An e-stop press goes before the client's and everyone's budget (a few a
        second per connection, then it waits its turn like any request)."""
        if len(line) > 4096 or b"estop" not in line:
            return False
        now = asyncio.get_running_loop().time()
        if client.estops.empty(now):
            return False
        try:
            request = p.decode_request(line)
        except p.ApiError:
            return False
        if request["method"] != "estop" or request["params"].get("release"):
            return False
        client.estops.charge(1, now)
        self._start(client, request)
        return True

    async def _spend(self, client: Client, own: Bucket, everyone: Bucket,
                     estop: bool = False) -> float:
        """Wait while the client's or everyone's budget is spent; the seconds waited.
        A client that has asked little of late (its own budget over half full, and its
        uid's over all its connections not spent) never waits for everyone's: a flood
        from another uid does not hold it, and one uid's many connections do not pass
        everyone's budget by each staying under its own."""
        loop = asyncio.get_running_loop()
        waited = 0.0
        quiet = self._quiet(client.peer)
        while not client.closed:
            now = loop.time()
            spare = estop or (own.spare(now) and not quiet.empty(now))
            wait = own.wait_s(now) if spare else max(own.wait_s(now), everyone.wait_s(now))
            if wait <= 0:
                break
            await asyncio.sleep(wait)
            waited += wait
        return waited

    async def _junk(self, client: Client) -> None:
        """A line that was no request; a connection that keeps sending them is held
        unread for JUNK_HOLD_S, then dropped (dropped at once, it came straight back)."""
        now = asyncio.get_running_loop().time()
        client.junk.charge(1, now)
        if client.junk.empty(now):
            await asyncio.sleep(JUNK_HOLD_S)
            client.drop(N_("it kept sending lines that were no request"), "junk lines")

    def _drop_unless_logged_in(self, client: Client) -> None:
        # A panel on a network allowed to press the e-stop may stay connected.
        if not client.closed and client.technician is None and not self._estop_network(
                client):
            client.drop(N_("it did not log in (TCP needs a session)"), "no login")

    def _estop_network(self, client: Client) -> bool:
        """Whether a TCP client's address may press the e-stop without a session."""
        try:
            address = ipaddress.ip_address(client.host)
        except ValueError:
            return False
        return any(address in network for network in self.estop_networks)

    async def _handle(self, client: Client, request: dict[str, Any]) -> None:
        request_id = request.get("id")
        method = request["method"]
        handler = self.handlers.get(method)
        try:
            if handler is None:
                raise p.ApiError(p.BAD_REQUEST, f"unknown method {printable(method)!r}; "
                                 "methods: " + ", ".join(self.handlers))
            if "auth" in request and method != "login":
                raise p.ApiError(p.BAD_REQUEST, "a token goes only with \"login\"; "
                                 "the session then covers this connection")
            kind = classify(self.classes, method, request["params"])
            technician = None
            if method == "login":
                technician = await self._authorize(client, request)
            # Over TCP every request needs a session; pressing the e-stop only from
            # the networks configured for it ([api] tcp_estop_networks).
            if needs_technician(kind) or (client.remote and method != "login" and not (
                    method == "estop" and self._estop_network(client))):
                technician = self._session(client, method)
                self.client_rows.row("technician.action", (technician, method),
                                     per_key=ACTIONS_PER_WINDOW, name=technician,
                                     action=method, params=clean(_redact(request["params"])),
                                     **client.peer.as_log())
            if kind == MOTION:
                self._check_motion(method)
            # Texts in the reply speak the caller's language when it names one we have
            # (checks that finish later inherit it with the callbacks they schedule).
            lang = request.get("lang")
            with i18n.language(i18n.normalize(lang if isinstance(lang, str) else None)):
                result = await handler(client, request["params"], technician)
            if isinstance(result, Encoded):
                client.send_line(p.encode_reply(request_id, result.text))
            else:
                client.send(p.reply(request_id, result))
        except p.ApiError as exc:
            client.send(p.error(request_id, exc.code, exc.message))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: answer it, log it, keep serving
            # The type only: an exception's text may quote a token or a param.
            # One row per method and error a window (then a count): a request that
            # fails inside the daemon must not be a way to rotate the history away.
            self.client_rows.row("api.error", (printable(method[:64]), type(exc).__name__),
                                 method=printable(method[:64]), error=type(exc).__name__)
            client.send(p.error(request_id, p.INTERNAL, f"{printable(method)} failed inside "
                                f"the daemon ({type(exc).__name__}); the event log has it"))

    # -- technicians -------------------------------------------------------------

    async def _technicians(self, check: Callable[..., bool], *args: str) -> bool:
        """`check` on the technicians file, off the loop; a file that cannot be read
        (damaged, on a failing card) is a refusal that names it, not an internal error."""
        try:
            return await asyncio.get_running_loop().run_in_executor(None, check, *args)
        except STORAGE_ERRORS as exc:
            raise p.ApiError(p.REFUSED, problem(self.technicians.path, exc)) from None

    def _session(self, client: Client, action: str) -> str:
        """The technician logged in on this connection, or an UNAUTHORIZED refusal."""
        if client.technician is not None and self.ctl.clock.now() < client.session_until:
            return client.technician
        expired = client.technician is not None
        client.technician = None
        self.refusals.refused(None, None, "session expired" if expired else "no credential",
                              action, client.peer.as_log())
        raise p.ApiError(p.UNAUTHORIZED,
                         _("{action} needs a technician: pass --technician NAME and the "
                           "token in MJTABLE_TOKEN (or at the prompt); the console logs in "
                           "on the connection first").format(action=action)
                         + (" (the session on this connection expired)" if expired else ""))

    def _check_motion(self, action: str) -> None:
        """Motion waits for test mode while a hand is in play (players' hands are on
        the lid and their walls on the plates). An e-stop is said first: releasing it
        is the first thing to do either way."""
        if self.ctl.estopped:
            raise p.ApiError(p.REFUSED,
                             _("the e-stop is active: release it before moving anything"))
        if not self.maintenance.test_mode and hand_in_play(self.ctl):
            raise p.ApiError(p.REFUSED, _("{action} moves a mechanism and a hand is in play "
                               "(cycle {state}): enter test mode first "
                               "(console test-mode on)").format(
                                   action=action, state=words.state(self.ctl.cycle.state)))

    @method(OPEN)
    async def _login(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        """Open a session on this connection (`_handle` has checked the token)."""
        assert who is not None
        if client.remote and client.technician != who and technician_full(
                [c.technician for c in self.clients if c.remote and c is not client], who):
            raise p.ApiError(p.REFUSED, _("“{name}” has {most} sessions over TCP already; "
                                          "log out of one").format(name=who,
                                                                   most=TCP_PER_TECHNICIAN))
        client.technician = who
        client.session_until = self.ctl.clock.now() + SESSION_S
        self.client_rows.row("technician.login", who, per_key=ACTIONS_PER_WINDOW, name=who,
                             **client.peer.as_log())
        return {"technician": who, "session_s": SESSION_S}

    @method(OPEN)
    async def _logout(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        was, client.technician, client.session_until = client.technician, None, 0.0
        return {"logged_out": was}

    async def _authorize(self, client: Client, request: dict[str, Any]) -> str:
        """Check a name and token; count the guess before any hash is computed."""
        auth = request.get("auth")
        if auth is None:
            self.refusals.refused(None, None, "no credential", "login", client.peer.as_log())
            raise p.ApiError(p.UNAUTHORIZED, "login needs \"auth\": {\"name\": ..., "
                             "\"token\": ...}")
        # One name however typed (ｌｉ is li): the lockout counts what the check accepts.
        name, token = technician_name(auth["name"]), auth["token"]
        shown = printable(name[:64])
        peer = client.peer
        known = await self._technicians(self.technicians.known, name)
        keys = self.lockout.keys(name, peer.key, known)
        key_name = name if known else "<unknown names>"
        async with self.lockout.turn(keys):
            locked, everyone = self.lockout.locked(keys)
            if locked > 0:
                self.refusals.refused(key_name, shown, "locked out", "login", peer.as_log())
                # The all-uids lock is others' doing: never blame this uid for it.
                raise p.ApiError(p.FORBIDDEN,
                                 _("technician “{name}” is locked out for every uid for "
                                   "another {seconds:.0f} s (table time) after wrong tokens "
                                   "from several uids; try again then").format(
                                       name=shown, seconds=locked) if everyone else
                                 _("technician “{name}” is locked out for another "
                                   "{seconds:.0f} s (table time) after repeated wrong "
                                   "tokens from {peer}").format(
                                       name=shown, seconds=locked, peer=peer.key))
            self.lockout.attempt(keys)
            async with self._auth_slots:
                ok = await self._technicians(self.technicians.verify, name, token)
            if not ok:
                locked_now, everyone = self.lockout.locked(keys)
                self.refusals.refused(key_name, shown, "wrong name or token", "login",
                                      peer.as_log(), locked_out=locked_now > 0)
                now_locked = (_("; “{name}” is now locked out for {seconds:g} s for every uid")
                              if everyone else
                              _("; “{name}” is now locked out for {seconds:g} s"))
                raise p.ApiError(p.FORBIDDEN, _("wrong technician name or token") + (
                    now_locked.format(name=shown, seconds=round(locked_now))
                    if locked_now > 0 else ""))
            self.lockout.succeeded(keys)
        return name

    # -- streams -----------------------------------------------------------------

    def _on_event(self, event: dict[str, Any]) -> None:
        self._status_due = True
        if event.get("kind") == "fault" and self.wall is not None:
            key = (str(event.get("id")), str(event.get("where")), event.get("sim_time_s"))
            self._raised_walls.setdefault(key, round(self.wall(), 3))   # type: ignore[arg-type]
        watching = [c for c in self.clients if "events" in c.subscribed]
        if watching:
            shown = public_event(event)
            for client in watching:
                client.send({"stream": "event", "event": shown})

    async def _tick(self) -> None:
        """Sample every signal for the meter, and the status, for subscribers."""
        loop = asyncio.get_running_loop()
        next_status = loop.time()
        while True:
            await asyncio.sleep(SIGNALS_EVERY_S)
            self.refusals.flush()
            self.dropped.flush()
            self.client_rows.flush()
            watching = [c for c in self.clients if c.subscribed]
            if not watching:
                continue
            changed = self.sample_signals()
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

    def sample_signals(self) -> dict[str, Any]:
        """The signals that changed since the last sample, as the stream shows them."""
        now = self.signals()
        # A pulse shorter than the sampling period still shows as a change.
        changed = {k: v for k, v in now.items()
                   if k in self._dirty or self._signals.get(k, object()) != v}
        self._signals = now
        self._dirty.clear()
        return changed

    def signals(self) -> dict[str, Any]:
        hal = self.ctl.hal
        return {name: _shown_value(sig.kind, hal.read(name))
                for name, sig in hal.signals.items()}

    def status(self, with_signals: bool = False) -> dict[str, Any]:
        ctl = self.ctl
        status = ctl.status()
        status.update({
            "service": self.maintenance.status(),
            # Shown before the hand is dealt: players note it and check it later.
            "commitment": ctl.handoff.commitment,
            "hand_in_play": hand_in_play(ctl),
            "counters": {
                "hands": ctl.cycle.number,
                "handoffs": ctl.handoff.count,
                "faults_total": len(ctl.faults),
                "faults_active": sum(1 for f in ctl.faults if f.active),
                "events_logged": self.eventlog.written if self.eventlog else None,
                "tiles_counted": sum(s.counted for s in ctl.sides),
                "clients": len(self.clients),
            },
            # The booking gate (firmware/service/gate.py), None before the venue is attached.
            "gate": self.venue.gate.picture() if self.venue is not None else None,
        })
        if with_signals:
            status["signals"] = {
                name: {"value": _shown_value(sig.kind, ctl.hal.read(name)),
                       "kind": sig.kind.value, "doc": sig.doc,
                       "output": sig.is_output}
                for name, sig in ctl.hal.signals.items()}
        return status

    def _fault(self, index: int, fault: Fault) -> dict[str, Any]:
        raised = self._raised_walls.get((fault.id, fault.where, round(fault.sim_time_s, 3)))
        return {"ref": index + 1, **fault.as_dict(), "raised_wall": raised}

    # -- methods -----------------------------------------------------------------

    @method(OPEN)
    async def _info(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        return {"name": "mjtable", "protocol": p.VERSION, "table": self.ctl.config.table.id,
                "t": round(self.ctl.clock.now(), 3), "methods": sorted(self.handlers),
                "access": {m: self.classes[m] for m in sorted(self.handlers)},
                "technician_needed": [*sorted(m for m in self.handlers
                                              if needs_technician(self.classes[m])),
                                      "estop (release)", "diagnose (check)"],
                "tests": [{"number": t.number, "name": t.name, "label": t.label}
                          for t in mechanism_tests(self.ctl.geometry)],
                "event_log_run": self.eventlog.run if self.eventlog else None,
                # "ID:SHA256" of the last row committed: noted by anyone, it shows a
                # log whose tail was later cut off or rewritten (verify-log cannot).
                "event_log_head": self.eventlog.head if self.eventlog else None}

    @method(OPEN)
    async def _status(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        return self.status(with_signals=True)

    @method(OPEN)
    async def _subscribe(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        wanted = params.get("streams", ["events", "signals", "status"])
        if not isinstance(wanted, list) or not all(
                isinstance(w, str) for w in wanted) or not set(wanted) <= {
                "events", "signals", "status"}:
            raise p.ApiError(p.BAD_REQUEST,
                             "streams must be a list of \"events\", \"signals\", \"status\"")
        client.subscribed = set(wanted)
        # The first stream messages are the whole picture; changes follow.
        return {"streams": sorted(client.subscribed), "status": self.status(True)}

    @method(OPEN)
    async def _faults(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        faults = [self._fault(i, f) for i, f in enumerate(self.ctl.faults)]
        logged: list[dict[str, Any]] = []
        if self.eventlog is not None:
            # A hundred of the table's own rows: never queued behind clients' paced
            # `log` reads (a flood of them held a technician's `faults` for minutes).
            logged = await asyncio.get_running_loop().run_in_executor(
                None, lambda: self.eventlog.query(kind="fault", limit=100))
        return {"active": [f for f in faults if f["active"]], "history": faults,
                "logged": [row for row in logged if row.get("kind") == "fault"]}

    @method(OPEN)   # without "check": true it only reads what the firmware knows
    async def _diagnose(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        symptom = params.get("symptom")
        if not isinstance(symptom, str) or not symptom.strip():
            raise p.ApiError(p.BAD_REQUEST, _("diagnose needs a \"symptom\" string"))
        if len(symptom) > MAX_SYMPTOM:
            # Not echoed: what a technician sees of a symptom is a few words.
            raise p.ApiError(p.BAD_REQUEST, _(
                "a symptom is at most {most} characters (this one has {n}); say what you "
                "see in a few words").format(most=MAX_SYMPTOM, n=len(symptom)))
        finished: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        # Checks move mechanisms: only with "check": true, which needs a technician
        # (firmware/api/access.py). Without it the answer comes from what is known.
        checking = bool(params.get("check")) and who is not None
        try:
            result = diagnose(self.ctl, symptom,
                              (lambda r: finished.done() or finished.set_result(r))
                              if checking else None)
        except ValueError as exc:       # an unknown symptom
            # Line by line: the list of symptoms is one a line, what was said is escaped.
            raise p.ApiError(p.NOT_FOUND, "\n".join(
                printable(line) for line in str(exc).split("\n"))) from None
        if result is None:
            result = await finished
        if who is None:
            self.open_diagnoses.asked(printable(symptom), result)
        else:
            self.client_rows.row("diagnosis", who, per_key=ACTIONS_PER_WINDOW,
                                 symptom=printable(symptom), by=who, result=result)
        return result

    @method(MOTION)
    async def _test(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        name = params.get("mechanism")
        if not isinstance(name, str):
            raise p.ApiError(p.BAD_REQUEST, _("test needs a \"mechanism\" (e.g. lid, head.2, all)"))
        expected = len(mechanism_tests(self.ctl.geometry)) if name == "all" else 1
        loop = asyncio.get_running_loop()
        finished: asyncio.Future[list[dict[str, Any]]] = loop.create_future()
        results: list[dict[str, Any]] = []

        def done(result: dict[str, Any]) -> None:
            results.append(result)
            aborted = result["detail"].startswith("aborted")
            if (len(results) >= expected or aborted) and not finished.done():
                finished.set_result(results)

        try:
            self.maintenance.test(name, who, done)
        except NoSuchMechanism as exc:
            raise p.ApiError(p.NOT_FOUND, str(exc)) from None
        except MaintenanceRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None
        return {"results": await finished, "test_mode": self.maintenance.test_mode}

    @method(TECHNICIAN)
    async def _testmode(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        on = params.get("on")
        if not isinstance(on, bool):
            raise p.ApiError(p.BAD_REQUEST, "testmode needs \"on\": true or false")
        try:
            if on:
                self.maintenance.enter(who, force=bool(params.get("force")))
            else:
                self.maintenance.leave(who)
        except MaintenanceRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None
        held_by = self.ctl.status()["held_by"]
        cycle = self.ctl.cycle.state
        # Halted by test mode (or the e-stop), the cycle says what holds it, not
        # "fault": nothing is wrong with a table a technician is testing.
        return {"test_mode": self.maintenance.test_mode,
                "cycle": held_by if cycle == CycleState.FAULT and held_by else cycle,
                "held_by": held_by, "refeed_hold": self.ctl.refeed_hold is not None}

    @method(MOTION)
    async def _jog(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        motor, direction, seconds = (params.get(k) for k in ("motor", "direction", "seconds"))
        if not isinstance(motor, str) or not isinstance(direction, str) or not isinstance(
                seconds, int | float) or isinstance(seconds, bool):
            raise p.ApiError(p.BAD_REQUEST,
                             "jog needs \"motor\", \"direction\" and \"seconds\"")
        finished: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        try:
            self.maintenance.jog(motor, direction, float(seconds), who or "?",
                             lambda r: finished.done() or finished.set_result(r))
        except NoSuchMechanism as exc:
            raise p.ApiError(p.NOT_FOUND, str(exc)) from None
        except MaintenanceRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None
        return await finished

    @method(TECHNICIAN)
    async def _clear(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        wanted = params.get("fault")
        if not isinstance(wanted, str | int) or isinstance(wanted, bool):
            raise p.ApiError(p.BAD_REQUEST,
                             _("clear needs \"fault\": its ref number, id or display code"))
        matches = [f for i, f in enumerate(self.ctl.faults) if f.active and (
            str(wanted) in (str(i + 1), f.id, f.code))]
        if not matches:
            active = ", ".join(f"#{i + 1} {f.code} {f.id}"
                               for i, f in enumerate(self.ctl.faults) if f.active)
            raise p.ApiError(p.NOT_FOUND, _("no active fault “{wanted}”; active: {active}").format(
                                 wanted=printable(str(wanted)[:64]),
                                 active=active or _("none")))
        refed = params.get("refed") is True     # the operator refed the set it holds for
        for fault in matches:
            try:
                self.ctl.clear_fault(fault, who or "?", refed=refed)
            except ClearRefused as exc:     # a sensor still shows the cause
                raise p.ApiError(p.REFUSED, str(exc)) from None
        resumed = self.maintenance.resume_if_clear()
        return {"cleared": [f.as_dict() for f in matches], "resumed": resumed,
                "still_active": [self._fault(i, f) for i, f in enumerate(self.ctl.faults)
                                 if f.active],
                "estopped": self.ctl.estopped, "test_mode": self.maintenance.test_mode}

    @method(OPEN)   # anyone may stop the table; a release needs a technician (classify)
    async def _estop(self, client: Client, params: dict[str, Any], who: str | None) -> Any:
        if params.get("release"):
            if not self.ctl.estopped:
                raise p.ApiError(p.REFUSED, _("the e-stop is not active"))
            self.ctl.release_estop(who or "?")
            resumed = self.maintenance.resume_if_clear()
            return {"estopped": False, "resumed": resumed}
        # Anyone who can reach the socket may stop the table; a name is logged if given.
        if self.ctl.estopped:
            # Already stopped: pressing again changes nothing, so it logs nothing.
            return {"estopped": True, "cycle": self.ctl.cycle.state, "already": True}
        by = who or (client.technician if client is not None else None)
        auth = params.get("name")
        if by is None and isinstance(auth, str):
            by = f"{printable(auth[:32])} (unverified)"
        self.ctl.estop(by)
        return {"estopped": True, "cycle": self.ctl.cycle.state}

    @method(OPEN)
    async def _walls(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        limit = params.get("limit", 5)
        if not isinstance(limit, int) or limit < 1:
            raise p.ApiError(p.BAD_REQUEST, _("limit must be a positive integer"))
        handoff = self.ctl.handoff
        # A hand still in play shows its commitment, dice and break, never its tiles.
        return {"commitment": handoff.commitment,
                "records": [record if handoff.ended(record) else public_record(record)
                            for record in handoff.records[-limit:]]}

    @method(OPEN)
    async def _log(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        if self.eventlog is None:
            raise p.ApiError(p.NOT_AVAILABLE, _("this daemon runs without an event log"))
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
        async with self.log_reads.turn(client.peer.key):
            # Read and encoded in the thread, bounded in bytes (firmware/api/logreply.py).
            reading = asyncio.get_running_loop().run_in_executor(
                None, lambda: bounded_log(log, filters))
            try:
                result = await asyncio.shield(reading)
            except asyncio.CancelledError:
                # Its connection closed: a thread cannot be stopped, so the lane stays
                # taken until it ends, and rests after it all the same.
                with contextlib.suppress(Exception):
                    self.log_reads.rest((await reading).cpu_s * LOG_PACE)
                raise
            self.log_reads.rest(result.cpu_s * LOG_PACE)
        return result

    @method(OPEN)   # a player's action: the seats of the hand just ended enter its result
    async def _score(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        """A player enters the result of the hand just ended (firmware/hands/scoring.py)."""
        try:
            return self.ctl.scoring.score(params.get("seat"), {
                k: v for k, v in params.items() if k != "seat"}, hand_in_play(self.ctl))
        except ScoreRefused as exc:
            raise p.ApiError(p.REFUSED, str(exc)) from None

    @method(OPEN)
    async def _config(self, client: Client, params: dict[str, Any], _: str | None) -> Any:
        return _redact(dataclasses.asdict(self.ctl.config))


def _is_estop(line: bytes) -> bool:
    """Whether `line` is an e-stop request, a press or a release."""
    if len(line) > 4096 or b"estop" not in line:
        return False
    try:
        return p.decode_request(line)["method"] == "estop"
    except p.ApiError:
        return False


def hand_in_play(ctl: Table) -> bool:
    """Players are at a dealt hand: from the walls rising to the lid opening again."""
    state = ctl.cycle.state
    if state == CycleState.FAULT:
        # A fault stops the table, not the hand: where the cycle goes back to.
        state = plan(ctl).get("cycle", state)
    return ctl.cycle.set_in_play is not None and state in HAND_IN_PLAY


def _shown_value(kind: Kind, value: Any) -> Any:
    # A tile reader's code is a tile of the next walls: only whether it read one.
    if kind is Kind.READER:
        return None if value is None else "read"
    return value


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


def _host(peername: Any) -> str:
    """A TCP peer's address, without its port."""
    return str(peername[0]) if isinstance(peername, tuple) and peername else str(peername)


def _networks(text: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks of `[api] tcp_estop_networks` (checked when the config is read)."""
    return [ipaddress.ip_network(item.strip(), strict=False)
            for item in text.split(",") if item.strip()]
