"""The loop under floods: e-stop latency, watchdog gaps and the live view while 16
connections flood a real `mjtable run` daemon held to a quarter of a core.

    python -m bench.api.bench_floods [--flood newline,failing,diagnose,log] [--presses 50]
                                 [--share 0.25] [--connections 16]

Floods (each from `--connections` connections at once):
- newline: 64 KiB blocks of bare newlines, no request at all;
- failing: open requests that failed inside the daemon (`subscribe` with
  `streams: [{}]`, a non-string `lang`), each an `api.error` row on older firmware;
- diagnose: open `diagnose` requests with 60 KB nonsense symptoms;
- log: open `log` reads of 10,000 rows over a log holding fat diagnosis rows.
- rows (not in the default list): every kind of row a client can cause, for
  `--rows-s` seconds, over a log holding a day of the table's own events: are they
  all still there, and how much did the log grow?
Meanwhile a technician's connection presses the e-stop (and releases it) `--presses`
times, timing each press to its reply, and a live view (`subscribe`) reads every
stream. The daemon runs as systemd would run it with a watchdog (`NOTIFY_SOCKET`,
`WATCHDOG_USEC`): the gaps between its keep-alives are timed. It prints JSON figures;
nothing is asserted. `throttle` says how the quarter core was enforced. To measure
another checkout, run with PYTHONPATH pointing at it (bench/api/bench_attacks.py).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.api.bench_attacks import TOKEN, Daemon, _connect, _request, _system_python
from bench.helpers import children
from bench.helpers.throttle import Throttle

WATCHDOG_USEC = 400_000     # keep-alive every 0.2 s (half of it)
FAT_SYMPTOM = "zq" * 30_000


def payload(flood: str) -> bytes:
    """What each flooding connection sends, over and over."""
    if flood == "newline":
        return b"\n" * 65536
    if flood == "failing":
        lines = [{"id": 1, "method": "subscribe", "params": {"streams": [{}]}},
                 {"id": 2, "method": "info", "lang": 5}]
        return b"".join(json.dumps(m).encode() + b"\n" for m in lines) * 64
    if flood == "diagnose":
        return json.dumps({"id": 1, "method": "diagnose",
                           "params": {"symptom": FAT_SYMPTOM}}).encode() + b"\n"
    if flood == "log":
        return json.dumps({"id": 1, "method": "log",
                           "params": {"limit": 10_000}}).encode() + b"\n"
    if flood == "rows.refused":
        # Wrong logins for many names and privileged requests without a session.
        return b"".join(json.dumps(m).encode() + b"\n" for i in range(64) for m in (
            {"id": i, "method": "login", "auth": {"name": f"who{i}",
                                                  "token": "wrong-token-0000"}},
            {"id": i, "method": "clear", "params": {"fault": i}}))
    if flood == "rows.diagnose":
        return b"".join(json.dumps({"id": i, "method": "diagnose", "params": {
            "symptom": f"lid does not lower {i} " + "zq" * 130}}).encode() + b"\n"
            for i in range(64))
    if flood == "rows.junk":
        return b"not json\n" * 64
    raise ValueError(flood)


class Watchdog(threading.Thread):
    """Receives the daemon's notify datagrams; keeps the times of WATCHDOG=1."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.2)
        self.pings: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            if b"WATCHDOG=1" in data:
                self.pings.append(time.monotonic())

    def gaps(self, since: float, until: float) -> list[float]:
        pings = [t for t in self.pings if since <= t <= until]
        return [b - a for a, b in itertools.pairwise(pings)]


