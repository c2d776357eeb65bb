"""What the daemon adds to a controller for technicians: event log, maintenance, API."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from firmware import statedir
from firmware.api.auth import Technicians
from firmware.api.server import ApiServer
from firmware.api.table import Table
from firmware.api.venue import Venue
from firmware.faults.kinds.table import STORAGE_FAILED
from firmware.machines.maintenance import Maintenance
from firmware.service.gate import BookingGate
from firmware.service.identify import Identify
from firmware.service.signed import FILE_NAME as COMMANDS_NAME
from firmware.service.signed import Verifier, load_keys
from firmware.state.eventlog import EventLog
from firmware.state.ledger import FILE_NAME as LEDGER_NAME
from firmware.state.ledger import Ledger


@dataclass
class Attachment:
    maintenance: Maintenance
    eventlog: EventLog
    server: ApiServer
    problems: list[str]
    ledger: Ledger | None = None

    async def close(self) -> None:
        await self.server.close()
        self.eventlog.close()
        if self.ledger is not None:
            self.ledger.close()     # counts up to now and waits for the disk


def log_failed(ctl: Table, eventlog: EventLog, exc: BaseException) -> None:
    """E96 for an event log that cannot be written (in the loop): the table stops
    through the shutdown path and deals no hand it cannot log. One active fault is
    enough; after a clear the next failing batch raises it again."""
    if any(f.active and f.id == STORAGE_FAILED and f.where == "eventlog"
           for f in ctl.faults):
        return
    ctl.fault(STORAGE_FAILED, "eventlog", None,
              {"file": str(eventlog.path), "error": f"{type(exc).__name__}: {exc}"})


async def attach_api(ctl: Table, *, state_dir: str | Path | None = None,
                     socket_path: str | Path | None = None,
                     wall: Callable[[], float] | None = None) -> Attachment:
    """Open the event log, maintenance (test mode, jog) and the API listeners for `ctl`.

    A socket that cannot be opened is reported on stderr and the table runs on
    without it: a table that builds and deals is better than one that refuses to.
    """
    state = statedir.state_dir(state_dir)
    eventlog = EventLog(state / statedir.EVENT_LOG_NAME,
                        max_rows=ctl.config.api.log_max_rows, wall=wall)
    eventlog.attach(ctl)
    eventlog.on_failure = lambda exc: ctl.clock.post(lambda: log_failed(ctl, eventlog, exc))
    maintenance = ctl.maintenance()
    server = ApiServer(ctl, maintenance, Technicians(state / statedir.TECHNICIANS_NAME), eventlog)
    server.wall = wall
    # The usage ledger (billing) lives beside the event log, for every backend: a
    # simulated table's hands are counted as a real one's.
    ledger = Ledger(state / LEDGER_NAME, ctl.config.table.id, ctl.clock, wall=wall,
                    variant=ctl.config.rules.variant)
    ledger.attach(ctl)
    server.ledger = ledger
    server.venue = _venue(ctl, state, ledger, wall)
    problems: list[str] = []
    path = Path(socket_path) if socket_path else statedir.default_socket()
    try:
        await server.start_unix(path, ctl.config.api.socket_group)
    except OSError as exc:
        problems.append(f"no API socket at {path}: {exc.strerror or exc}; "
                        "pass --socket PATH to put it somewhere writable")
    except ValueError as exc:   # no such group
        problems.append(f"no API socket at {path}: {exc}")
    api = ctl.config.api
    if api.tcp:
        try:
            await server.start_tcp(api.tcp_host, api.tcp_port)
        except OSError as exc:
            problems.append(f"no API on tcp {api.tcp_host}:{api.tcp_port}: "
                            f"{exc.strerror or exc}")
    for problem in problems:
        print(f"mjtable: {problem}", file=sys.stderr, flush=True)
    return Attachment(maintenance, eventlog, server, problems, ledger)


def _venue(ctl: Table, state: Path, ledger: Ledger,
           wall: Callable[[], float] | None) -> Venue:
    """The venue's side of the daemon: the signed-command verifier and the gate."""
    section = ctl.config.venue
    # Expiries are wall time (the venue signs with its clock); without a wall clock
    # (tests on the virtual clock) every command has expired.
    verifier = Verifier(ctl.config.table.id, load_keys(section.keys), wall or (lambda: 0.0),
                        section.command_max_s, state / COMMANDS_NAME)
    gate = BookingGate(ctl.clock, section.gate)
    saved = ledger.kept_value("gate")
    if isinstance(saved, dict):
        gate.restore(saved)     # a paid session goes on after a restart
    ledger.kept["gate"] = gate.snapshot
    ledger.booking = gate.booking
    ctl.gate_closed = gate.closed_why
    return Venue(verifier, gate, ledger, Identify(ctl.clock, ctl.hal))
