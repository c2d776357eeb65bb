"""`mjtable run`: the table's daemon on the real-time loop.

One asyncio loop carries the clock, the HAL and the controller. SIGINT, SIGTERM and
SIGHUP (a terminal closed, an SSH session dropped) stop it cleanly with every motor off.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import sys
import time
from pathlib import Path
from typing import Any

from firmware import statedir
from firmware.console.view import Pictured, live_view_available, log_line, screen, snapshot
from firmware.controller import compose_table
from firmware.faults.kinds.link import LINK_LOST
from firmware.i18n import _, table_language
from firmware.service.sdnotify import attach_systemd
from firmware.service.tablelock import StateUnwritable, lock_table
from firmware.state.journal_flush import FlushedJournal
from firmware.state.storage import STORAGE_ERRORS, problem
from hal.backends import open_hal
from hal.backends.ioboard import LinkError
from hal.interface import HalError
from mjtable_core.clock import RealClock
from mjtable_core.config import Config

REFRESH_S = 0.1


def run(config: Config, speed: float = 1.0, cycles: int | None = None,
        seed: int | None = None, live: bool | None = None, socket: str | None = None,
        state_dir: str | None = None) -> int:
    """Run until signalled (or `cycles` hands are dealt); returns the exit code.

    `socket` is the API socket (default under the runtime directory), `state_dir`
    holds the event log and the technicians (default: firmware/statedir.py).
    """
    live = sys.stdout.isatty() if live is None else live
    if live and not live_view_available():
        print(_("mjtable: no live picture without the console extra "
                "(pip install 'mjtable[console]'); logging lines"), file=sys.stderr)
        live = False
    # Before anything moves: a second daemon on this table stops here (TableBusy), as
    # does one whose state directory cannot be written (StateUnwritable).
    lock = lock_table(statedir.state_dir(state_dir),
                      Path(socket) if socket else statedir.default_socket())
    with lock:
        return asyncio.run(_run(config, speed, cycles, seed, live, socket, state_dir))


async def _run(config: Config, speed: float, cycles: int | None, seed: int | None,
               live: bool, socket: str | None = None, state_dir: str | None = None) -> int:
    from firmware.api.attach import attach_api

    loop = asyncio.get_running_loop()
    clock = RealClock(loop, speed)
    opened = open_hal(config, clock, seed)
    # The journal lives as long as the machine it describes (firmware/state/journal.py); its
    # fsyncs run beside the loop, never in it (firmware/state/journal_flush.py).
    journal = FlushedJournal(statedir.state_dir(state_dir)) if opened.persistent else None
    # [rules] engine and handoff_file; a relative handoff file goes in the state directory.
    ctl = compose_table(config, opened.hal, clock, journal,
                        state_dir=statedir.state_dir(state_dir))
    stopped = asyncio.Event()
    hands = 0

    def on_event(event: dict[str, Any]) -> None:
        nonlocal hands
        if not live:
            # The table's language: an event caused by a client's request (a Chinese
            # phone entering test mode) must not put the client's words in the journal.
            with table_language():
                line = log_line(event)
            if line:
                print(line, flush=True)
        if event["kind"] == "handoff":
            hands += 1
            if cycles is not None and hands >= cycles:
                stopped.set()

    ctl.subscribers.append(on_event)
    notify = attach_systemd(ctl, loop)   # a no-op unless systemd started us
    # Wall time only stamps event-log rows for people; it never steers the table.
    try:
        api = await attach_api(ctl, state_dir=state_dir, socket_path=socket, wall=time.time)
    except STORAGE_ERRORS as exc:   # an event log that cannot be opened: nothing moved yet
        opened.hal.close()
        raise StateUnwritable(problem(statedir.state_dir(state_dir) / statedir.EVENT_LOG_NAME,
                                      exc)) from None
    # SIGHUP too: a table run by hand over SSH has no other safety net when the session
    # drops, and its default would end the process with the motors as they were.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, stopped.set)
    if not live:
        print(_("mjtable: table {table} on {hal}").format(table=config.table.id,
                                                           hal=opened.description), flush=True)
        if api.server.socket_path is not None:
            print(_("mjtable: API on {socket}").format(socket=api.server.socket_path), flush=True)
    silent: LinkError | None = None
    try:
        # The board's handshake, last: from WELCOME on, the board wants our heartbeats
        # within its limit. Outside the try below: a table that never started must not
        # write a clean journal over the one it would have recovered.
        opened.connect()
    except LinkError as exc:
        if exc.fault_id != LINK_LOST or not opened.hal.capabilities.link:
            await api.close()
            raise
        # The board is silent (a cable out, its power off): start anyway with E80
        # raised and shown, and connect when it answers (hal/backends/ioboard.py).
        silent = exc
        print(_("mjtable: {error}; waiting for the board").format(error=exc), flush=True)
    except HalError:
        await api.close()
        raise
    try:
        api.maintenance.power_on()   # ctl.start(), or test mode when both lift keys are held
        if api.ledger is not None:
            # A hand the last boot left open goes on only if the table came back in it.
            api.ledger.adopt(ctl.cycle.number, ctl.cycle.set_in_play is not None)
        opened.start_world()
        if silent is not None:
            opened.hal.wait_for_board(silent.evidence)   # type: ignore[attr-defined]
        # Everything built at start-up lives as long as the daemon: keep it out of the
        # collector's way so a full collection stays short (sensor edge latency).
        gc.freeze()
        # Config read, HAL open, board handshake done, table started.
        notify.ready(f"table {config.table.id} on {opened.description}")
        if live:
            await _live_view(ctl, speed, stopped)
        else:
            await stopped.wait()
    finally:
        notify.stopping("stopping: every output off")
        ctl.stop()
        opened.hal.close()
        await api.close()
        if journal is not None:
            journal.close()     # the clean stop's journal reaches the disk before exit
    print(_("mjtable: stopped, every motor off"), flush=True)
    return 0


async def _live_view(ctl: Pictured, speed: float, stopped: asyncio.Event) -> None:
    from rich.live import Live

    # The loop only copies a snapshot; drawing and writing happen in another thread,
    # so a slow terminal never delays a sensor edge.
    loop = asyncio.get_running_loop()
    with Live(screen(snapshot(ctl), speed), auto_refresh=False, screen=False,
              vertical_overflow="crop") as view:
        while not stopped.is_set():
            await loop.run_in_executor(None, _draw, view, snapshot(ctl), speed)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopped.wait(), REFRESH_S)


def _draw(view: Any, snap: dict[str, Any], speed: float) -> None:
    # Fit the terminal as it is now: a window may be resized while the table runs.
    size = view.console.size
    view.update(screen(snap, speed, (size.width, size.height)), refresh=True)
