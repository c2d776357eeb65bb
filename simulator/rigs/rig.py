"""The two rigs a scenario runs on, behind one harness (simulator/harness/runner.py).

- `SimRig`: the simulated HAL in-process, on a `VirtualClock`.
- `IoboardRig`: the ioboard backend, pyserial, a pty (or socket) and the I/O-board
  emulator, on the lockstep clock (simulator/rigs/ioboard_run.py `IoboardWiredTable`).

The harness asks a rig for its clock, table and HAL, to connect, to die and boot
again at a power cut, and to break or mend the link; everything else (injection,
technician, referee, watchdog, report) is the same on both.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from hal.backends.ioboard import IoBoardHal, LinkError, open_port
from hal.interlocks import Rule, interlock_rules
from hal.protocol import VERSION
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config
from simulator.physics.table import SimTable
from simulator.rigs.backend import SimHal
from simulator.rigs.host_clock import HostClock
from simulator.scenario import FaultSpec

# After the cable is back: a few of the host's HELLOs, for the board's WELCOME.
RELINK_GRACE_S = 1.0
BOARD_TICK_S = 0.001
# On the chip a stop's SAFE crosses UART0 at the line's pace (SAFE_NOW and SAFE: 15
# bytes, 1.3 ms; 4.8 ms naming 20 outputs) and is acted on at the board loop's next
# turn, one whole turn away at worst (the longest measured 50 ms, a heap collection in
# it), then a few I2C writes: some 56 ms. Measured: the pico rig's
# `board.safe_latency_us` (docs/board.md).
SAFE_GRACE_S = 0.1


class SimRig:
    """The in-process simulated HAL."""

    name = "sim"
    link_grace_s = 0.0       # a write reaches the table in the same call
    frame_grace_s = 0.0      # ... and so does a stop's SAFE
    wall_limit_s = 30.0      # real seconds a fuzz scenario may take (some 0.15 s here)
    interlocks: tuple[Rule, ...] = ()   # no board: the firmware's rules alone

    def __init__(self, config: Config, seed: int) -> None:
        self.clock = VirtualClock()
        self.host = HostClock(self.clock)
        self.table = SimTable(config, self.clock, seed)
        self.hal: Any = SimHal(self.table, self.host)

    def connect(self) -> LinkError | None:
        return None

    def host_dies(self, duration_s: float = 0.0) -> None:
        """A power cut: the host's HAL needs nothing done (the table loses power)."""

    def host_boots(self) -> LinkError | None:
        return None

    def inject_link(self, spec: FaultSpec) -> None:
        raise ValueError(f"{spec.kind} needs the I/O board link: run with --hal ioboard")

    def link_broken(self) -> bool:
        return False

    def link_returning(self) -> bool:
        """The cable is out for a while and the host is waiting for it to come back."""
        return False

    def wait_for_board(self, error: LinkError) -> None:
        """No board, no silent board: nothing to wait for."""

    def mend_link(self) -> None:
        """A technician replaces the cable: nothing to do without one."""

    def close(self, drain: bool = True) -> None:
        """Nothing to release."""

    def report(self) -> dict[str, Any]:
        return {"hal": "sim"}


