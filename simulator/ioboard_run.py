"""`mjtable simulate --hal ioboard`: the unchanged firmware through the real serial path.

Like `simulator/run.py` `simulate()`, but the firmware drives the table through the
ioboard backend, pyserial, a pty (or a 127.0.0.1 socket) and the board emulator. Time
is a `LockstepClock`: virtual, advancing only while the link is idle, so a run is as
fast as the frames can cross and its timings equal those of the in-process simulator
(docs/protocol.md, "Time in the simulator").
"""

from __future__ import annotations

import resource
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware.config import Config
from firmware.controller import Controller
from firmware.faults import CATALOGUE, ERROR, Fault
from hal.backends.ioboard import IoBoardHal, LinkError, open_port
from hal.interface import HalError
from hal.protocol import VERSION
from simulator.ioboard_emulator import BoardPort, IoBoardEmulator, PtyPort, TcpPort
from simulator.lockstep import LockstepClock, MeteredPort
from simulator.players import SimPlayers
from simulator.run import CYCLE_ALLOWANCE_S, build_bound
from simulator.table import SimTable

LINK_FAULTS = ("link.lost", "link.version")


class IoboardBench:
    """Table, board emulator, serial port and ioboard HAL, wired on one lockstep clock."""

    def __init__(self, config: Config, seed: int | None = None, *, transport: str = "pty",
                 link_noise: float = 0.0, board_version: int = VERSION,
                 heartbeat_limit_s: float = 0.5) -> None:
        self.config = config
        self.clock = LockstepClock()
        self.table = SimTable(config, self.clock, seed)
        port: BoardPort = (PtyPort(self.clock.meter) if transport == "pty"
                           else TcpPort(0, self.clock.meter))
        self.board = IoBoardEmulator(self.table, self.clock, port, version=board_version,
                                     heartbeat_limit_s=heartbeat_limit_s, noise=link_noise,
                                     seed=self.table.seed)
        self.board.start()
        serial_port = MeteredPort(open_port(port.url, config.ioboard.baud), self.clock.meter)
        self.hal = IoBoardHal(config, self.clock, port=serial_port)

    def connect(self) -> HalError | None:
        """The host's blocking handshake, while the clock serves the board's side.

        Returns what refused it: a LinkError (link.lost, link.version) or a HalError
        (a setting the board's handshake contradicts)."""
        errors: list[HalError] = []

        def shake() -> None:
            try:
                self.hal.connect()
            except HalError as exc:
                errors.append(exc)
            finally:
                self.clock.post(lambda: None)     # wake the clock: the host is done

        thread = threading.Thread(target=shake, name="ioboard-handshake")
        thread.start()
        self.clock.serve_while(thread.is_alive)
        thread.join()
        return errors[0] if errors else None

    def close(self, drain: bool = True) -> None:
        if drain:
            self.clock.run_until(self.clock.now())     # let the last frames (SAFE) cross
        self.hal.close()
        self.board.close()


