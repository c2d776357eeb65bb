"""`mjtable simulate --hal ioboard`: the unchanged firmware through the real serial path.

The rig behind `simulate_ioboard()` (simulator/harness/run.py): the same harness (rig
"ioboard"), but the firmware drives the table through the ioboard backend, pyserial,
a pty (or a 127.0.0.1 socket) and the board emulator. Time is a `LockstepClock`:
virtual, advancing only while the link is idle, so a run is as fast as the frames can
cross and its timings equal those of the in-process simulator (docs/protocol.md,
"Time in the simulator").
"""

from __future__ import annotations

import threading

from hal.backends.ioboard import IoBoardHal, LinkError, open_port
from hal.interface import HalError
from hal.protocol import VERSION
from mjtable_core.config import Config, check_link
from simulator.physics.table import SimTable
from simulator.rigs.host_clock import HostClock
from simulator.rigs.ioboard_emulator import BoardPort, IoBoardEmulator, PtyPort, TcpPort
from simulator.rigs.lockstep import LockstepClock, MeteredPort


class IoboardWiredTable:
    """Table, board emulator, serial port and ioboard HAL, wired on one lockstep clock."""

    def __init__(self, config: Config, seed: int | None = None, *, transport: str = "pty",
                 link_noise: float = 0.0, board_version: int = VERSION,
                 heartbeat_limit_s: float = 0.5) -> None:
        # The config may name another backend: its link settings are checked here.
        check_link(config)
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
        # The host's side runs on its own view of the clock, which a host_stall freezes.
        self.host = HostClock(self.clock)
        self.hal = IoBoardHal.from_config(config, self.host, port=serial_port)

    def connect(self) -> LinkError | None:
        """The host's blocking handshake, while the clock serves the board's side.

        Returns the link fault that refused it; raises a HalError that is no link fault
        (a setting the board's handshake contradicts, such as a slow heartbeat)."""
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
        if errors and not isinstance(errors[0], LinkError):
            raise errors[0]
        return errors[0] if errors and isinstance(errors[0], LinkError) else None

    def close(self, drain: bool = True) -> None:
        if drain:
            self.clock.run_until(self.clock.now())     # let the last frames (SAFE) cross
        self.hal.close()
        self.board.close()
