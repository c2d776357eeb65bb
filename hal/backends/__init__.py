"""HAL backends and how one is chosen.

Backends are plug-ins: each is an entry point in group `mjtable.hal_backends` naming a
function `(config, clock, seed) -> OpenedHal`. This package registers `rpigpio` (the
board's GPIO) and `ioboard` (an I/O board on a serial line); the simulator registers
`sim`, so the HAL never imports it. `auto` picks `rpigpio` on a Raspberry Pi and the
simulator elsewhere — and says so, so a table never runs on the simulator without
anyone knowing.
"""

from __future__ import annotations

from hal.backends.rpigpio import board_model, is_pi
from hal.interface import HalError, OpenedHal
from mjtable_core import plugins
from mjtable_core.clock import Clock
from mjtable_core.config import Config
from mjtable_core.i18n import _


def choose_backend(config: Config) -> str:
    """The backend to open: `[hal] backend`, or for `auto` the board's own GPIO on a
    Raspberry Pi and the built-in simulator elsewhere."""
    backend = config.hal.backend
    if backend != "auto":
        return backend
    return "rpigpio" if is_pi(board_model()) else "sim"


def open_hal(config: Config, clock: Clock, seed: int | None = None) -> OpenedHal:
    """Open the backend `[hal] backend` names (the config check made sure it exists)."""
    backend = choose_backend(config)
    entry = plugins.installed(plugins.HAL_BACKENDS).get(backend)
    if entry is None:
        raise HalError(_(
            "HAL backend {backend!r} is not installed; set [hal] backend = \"sim\" in the "
            "config to run the built-in simulator (pip install mjtable provides it)").format(
                backend=backend))
    return entry.load()(config, clock, seed)
