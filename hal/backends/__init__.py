"""HAL backends and how one is chosen.

`sim` is the built-in simulator (with simulated players); `rpigpio` drives the board's
GPIO; `ioboard` an I/O board on a serial line. `auto` picks `rpigpio` on a Raspberry
Pi and the simulator elsewhere — and says so, so a table never runs on the simulator
without anyone knowing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from firmware.clock import Clock
from firmware.config import Config
from hal.interface import Hal, HalError

PI_MODEL_FILE = Path("/proc/device-tree/model")


@dataclass
class OpenedHal:
    hal: Hal
    backend: str
    description: str
    # Starts whatever lives outside the firmware (the simulated players); may be a no-op.
    start_world: Callable[[], None]
    # The machine outlives this process (a real table): its journal must be on disk.
    # The built-in simulator is born again with every run, and so is its journal.
    persistent: bool = True
    # The board's handshake. From it on, the board expects our heartbeats within its
    # limit (0.5 s), so the daemon calls it last, just before the table starts.
    connect: Callable[[], None] = lambda: None


def board_model() -> str | None:
    try:
        return PI_MODEL_FILE.read_text(errors="replace").rstrip("\x00\n")
    except OSError:
        return None


def choose_backend(config: Config) -> str:
    backend = config.hal.backend
    if backend != "auto":
        return backend
    model = board_model()
    return "rpigpio" if model and "Raspberry Pi" in model else "sim"


def open_hal(config: Config, clock: Clock, seed: int | None = None) -> OpenedHal:
    backend = choose_backend(config)
    if backend == "sim":
        from hal.backends.sim import SimHal
        from simulator.players import SimPlayers
        from simulator.table import SimTable

        table = SimTable(config, clock, seed)
        players = SimPlayers(table, clock, config)
        return OpenedHal(SimHal(table), "sim",
                         f"built-in simulator (seed {table.seed}, simulated players)",
                         players.start, persistent=False)
    if backend == "rpigpio":
        from hal.backends.rpigpio import RpiGpioHal, board_model

        return OpenedHal(RpiGpioHal(config, clock), "rpigpio",
                         f"GPIO of {board_model()}", lambda: None)
    if backend == "ioboard":
        from hal.backends.ioboard import IoBoardHal

        board = IoBoardHal(config, clock)
        return OpenedHal(board, "ioboard", f"I/O board on {board.port_name}", lambda: None,
                         connect=board.connect)
    raise HalError(
        f"HAL backend {backend!r} is not part of this build yet; "
        "set [hal] backend = \"sim\" in the config to run the built-in simulator")
