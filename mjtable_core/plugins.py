"""Plug-ins found by entry point, so a lower layer never imports a higher one.

A package adds a HAL backend, a rules engine or a config check by declaring an entry
point in one of these groups (pyproject.toml `[project.entry-points."<group>"]`);
the simulator registers its `sim` backend this way, and the rules engine its check of
`[rules]`.
"""

from __future__ import annotations

import functools
import sys
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from mjtable_core.i18n import N_, _
from mjtable_core.schema import ConfigError

HAL_BACKENDS = "mjtable.hal_backends"
RULES_ENGINES = "mjtable.rules_engines"
# Callables taking the parsed Config; they raise ConfigError (mjtable_core.schema).
CONFIG_CHECKS = "mjtable.config_checks"

# What a plug-in of each group is, as the message names it.
WHAT = {HAL_BACKENDS: N_("HAL backend"), RULES_ENGINES: N_("rules engine"),
        CONFIG_CHECKS: N_("config check")}


def installed(group: str) -> dict[str, EntryPoint]:
    """The entry points of `group` that installed packages declare, by name."""
    return {ep.name: ep for ep in _scan(tuple(sys.path)).select(group=group)}


@functools.lru_cache(maxsize=8)
def _scan(path: tuple[str, ...]) -> Any:
    # Reading every distribution's metadata takes milliseconds and every config load
    # asks; what is installed changes with the import path, so that is the key. Every
    # group in one pass: a scan per group read each distribution's files once per group.
    # (EntryPoints from Python 3.12, SelectableGroups before: both `select(group=)`.)
    return entry_points()


def require(group: str, name: str, file: str, section: str, key: str) -> EntryPoint:
    """The entry point `name` of `group`; a config error names the file's key when no
    installed package provides it."""
    found = installed(group)
    if name not in found:
        known = ", ".join(sorted(found)) or _(
            "none; is mjtable itself installed (pip install .)?")
        what = _(WHAT[group]) if group in WHAT else group
        raise ConfigError(file, section, key,
                          _("no {what} {name!r} is installed (installed: {known}; a package "
                            "provides one with an entry point in group {group!r})").format(
                              what=what, name=name, known=known, group=group))
    return found[name]
