"""Where the daemon keeps its state and its socket.

systemd hands a service its directories in `$STATE_DIRECTORY` and
`$RUNTIME_DIRECTORY`; a developer's laptop has the XDG ones. Nothing here creates a
directory: the caller does, so a read-only command never leaves one behind.
"""

from __future__ import annotations

import os
from pathlib import Path

SOCKET_NAME = "api.sock"
EVENT_LOG_NAME = "events.sqlite"
TECHNICIANS_NAME = "technicians.json"


def _first(env_value: str | None) -> str | None:
    # systemd may pass several directories separated by colons; the first is ours.
    if not env_value:
        return None
    return env_value.split(":")[0] or None


def state_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The state directory: explicit, else $STATE_DIRECTORY, else the per-user one."""
    if explicit:
        return Path(explicit)
    systemd = _first(os.environ.get("STATE_DIRECTORY"))
    if systemd:
        return Path(systemd)
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return base / "mjtable"


def runtime_dir() -> Path:
    """The runtime directory: $RUNTIME_DIRECTORY, $XDG_RUNTIME_DIR/mjtable or /run/mjtable."""
    systemd = _first(os.environ.get("RUNTIME_DIRECTORY"))
    if systemd:
        return Path(systemd)
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg:
        return Path(xdg) / "mjtable"
    return Path("/run/mjtable")


def default_socket() -> Path:
    return runtime_dir() / SOCKET_NAME
