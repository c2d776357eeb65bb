"""The I/O board's firmware (`board/`) on a port, in front of a `SimTable`.

It listens on a pty (`os.openpty`; the host opens the slave's /dev/pts/N path) or on
TCP at 127.0.0.1 (the host opens `socket://127.0.0.1:PORT`), so the firmware's real
serial path runs against the simulated machine. Like a real board it applies SET and
SAFE commands, reports every input change, answers the handshake with its version,
its heartbeat limit and every input's value, and turns every output off by itself
when the host falls silent for longer than that limit (latched until the next HELLO).

Link faults (docs/mechanics.md) are injected here: `noise` (probability that a bit is
flipped, both directions) and `drop_link(duration_s)` (nothing crosses the cable).

Run it on its own for `mjtable run` with `[hal] backend = "ioboard"`:
`python -m simulator.rigs.ioboard_emulator --listen 7700` (or `--pty`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import select
import socket
import sys
import threading
import tty
from typing import Any, Protocol

from board.core import Board
from hal.backends.ioboard import GIL_SWITCH_S
from hal.protocol import VERSION, Frame, Msg
from mjtable_core.clock import Clock, Timer
from mjtable_core.signals import Value
from simulator.physics.table import HEAD_LEAVE_HOME_AT, PLATE_LEAVE_HOME_AT, SimTable
from simulator.rigs.board_pins import SimPins
from simulator.rigs.cable import Cable
from simulator.rigs.lockstep import Meter

READ_TIMEOUT_S = 0.05


class BoardPort(Protocol):
    url: str

    def read(self) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class _Metered:
    """Counts bytes for the lockstep clock; a no-op without a meter."""

    def __init__(self, meter: Meter | None) -> None:
        self.meter = meter
        self._unconsumed = 0

    def _before_read(self) -> None:
        if self.meter is not None:
            self.meter.consumed(self._unconsumed)
        self._unconsumed = 0

    def _after_read(self, data: bytes) -> bytes:
        self._unconsumed = len(data)
        return data

    def _before_write(self, data: bytes) -> None:
        if self.meter is not None:
            self.meter.sent(len(data))


class PtyPort(_Metered):
    """The board end of a pseudo-terminal; `url` is the slave device the host opens."""

    def __init__(self, meter: Meter | None = None) -> None:
        super().__init__(meter)
        self._master, self._slave = os.openpty()
        # Raw at once: a cooked pty would echo our own frames back to us.
        tty.setraw(self._slave)
        self.url = os.ttyname(self._slave)

    def read(self) -> bytes:
        self._before_read()
        ready, _, _ = select.select([self._master], [], [], READ_TIMEOUT_S)
        if not ready:
            return b""
        try:
            return self._after_read(os.read(self._master, 4096))
        except OSError:
            return b""

    def write(self, data: bytes) -> None:
        self._before_write(data)
        view = memoryview(data)
        while view:
            view = view[os.write(self._master, view):]

    def close(self) -> None:
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class TcpPort(_Metered):
    """A TCP listener on 127.0.0.1 only; one host connection at a time."""

    def __init__(self, port: int = 0, meter: Meter | None = None) -> None:
        super().__init__(meter)
        self._server = socket.create_server(("127.0.0.1", port))
        self._server.settimeout(READ_TIMEOUT_S)
        self.url = f"socket://127.0.0.1:{self._server.getsockname()[1]}"
        self._conn: socket.socket | None = None
        self._lock = threading.Lock()

    def read(self) -> bytes:
        self._before_read()
        if self._conn is None:
            try:
                conn, _ = self._server.accept()
            except (TimeoutError, OSError):
                return b""
            conn.settimeout(READ_TIMEOUT_S)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._conn = conn
        try:
            data = self._conn.recv(4096)
        except TimeoutError:
            return b""
        except OSError:
            data = b""
        if not data:                      # the host hung up: wait for the next one
            with self._lock:
                self._conn.close()
                self._conn = None
        return self._after_read(data)

    def write(self, data: bytes) -> None:
        with self._lock:
            conn = self._conn
        if conn is None:
            return                        # nobody listening: the bytes are lost
        self._before_write(data)
        with contextlib.suppress(OSError):
            conn.sendall(data)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
        self._server.close()


class IoBoardEmulator(Cable):
    """The board's firmware (`board/`) on a port, in front of the simulated table.

    What is the simulator's own is only what a cable does: the port, noise and a
    dropped link. Everything a board decides — the link, armed stops, interlocks, the
    failsafe — is `board.core.Board`, the code a Pico runs.
    """

    def __init__(self, table: SimTable, clock: Clock, port: BoardPort, *,
                 version: int = VERSION, heartbeat_limit_s: float = 0.5,
                 heartbeat_s: float = 0.1, retransmit_s: float = 0.03, max_retries: int = 15,
                 noise: float = 0.0, seed: int = 0) -> None:
        self.table = table
        self.clock = clock
        self.port = port
        self.version = version
        self.heartbeat_limit_s = heartbeat_limit_s
        self.noise = noise
        self.bits_flipped = 0
        # One stream per direction: the two readers' interleaving must not shift them.
        self._rng_in = random.Random(f"ioboard-noise-in-{seed}")
        self._rng_out = random.Random(f"ioboard-noise-out-{seed}")
        self._drop_until = float("-inf")
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None
        self._timer: Timer | None = None
        self._closed = False
        self.pins = SimPins(table, clock, self._send_bytes)
        self.board = Board(self.pins, version=version,
                           heartbeat_limit_ms=round(heartbeat_limit_s * 1000),
                           heartbeat_ms=round(heartbeat_s * 1000),
                           retransmit_ms=round(retransmit_s * 1000), max_retries=max_retries)
        table.listener = self._on_table_change

    @property
    def url(self) -> str:
        return self.port.url

    @property
    def link(self) -> Any:
        return self.board.link

    @property
    def failsafe(self) -> bool:
        return self.board.failsafe

    @property
    def failsafe_at(self) -> float | None:
        at = self.board.failsafe_at_ms
        return None if at is None else at / 1000

    def start(self) -> None:
        self._reader = threading.Thread(target=self._read_loop, name="ioboard-emulator",
                                        daemon=True)
        # As on the host (hal/backends/ioboard.py): a frame from the reader thread must
        # not wait 5 ms for the GIL while the physics runs, or a cam coasts past home.
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_S))
        self._reader.start()

    def close(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.board.link.stop()
        self.board.failsafe = False
        self._stop.set()
        if self._reader is not None:
            self._reader.join(timeout=1.0)
        self.port.close()

    # -- bytes (the cable's drops and noise: simulator/rigs/cable.py) ----------------

    def _send_bytes(self, data: bytes) -> None:
        if self._dropping():
            return
        self.port.write(self._garble(data, self._rng_out))

    def _read_loop(self) -> None:
        while not self._stop.is_set():
            data = self.port.read()
            if data:
                self.clock.post(lambda d=data: self._on_bytes(d))

    def _on_bytes(self, data: bytes) -> None:
        if self._dropping() or self._closed:
            return
        self.board.feed(self._garble(data, self._rng_in))
        self._reschedule()

    def _hello(self, payload: bytes) -> None:
        """A HELLO straight in, as if it had crossed the cable (for tests)."""
        self.board.feed(Frame(0, Msg.HELLO, payload).encode())
        self._reschedule()

    # -- the board's clock on the simulation's --------------------------------------

    def _reschedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        due = self.board.next_due()
        if due is not None and not self._closed:
            self._timer = self.clock.call_at(due / 1000, self._poll)

    def _poll(self) -> None:
        self._timer = None
        self.board.poll()
        self._reschedule()

    def _on_table_change(self, name: str, value: Value) -> None:
        channel, data = self.pins.encode(name, value)
        self.board.on_input(channel, data, self.pins.now_ms())
        self._reschedule()


# -- on its own ---------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m simulator.rigs.ioboard_emulator",
        description="Emulated I/O board with a simulated table and players behind it.")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--listen", type=int, metavar="PORT",
                       help="TCP port on 127.0.0.1 (host: socket://127.0.0.1:PORT)")
    where.add_argument("--pty", action="store_true", help="a pseudo-terminal")
    parser.add_argument("--config", help="table config (default: the reference table.toml)")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--heartbeat-limit", type=float, default=0.5, metavar="S",
                        help="failsafe after this long without a frame from the host")
    parser.add_argument("--retransmit", type=float, default=0.03, metavar="S",
                        help="resend frames the host has not acknowledged after this long")
    parser.add_argument("--max-retries", type=int, default=15, metavar="N",
                        help="failsafe after this many resends without an acknowledgement")
    parser.add_argument("--head-home-window", type=float, default=HEAD_LEAVE_HOME_AT,
                        metavar="FRACTION", help="part of a head's turn its home switch "
                        "stays closed (a rig at --speed on a busy host widens it)")
    parser.add_argument("--plate-home-window", type=float, default=PLATE_LEAVE_HOME_AT,
                        metavar="FRACTION", help="the same for a wall lift plate")
    parser.add_argument("--control", metavar="PATH",
                        help="Unix socket for test harnesses: physical walls, refeed "
                             "(simulator/rigs/board_control.py)")
    args = parser.parse_args(argv)
    return asyncio.run(_serve(args))


async def _serve(args: argparse.Namespace) -> int:
    from mjtable_core.clock import RealClock
    from mjtable_core.config import load_config
    from simulator.physics.players import SimPlayers

    config = load_config(args.config)
    clock = RealClock(asyncio.get_running_loop(), args.speed)
    table = SimTable(config, clock, args.seed, head_home_window=args.head_home_window,
                     plate_home_window=args.plate_home_window)
    port: BoardPort = PtyPort() if args.pty else TcpPort(args.listen)
    board = IoBoardEmulator(table, clock, port, heartbeat_limit_s=args.heartbeat_limit,
                            retransmit_s=args.retransmit, max_retries=args.max_retries)
    players = SimPlayers(table, clock, config)
    board.start()
    control = None
    if args.control:
        from simulator.rigs.board_control import serve

        control = await serve(args.control, table, board)
    print(f"I/O board emulator on {board.url} (set [ioboard] port to this)", flush=True)
    # Players wait for the ready lamp, which only the host's firmware can light.
    players.start()
    try:
        await asyncio.Event().wait()
    finally:
        if control is not None:
            control.close()
        board.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
