"""The API attack figures: guesses checked per second, log rows under a flood,
connections held, slow lines held, how late the loop answers under a flood of log
reads — against a real `mjtable run` daemon on the simulator (a child
process, Unix socket only).

    python -m bench.api.bench_attacks [--guess-s S] [--flood-s S] [--connections N] [--slow-s S]
                                  [--log-s S]

It prints JSON figures; nothing here is asserted. To measure another checkout (an
older firmware, say), run with PYTHONPATH pointing at it: the daemon is started with
the same interpreter and path. An older daemon has no `login`: the token then rides on
a `clear` request, as that firmware took it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import selectors
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.helpers import children

TOKEN = "bench-token-0123"


def _request(sock: socket.socket, message: dict[str, Any]) -> dict[str, Any]:
    sock.sendall(json.dumps(message).encode() + b"\n")
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return json.loads(buf.splitlines()[-1])


def _connect(path: Path, timeout: float = 10.0) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(str(path))
    return sock


def _default_fd_limit() -> None:
    # The daemon gets the usual 1,024 descriptors, whatever the attacker raised.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))


class Daemon:
    """`mjtable run --plain` in a child process, with one technician `li`."""

    def __init__(self, state: Path, env: dict[str, str] | None = None) -> None:
        from firmware.api.auth import Technicians

        self.state = state
        self.socket = state / "api.sock"
        Technicians(state / "technicians.json").add("li", TOKEN)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})}
        self.proc = children.spawn(
            [sys.executable, "-c", "from mjtable.cli import main; import sys; "
             "sys.exit(main())", "--state-dir", str(state), "run", "--plain",
             "--socket", str(self.socket)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
            preexec_fn=_default_fd_limit)
        deadline = time.monotonic() + 60
        while True:
            try:
                with _connect(self.socket) as sock:
                    self.methods = _request(sock, {"id": 0, "method": "info"})[
                        "result"]["methods"]
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("the daemon did not start") from None
                time.sleep(0.2)

    def guess(self, name: str, token: str, request_id: int) -> bytes:
        if "login" in self.methods:
            message: dict[str, Any] = {"id": request_id, "method": "login"}
        else:
            message = {"id": request_id, "method": "clear", "params": {"fault": "E99"}}
        message["auth"] = {"name": name, "token": token}
        return json.dumps(message).encode() + b"\n"

    def rows(self) -> int:
        conn = sqlite3.connect(f"file:{self.state / 'events.sqlite'}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
        finally:
            conn.close()

    def stop(self) -> None:
        children.stop(self.proc, 10.0)


def _pump(daemon: Daemon, lines: int, connections: int, seconds: float,
          name: str = "li") -> dict[str, int]:
    """Pipeline wrong guesses on `connections` for `seconds`; count the verdicts."""
    sel = selectors.DefaultSelector()
    socks = [_connect(daemon.socket) for _ in range(connections)]
    counts = {"checked": 0, "locked": 0, "other": 0, "connections_refused": 0}
    buffers: dict[socket.socket, bytes] = {}
    n = 0
    for sock in socks:
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ)
        buffers[sock] = b""
    end = time.monotonic() + seconds
    outstanding = dict.fromkeys(socks, 0)
    while time.monotonic() < end:
        for sock in socks:
            if outstanding[sock] < lines:
                batch = b"".join(daemon.guess(name, f"wrong-guess-{n + i:08d}", n + i)
                                 for i in range(lines - outstanding[sock]))
                n += lines - outstanding[sock]
                try:
                    sock.sendall(batch)
                except (BlockingIOError, OSError):
                    continue
                outstanding[sock] = lines
        for key, _ in sel.select(timeout=0.05):
            sock = key.fileobj
            try:
                chunk = sock.recv(262144)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                # Turned away (too many connections) or dropped: that one is done.
                sel.unregister(sock)
                socks.remove(sock)
                sock.close()
                counts["connections_refused"] += 1
                continue
            *done, buffers[sock] = (buffers[sock] + chunk).split(b"\n")
            for line in filter(None, done):
                reply = json.loads(line)
                outstanding[sock] -= 1
                message = reply.get("error", {}).get("message", "")
                if "wrong technician name or token" in message:
                    counts["checked"] += 1        # its hash was computed and compared
                elif "locked out" in message:
                    counts["locked"] += 1
                else:
                    counts["other"] += 1
    for sock in socks:
        sock.close()
    return counts


def guesses(daemon: Daemon, seconds: float) -> dict[str, Any]:
    """Wrong tokens for a real name, pipelined on 63 connections: how many are checked."""
    counts = _pump(daemon, 16, 63, seconds)
    return {"seconds": seconds, **counts,
            "checked_per_s": round(counts["checked"] / seconds, 2)}


def flood(daemon: Daemon, seconds: float) -> dict[str, Any]:
    """Requests for a locked-out name: event-log rows written while it lasts."""
    _pump(daemon, 8, 1, 3.0)                  # lock the name first
    time.sleep(1.0)
    before = daemon.rows()
    counts = _pump(daemon, 64, 4, seconds)
    time.sleep(1.0)                           # the writer commits every 0.2 s
    written = daemon.rows() - before
    return {"seconds": seconds, "requests": counts["locked"] + counts["checked"],
            "rows": written,
            "locked_refusals": counts["locked"],
            "rows_per_s": round(written / seconds, 1),
            "rows_per_60_s": round(written * 60 / seconds)}


def connections(daemon: Daemon, wanted: int) -> dict[str, Any]:
    """Idle connections opened until refused: how many the daemon holds, and whether a
    request still gets through and the table still deals."""
    held: list[socket.socket] = []
    answered = failed = 0
    for _ in range(wanted):
        try:
            held.append(_connect(daemon.socket, timeout=2))
        except OSError:
            failed += 1
    time.sleep(1.0)
    for sock in held:
        try:
            if _request(sock, {"id": 1, "method": "info"}).get("ok"):
                answered += 1
        except (OSError, ValueError):
            pass
    try:
        with _connect(daemon.socket, timeout=5) as sock:
            fresh = bool(_request(sock, {"id": 2, "method": "status"}).get("ok"))
    except (OSError, ValueError):
        fresh = False
    other_uid = _status_as_other_uid(daemon.socket) if os.getuid() == 0 else None
    for sock in held:
        sock.close()
    return {"tried": wanted, "connect_failed": failed, "held_and_answering": answered,
            "new_connection_same_uid_answered": fresh,
            "new_connection_other_uid_answered": other_uid,
            "daemon_alive": daemon.proc.poll() is None}


def slow_lines(daemon: Daemon, seconds: float, clients: int = 16) -> dict[str, Any]:
    """Slowloris: `clients` connections each send one byte of a request every 2 s for
    `seconds`; how many does the daemon still hold at the end, and does a new
    connection still get an answer?"""
    held = [_connect(daemon.socket, timeout=2) for _ in range(clients)]
    line = b'{"id": 1, "method": "status", "params": {"padding": "' + b"x" * 400
    open_ = [True] * clients
    started = time.monotonic()
    sent = 0
    while time.monotonic() - started < seconds:
        for i, sock in enumerate(held):
            if open_[i]:
                try:
                    sock.sendall(line[sent:sent + 1])
                except OSError:
                    open_[i] = False
        sent += 1
        time.sleep(2.0)
    for i, sock in enumerate(held):
        if open_[i]:
            sock.setblocking(False)
            try:
                open_[i] = sock.recv(1) != b""    # b"": the daemon closed it
            except BlockingIOError:
                pass                                # still open, nothing to read
            except OSError:
                open_[i] = False
    try:
        with _connect(daemon.socket, timeout=5) as sock:
            fresh = bool(_request(sock, {"id": 2, "method": "status"}).get("ok"))
    except (OSError, ValueError):
        fresh = False
    for sock in held:
        sock.close()
    return {"clients": clients, "seconds": seconds, "bytes_each": sent,
            "still_held": sum(open_), "new_connection_answered": fresh}


def _system_python() -> str:
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(candidate, os.X_OK):
            return candidate
    return sys.executable


def _status_as_other_uid(path: Path) -> bool:
    """A technician at another uid (in the socket's group) asks for the status."""
    code = ("import socket, sys\n"
            "s = socket.socket(socket.AF_UNIX)\n"
            "s.settimeout(5)\n"
            f"s.connect({str(path)!r})\n"
            "s.sendall(b'{\"id\": 1, \"method\": \"status\"}\\n')\n"
            "sys.exit(0 if b'\"ok\":true' in s.recv(1 << 20) else 1)\n")

    def become_other() -> None:
        os.setgid(os.getgid())
        os.setuid(65534)
    try:
        # A system interpreter: the venv may sit where the other uid cannot read.
        return subprocess.run([_system_python(), "-c", code], preexec_fn=become_other,
                              timeout=20, capture_output=True).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def fill_log(state: Path, rows: int = 10_000) -> None:
    """An event log with `rows` rows of history, as a table has after some days."""
    from firmware.state.eventlog import EventLog

    log = EventLog(state / "events.sqlite")
    for i in range(rows):
        log.record({"t": float(i), "kind": "phase", "state": "play", "cycle": i // 20})
    log.close()


def log_reads(daemon: Daemon, seconds: float, clients: int = 8) -> dict[str, Any]:
    """`clients` connections pipeline `log` reads of 10,000 rows and never read the
    replies; meanwhile another connection times `info` round trips, which wait for the
    loop the table runs on: how late does the loop answer?"""
    readers = [_connect(daemon.socket, timeout=2) for _ in range(clients)]
    line = json.dumps({"id": 1, "method": "log", "params": {"limit": 10_000}}).encode()
    for sock in readers:
        sock.setblocking(False)
        with contextlib.suppress(OSError):     # BlockingIOError too: the rest waits
            sock.sendall((line + b"\n") * 600)
    trips: list[float] = []
    with _connect(daemon.socket, timeout=30) as probe:
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            sent = time.perf_counter()
            try:
                _request(probe, {"id": 1, "method": "info"})
            except (OSError, ValueError):
                break
            trips.append(time.perf_counter() - sent)
            time.sleep(0.05)
    for sock in readers:
        sock.close()
    trips.sort()
    ms = [round(t * 1000, 1) for t in trips]
    return {"clients": clients, "seconds": seconds, "info_round_trips": len(ms),
            "info_ms_p50": ms[len(ms) // 2] if ms else None,
            "info_ms_p99": ms[int(len(ms) * 0.99)] if ms else None,
            "info_ms_max": ms[-1] if ms else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.api.bench_attacks")
    parser.add_argument("--guess-s", type=float, default=10.0)
    parser.add_argument("--flood-s", type=float, default=30.0)
    parser.add_argument("--connections", type=int, default=1100)
    parser.add_argument("--slow-s", type=float, default=30.0,
                        help="seconds of one byte every 2 s on 16 connections")
    parser.add_argument("--log-s", type=float, default=15.0,
                        help="seconds of 10,000-row log reads pipelined on 8 connections")
    args = parser.parse_args(argv)
    children.install()      # a killed bench leaves no daemon behind
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # The attacker needs more fds than the daemon has.
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for figure, run in (("guesses", lambda d: guesses(d, args.guess_s)),
                            ("flood", lambda d: flood(d, args.flood_s)),
                            ("connections", lambda d: connections(d, args.connections)),
                            ("slow_lines", lambda d: slow_lines(d, args.slow_s)),
                            ("log_reads", lambda d: log_reads(d, args.log_s))):
            state = Path(tmp) / figure
            state.mkdir()
            # Another uid must reach the socket (the group's mode bits say the rest).
            os.chmod(tmp, 0o711)
            os.chmod(state, 0o711)
            if figure == "log_reads":
                fill_log(state)
            daemon = Daemon(state)
            try:
                results[figure] = run(daemon)
            finally:
                daemon.stop()
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