class IoboardRig:
    """The real serial path against the I/O-board emulator, on the lockstep clock."""

    name = "ioboard"
    frame_grace_s = 0.0      # the emulator acts on a frame in the instant it lands
    wall_limit_s = 30.0      # some 4 s a scenario

    def __init__(self, config: Config, seed: int, *, transport: str = "pty",
                 link_noise: float = 0.0, board_version: int = VERSION,
                 heartbeat_limit_s: float = 0.5) -> None:
        from simulator.rigs.ioboard_run import IoboardWiredTable

        self.config = config
        self.wired = IoboardWiredTable(config, seed, transport=transport, link_noise=link_noise,
                                  board_version=board_version,
                                  heartbeat_limit_s=heartbeat_limit_s)
        self.clock = self.wired.clock
        self.host = self.wired.host
        self.table = self.wired.table
        self.board = self.wired.board
        # With the link gone, the board's own failsafe turns the motors off within this.
        # Plus one tick of the board's clock: it counts whole milliseconds.
        self.link_grace_s = heartbeat_limit_s + BOARD_TICK_S
        # The table the host declares to the board, for the referee to hold it to.
        self.interlocks = tuple(interlock_rules(self.table.signals))
        self.error: str | None = None

    @property
    def hal(self) -> IoBoardHal:
        return self.wired.hal

    def connect(self) -> LinkError | None:
        error = self.wired.connect()
        if error is not None:
            self.error = str(error)
        return error

    def host_dies(self, duration_s: float = 0.0) -> None:
        """Host and board lose power: the host's link and reader stop, nothing more
        crosses the cable until power is back, and what was on its way is lost."""
        self.board.drop_link(duration_s)
        hal = self.wired.hal
        hal.link.stop()
        hal._stop.set()     # the host is gone, not closed: no SAFE goes out
        if hal._reader is not None:
            hal._reader.join(timeout=1.0)
        # Bytes the dead host never read still count as in flight on the lockstep
        # clock: read them off (and away) so time can move on.
        with contextlib.suppress(Exception):
            while hal._port.read(max(1, hal._port.in_waiting)):
                pass
        with contextlib.suppress(Exception):
            hal._port.close()

    def host_boots(self) -> LinkError | None:
        """Power is back: a new host opens the port and shakes hands again (HELLO)."""
        from simulator.rigs.lockstep import MeteredPort

        port = MeteredPort(open_port(self.board.url, self.config.ioboard.baud),
                           self.clock.meter)
        self.wired.hal = IoBoardHal.from_config(self.config, self.host, port=port)
        errors: list[LinkError] = []

        def shake() -> None:
            try:
                self.wired.hal.connect()
            except LinkError as exc:
                errors.append(exc)
            finally:
                self.clock.post(lambda: None)

        thread = threading.Thread(target=shake, name="ioboard-handshake")
        thread.start()
        self.clock.serve_while(thread.is_alive)
        thread.join()
        return errors[0] if errors else None

    def inject_link(self, spec: FaultSpec) -> None:
        if spec.kind == "link_noise":
            self.board.noise = spec.probability
        else:
            self.board.drop_link(spec.duration_s)

    def link_broken(self) -> bool:
        return self.board.noise > 0 or self.board._dropping()

    def wait_for_board(self, error: LinkError) -> None:
        self.wired.hal.wait_for_board(error.evidence)

    def link_returning(self) -> bool:
        # The host says HELLO every HELLO_EVERY_S until the board answers: a cable
        # back a moment ago is still being found.
        board = self.board
        return board._dropping() or (
            self.wired.hal.link_lost
            and self.clock.now() < board._drop_until + RELINK_GRACE_S)

    def mend_link(self) -> None:
        self.board.noise = 0.0

    def close(self, drain: bool = True) -> None:
        self.wired.close(drain)

    def report(self) -> dict[str, Any]:
        board = self.board
        out: dict[str, Any] = {
            "hal": "ioboard",
            "link": {"port": board.url, "host": dict(self.wired.hal.stats),
                     "board": {**board.link.stats.as_dict(),
                               "bits_flipped": board.bits_flipped,
                               "failsafe_at_s": board.failsafe_at}}}
        if self.error is not None:
            out["error"] = self.error
        return out


class PicoRig(IoboardRig):
    """The board's firmware on MicroPython on an emulated RP2040 (simulator/rigs/pico_run.py),
    behind the same serial path as the ioboard rig, on the lockstep clock."""

    name = "pico"
    # The emulated RP2040 runs a hand in about the time a table does: a fuzz scenario
    # takes 3 to 8 minutes.
    wall_limit_s = 1800.0

    def __init__(self, config: Config, seed: int, **_options: Any) -> None:
        from simulator.rigs.pico_run import PicoWiredTable

        self.config = config
        self.wired = PicoWiredTable(config, seed)  # type: ignore[assignment]
        self.clock = self.wired.clock
        self.host = self.wired.host
        self.table = self.wired.table
        self.board = self.wired.board  # type: ignore[assignment]
        self.link_grace_s = 0.5 + BOARD_TICK_S + 0.002   # its loop looks every ms
        self.frame_grace_s = SAFE_GRACE_S
        self.interlocks = tuple(interlock_rules(self.table.signals))
        self.error = None

    def host_boots(self) -> LinkError | None:
        """Power is back: a new host shakes hands with the chip, whose time moves on
        while the host waits for its WELCOME (simulator/rigs/pico_run.py `connect`)."""
        from simulator.rigs.lockstep import MeteredPort

        port = MeteredPort(open_port(self.board.url, self.config.ioboard.baud),
                           self.clock.meter)
        self.wired.hal = IoBoardHal.from_config(self.config, self.host, port=port)
        return self.wired.connect()

    def report(self) -> dict[str, Any]:
        out = super().report()
        out["hal"] = "pico"
        out["board"] = self.board.figures()  # type: ignore[attr-defined]
        return out


# The rigs by the name `--hal` and `--rig` give them.
RIGS: dict[str, type[SimRig] | type[IoboardRig]] = {
    "sim": SimRig, "ioboard": IoboardRig, "pico": PicoRig}