class LiveView(threading.Thread):
    """A technician's live view: subscribes to every stream and reads all of it."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.sock = _connect(path, timeout=1)
        self.sock.sendall(b'{"id": 1, "method": "subscribe"}\n')
        self.closed = False
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                if not self.sock.recv(1 << 20):
                    self.closed = True
                    return
            except TimeoutError:
                continue
            except OSError:
                self.closed = True
                return


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 1)


def presses(path: Path, count: int, timeout_s: float = 10.0) -> dict[str, Any]:
    """Press the e-stop `count` times: ms from press to reply. Logged in, the presser
    releases it in between; when the login gets no answer (a stalled daemon) the presses
    after the first find it stopped, and their replies still time the loop. A press
    unanswered in `timeout_s` counts as that long."""
    times: list[float] = []
    failed = 0
    logged_in = True
    sock = _connect(path, timeout=timeout_s)
    try:
        try:
            _request(sock, {"id": 0, "method": "login",
                            "auth": {"name": "li", "token": TOKEN}})
            time.sleep(1.0)     # the token's hash spent the daemon's share for a while
        except OSError:
            logged_in = False
            sock.close()
            sock = _connect(path, timeout=timeout_s)
        for i in range(count):
            started = time.perf_counter()
            try:
                reply = _request(sock, {"id": 2 * i + 1, "method": "estop"})
                ok = bool(reply.get("ok"))
            except (OSError, ValueError):
                ok = False
                sock.close()
                sock = _connect(path, timeout=timeout_s)
            times.append((time.perf_counter() - started) * 1000)
            failed += not ok
            if logged_in and ok:
                with contextlib.suppress(OSError, ValueError):
                    _request(sock, {"id": 2 * i + 2, "method": "estop",
                                    "params": {"release": True}})
            time.sleep(0.1)
    finally:
        sock.close()
    return {"presses": len(times), "unanswered": failed, "logged_in": logged_in,
            "estop_ms_p50": _percentile(times, 0.5), "estop_ms_p99": _percentile(times, 0.99),
            "estop_ms_max": _percentile(times, 1.0)}


def fat_log(state: Path, rows: int = 50) -> None:
    """A log as an open-diagnose flood left it on older firmware: fat rows."""
    from firmware.state.eventlog import EventLog

    log = EventLog(state / "events.sqlite")
    for i in range(rows):
        log.record({"t": float(i), "kind": "diagnosis", "by": None,
                    "symptom": FAT_SYMPTOM[:65_000],
                    "unlogged_symptoms": [FAT_SYMPTOM[:65_000]] * 6})
    log.close()


def _cpu_s(pid: int) -> float:
    """Processor seconds the process has used (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _other_uid() -> None:
    # Another local user in the socket's group: the flood has its own 16 connections.
    os.setgid(os.getgid())
    os.setuid(65534)


DAY_ROWS = 20_000
ROW_FLOODS = ("failing", "rows.refused", "rows.diagnose", "rows.junk")


def day_log(state: Path) -> None:
    """A day of the table's own events, the newest a minute old."""
    from firmware.state.eventlog import EventLog

    now = time.time()
    walls = iter(now - 60 - 86_000 * (1 - i / DAY_ROWS) for i in range(DAY_ROWS))
    log = EventLog(state / "events.sqlite", wall=lambda: next(walls))
    for i in range(DAY_ROWS):
        log.record({"t": float(i), "kind": "phase", "state": "play", "cycle": i // 20})
    log.close()


def _size(state: Path) -> int:
    return sum(p.stat().st_size for p in state.glob("events.sqlite*"))


def rows(tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Flood every client-caused row kind for `--rows-s`: does a day of the table's
    own events stay, and how much does the log grow?"""
    import sqlite3

    state = tmp / "rows"
    state.mkdir()
    os.chmod(state, 0o711)
    day_log(state)
    before = _size(state)
    daemon = Daemon(state)
    sent = 0
    try:
        # A share of the connections for each kind: one slow kind (token hashes)
        # must not hold back the others.
        attacks = []
        for kind in ROW_FLOODS:
            data = tmp / f"{kind}.payload"
            data.write_bytes(payload(kind))
            os.chmod(data, 0o644)
            attacks.append(children.spawn(
                [_system_python(), str(Path(__file__).with_name("flood_child.py")),
                 str(daemon.socket), str(data), str(max(1, args.connections // len(ROW_FLOODS)))],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                preexec_fn=_other_uid if os.getuid() == 0 else None))
        time.sleep(args.rows_s)
        for attack in attacks:
            sent += json.loads(attack.communicate("", timeout=30)[0] or "{}").get("sent", 0)
            children.stop(attack)
    finally:
        daemon.stop()
    conn = sqlite3.connect(state / "events.sqlite")
    try:
        kept = conn.execute("SELECT count(*) FROM events WHERE kind = 'phase' AND run = 1"
                            ).fetchone()[0]
        kinds = dict(conn.execute("SELECT kind, count(*) FROM events WHERE run = 2 "
                                  "GROUP BY kind").fetchall())
    finally:
        conn.close()
    return {"seconds": args.rows_s, "flood_mb_sent": round(sent / 1e6, 1),
            "table_rows_of_the_last_day": DAY_ROWS, "table_rows_kept": kept,
            "rows_written_in_the_flood": sum(kinds.values()), "by_kind": kinds,
            "log_growth_mb": round((_size(state) - before) / 1e6, 2)}


def one(flood: str, tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    if flood == "rows":
        return rows(tmp, args)
    state = tmp / flood
    state.mkdir()
    os.chmod(state, 0o711)
    if flood == "log":
        fat_log(state)
    watchdog = Watchdog(tmp / f"{flood}.notify")
    watchdog.start()
    daemon = Daemon(state, env={"NOTIFY_SOCKET": str(tmp / f"{flood}.notify"),
                                "WATCHDOG_USEC": str(WATCHDOG_USEC)})
    throttle = Throttle(daemon.proc.pid, args.share)
    result: dict[str, Any] = {"throttle": throttle.hold()}
    try:
        time.sleep(1.0)
        live = LiveView(daemon.socket)
        live.start()
        data = tmp / f"{flood}.payload"
        data.write_bytes(payload(flood))
        os.chmod(data, 0o644)
        attack = children.spawn(
            [_system_python(), str(Path(__file__).with_name("flood_child.py")),
             str(daemon.socket), str(data), str(args.connections)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            preexec_fn=_other_uid if os.getuid() == 0 else None)
        time.sleep(1.0)
        started, cpu_started = time.monotonic(), _cpu_s(daemon.proc.pid)
        result.update(presses(daemon.socket, args.presses))
        ended = time.monotonic()
        result["daemon_cpu_share"] = round(
            (_cpu_s(daemon.proc.pid) - cpu_started) / (ended - started), 3)
        sent = json.loads(attack.communicate("", timeout=30)[0] or "{}")
        children.stop(attack)
        gaps = watchdog.gaps(started, ended)
        result.update({
            "seconds": round(ended - started, 1),
            "watchdog_gap_s_max": round(max(gaps), 2) if gaps else None,
            "watchdog_pings": len(gaps) + 1 if gaps else 0,
            "live_view_dropped": live.closed,
            "flood_uid": 65534 if os.getuid() == 0 else os.getuid(),
            "flood_mb_sent": round(sent.get("sent", 0) / 1e6, 1),
            "flood_connections_closed": sent.get("closed"),
            "daemon_alive": daemon.proc.poll() is None})
        live.stop.set()
        live.sock.close()
    finally:
        daemon.stop()
        throttle.release()
        watchdog.stop.set()
        watchdog.join()
        watchdog.sock.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.api.bench_floods")
    parser.add_argument("--flood", default="newline,failing,diagnose,log")
    parser.add_argument("--presses", type=int, default=50)
    parser.add_argument("--share", type=float, default=0.25,
                        help="the daemon's share of one core")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rows-s", type=float, default=60.0,
                        help="seconds of the flood of every client-caused row (--flood rows)")
    args = parser.parse_args(argv)
    children.install()      # a killed bench leaves no daemon behind
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        # Another uid must reach the socket (the group's mode bits say the rest).
        os.chmod(tmp, 0o711)
        for flood in args.flood.split(","):
            results[flood] = one(flood, Path(tmp), args)
            print(json.dumps({flood: results[flood]}), file=sys.stderr, flush=True)
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
