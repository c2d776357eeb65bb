"""Drive every output of the table safe, without starting the daemon.

systemd runs this as `ExecStopPost=` (after a clean stop, a crash or a watchdog kill
alike), so the table is left with every motor, lamp and the buzzer off whatever
happened to the daemon. Usage: `python -m firmware.service.safe_outputs [--config FILE]`.

- rpigpio: every output line set up at its inactive level, then released.
- ioboard: handshake, then SAFE; should the frame be lost, the board's own heartbeat
  failsafe turns everything off within its limit anyway (nobody is heartbeating).
- sim: there is nothing physical to make safe.
"""

from __future__ import annotations

import argparse
import sys

from hal.interface import HalError
from mjtable_core.clock import VirtualClock
from mjtable_core.config import load_config
from mjtable_core.schema import ConfigError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware.service.safe_outputs",
                                     description="every output of the table off, now")
    parser.add_argument("--config", help="table config (default: the reference table.toml)")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"mjtable-safe-outputs: config error: {exc}", file=sys.stderr)
        return 2
    from hal.backends import open_hal

    clock = VirtualClock()        # no loop runs here: nothing is scheduled, only written
    try:
        # Whatever backend `[hal] backend` names, through the plug-in registry: opening
        # it drives every output safe (rpigpio's set-up), connect() shakes hands (an
        # I/O board), close() leaves every output safe and releases the hardware.
        opened = open_hal(config, clock)
        if not opened.persistent:
            opened.hal.close()
            print("mjtable-safe-outputs: simulator backend, no outputs to drive")
            return 0
        opened.connect()
        opened.hal.close()
        backend = opened.backend
    except HalError as exc:
        print(f"mjtable-safe-outputs: could not reach the outputs: {exc}", file=sys.stderr)
        return 1
    print(f"mjtable-safe-outputs: every output off ({backend})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
