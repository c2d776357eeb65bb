"""The systemd unit of this install: the packaged template with this install's paths.

    sudo /opt/mjtable/.venv/bin/python -m firmware.service.systemd_unit \\
        > /etc/systemd/system/mjtable.service
    sudo /opt/mjtable/.venv/bin/python -m firmware.service.systemd_unit --sysusers \\
        > /usr/lib/sysusers.d/mjtable.conf
    sudo /opt/mjtable/.venv/bin/python -m firmware.service.systemd_unit --agent \\
        > /etc/systemd/system/mjtable-agent.service

The daemon and the safe-outputs command are named by the paths of the Python that
runs this, so the unit follows wherever pip installed mjtable (docs/raspberry-pi.md).
"""

from __future__ import annotations

import argparse
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from mjtable_core.packagedata import data_folder

PACKAGE = "firmware.systemd"
TEMPLATE = "mjtable.service.in"
AGENT_TEMPLATE = "mjtable-agent.service.in"     # `mjtable agent` (docs/venue.md)
SYSUSERS = "mjtable.sysusers"
DEFAULT_CONFIG = "/etc/mjtable/table.toml"


def _packaged(name: str) -> str:
    return (data_folder(PACKAGE, "systemd") / name).read_text(encoding="utf-8")


def render_unit(config: str = DEFAULT_CONFIG, bindir: str | None = None,
                python: str | None = None, template: str = TEMPLATE) -> str:
    """The unit text: the template's @BINDIR@, @PYTHON@ and @CONFIG@ filled in.

    `bindir` (where the `mjtable` script is) and `python` default to this install's.
    """
    bindir = bindir or sysconfig.get_path("scripts")
    python = python or sys.executable
    for name, value in (("config", config), ("bindir", bindir), ("python", python)):
        # systemd splits command lines at blanks; a quoted path would be one more rule.
        if any(c.isspace() for c in value):
            raise ValueError(f"{name} path {value!r} holds a blank; systemd would split it")
    text = _packaged(template)
    for key, value in (("@BINDIR@", bindir), ("@PYTHON@", python), ("@CONFIG@", config)):
        text = text.replace(key, value)
    return text


def sysusers() -> str:
    """The sysusers.d file that creates the `mjtable` user and its groups."""
    return _packaged(SYSUSERS)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware.service.systemd_unit",
                                     description="Print the systemd unit for this install.")
    parser.add_argument("--config", default=DEFAULT_CONFIG,
                        help=f"table config the service reads (default: {DEFAULT_CONFIG})")
    parser.add_argument("--sysusers", action="store_true",
                        help="print the sysusers.d file instead of the unit")
    parser.add_argument("--agent", action="store_true",
                        help="print the venue agent's unit (mjtable-agent.service)")
    parser.add_argument("--output", metavar="FILE", help="write here instead of stdout")
    args = parser.parse_args(argv)
    try:
        text = sysusers() if args.sysusers else render_unit(
            args.config, template=AGENT_TEMPLATE if args.agent else TEMPLATE)
    except ValueError as exc:
        print(f"mjtable: {exc}", file=sys.stderr)
        return 2
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