def simulate_ioboard(config: Config, cycles: int, seed: int | None = None,
                     progress: Callable[[int, int], None] | None = None, *,
                     transport: str = "pty", link_noise: float = 0.0,
                     link_drop: tuple[float, float] | None = None,
                     board_version: int = VERSION,
                     heartbeat_limit_s: float = 0.5) -> dict[str, Any]:
    """Run `cycles` hands through the emulated board; the report of `simulate()`.

    `link_drop` = (at_s, duration_s) cuts the cable for a while; `link_noise` flips
    each bit with that probability. Stops early on an error fault.
    """
    wall_start = time.perf_counter()
    bench = IoboardBench(config, seed, transport=transport, link_noise=link_noise,
                         board_version=board_version, heartbeat_limit_s=heartbeat_limit_s)
    clock, table, board = bench.clock, bench.table, bench.board
    faults: list[dict[str, Any]] = []
    handoffs: list[dict[str, Any]] = []
    build_times: list[float] = []
    bounds: list[float] = []
    checks_pending = 0
    motors_safe = True
    halted = False
    started_at = 0.0

    error = bench.connect()
    if error is not None and not isinstance(error, LinkError):
        bench.close(drain=False)
        raise error                   # a setting the board refuses: the caller reports it
    if error is not None:
        fault = Fault(error.fault_id, "link", None, 0, 0.0, error.evidence).as_dict()
        faults.append({k: fault[k] for k in ("id", "code", "where", "cycle", "sim_time_s",
                                             "evidence", "diagnosis")})
        bench.close(drain=False)      # the host stopped reading: nothing will drain
        return _report(bench, cycles, 0, wall_start, faults, [], [], [], True, False,
                       error=str(error))

    ctl = Controller(config, bench.hal, clock)
    players = SimPlayers(table, clock, config)

    def check_motors() -> None:
        nonlocal motors_safe, checks_pending
        motors_safe = motors_safe and table.motors_off()
        checks_pending -= 1

    def on_event(event: dict[str, Any]) -> None:
        nonlocal halted, started_at, checks_pending
        kind = event["kind"]
        if kind == "build.started":
            started_at = event["t"]
            for side in table.sides:
                side.loaded_at = []
        elif kind == "build.staged":
            build_times.append(event["build_s"])
            bounds.append(round(build_bound(table, started_at, config.tiles_per_side), 3))
        elif kind == "fault":
            faults.append({k: event[k] for k in ("id", "code", "where", "cycle",
                                                 "sim_time_s", "evidence", "diagnosis")})
            if CATALOGUE[event["id"]].severity == ERROR:
                halted = True
                checks_pending += 1
                # SAFE crosses the link before virtual time moves on; with the link
                # gone, the board's own failsafe must have acted within its limit.
                delay = heartbeat_limit_s if event["id"] in LINK_FAULTS else 0.0
                clock.call_later(delay, check_motors)
        elif kind == "handoff":
            handoffs.append({"cycle": event["cycle"], "set": event["set"],
                             "commitment": event["commitment"]})
            if progress is not None:
                progress(len(handoffs), cycles)

    ctl.subscribers.append(on_event)
    if link_drop is not None:
        at_s, duration_s = link_drop
        clock.call_at(at_s, lambda: board.drop_link(duration_s))

    def finished() -> bool:
        done = halted or (len(handoffs) >= cycles and ctl.build.state == "staged")
        return done and checks_pending == 0

    ctl.start()
    players.start()
    clock.run_until((cycles + 1) * (config.simulator.play_time_s + CYCLE_ALLOWANCE_S),
                    until=finished)
    ctl.stop()
    bench.close()
    records = ctl.handoff.records
    handoff_rows = [{**h, "tiles": sum(1 for w in r["walls"] for s in w for _ in s)}
                    for h, r in zip(handoffs, records, strict=False)]
    return _report(bench, cycles, len(handoffs), wall_start, faults, handoff_rows,
                   build_times, bounds, motors_safe, not halted and len(handoffs) >= cycles)


def _report(bench: IoboardBench, cycles: int, completed: int, wall_start: float,
            faults: list[dict[str, Any]], handoffs: list[dict[str, Any]],
            build_times: list[float], bounds: list[float],
            motors_safe: bool, ok: bool, error: str | None = None) -> dict[str, Any]:
    clock, table, board = bench.clock, bench.table, bench.board
    wall = time.perf_counter() - wall_start
    report = {
        "hal": "ioboard",
        "cycles_requested": cycles,
        "cycles_completed": completed,
        "seed": table.seed,
        "config": bench.config.source,
        "sim_time_s": round(clock.now(), 3),
        "wall_time_s": round(wall, 3),
        "speed_factor": round(clock.now() / wall, 1) if wall > 0 else None,
        "events_run": clock.events_run,
        "faults": faults,
        "handoffs": handoffs,
        "tiles_accounted": table.tiles_accounted(),
        "build_times_s": build_times,
        "build_bound_s": bounds,
        "motors_safe_after_faults": motors_safe,
        "motors_off_at_end": table.motors_off(),
        "link": {"port": board.url, "host": dict(bench.hal.stats),
                 "board": {**board.link.stats.as_dict(), "bits_flipped": board.bits_flipped,
                           "failsafe_at_s": board.failsafe_at}},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "completed": ok and error is None,
    }
    if error is not None:
        report["error"] = error
    return report
