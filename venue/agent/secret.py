"""The table's broker password, from a file only the agent's user reads.

Whoever reads it publishes as the table (a retained status, its hand records, junk on
its own `cmd`), and `table.toml` was installed 0644 with `[venue] password` in it. The
password now lives in `[venue] password_file`, which must be private to its owner
(0600 or 0400), or in `table.toml` installed 0640 (docs/raspberry-pi.md): a password
in a config every local user can read is said at every start.
"""

from __future__ import annotations

import stat
from pathlib import Path

from firmware.i18n import _
from mjtable_core.config import VenueSection


class SecretError(Exception):
    """The password file cannot be used: one line, said and exit 2."""


def broker_password(venue: VenueSection, config_file: str) -> tuple[str, str | None]:
    """The broker password, and a warning to say (None: it is kept private)."""
    if venue.password_file:
        path = Path(venue.password_file)
        try:
            mode = path.stat().st_mode
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SecretError(_("[venue] password_file {path}: cannot be read: {error}").format(
                path=path, error=getattr(exc, "strerror", None) or exc)) from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise SecretError(_("[venue] password_file {path} can be read by other users "
                                "(mode {mode:04o}): chmod 600 it").format(
                path=path, mode=stat.S_IMODE(mode)))
        return text.strip("\r\n"), None
    if not venue.password:
        return "", None
    try:
        mode = Path(config_file).stat().st_mode
    except OSError:
        return venue.password, None
    if mode & stat.S_IROTH:
        return venue.password, _("[venue] password is in {config}, which every local user "
                                 "can read: chmod 640 it (group of the table's users), or "
                                 "move the password to [venue] password_file (0600)").format(
            config=config_file)
    return venue.password, None
