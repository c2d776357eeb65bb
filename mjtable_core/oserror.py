"""An operating-system error as a person reads it, in their language.

`OSError.strerror` comes from the C library in its own locale ("No such file or
directory" on a Chinese screen); the common ones are said through the catalogue.
"""

from __future__ import annotations

import errno

from mjtable_core.i18n import N_, _

SAID = {
    errno.ENOENT: N_("no such file or folder"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.EISDIR: N_("is a folder, not a file"),
    errno.ENOTDIR: N_("a part of the path is not a folder"),
    errno.ENOSPC: N_("no space left on the device"),
    errno.EROFS: N_("the file system is read-only"),
}


def said(exc: OSError) -> str:
    """What went wrong, in words: the catalogue's for the common errors, else the
    system's own."""
    label = SAID.get(exc.errno) if exc.errno is not None else None
    return _(label) if label else (exc.strerror or str(exc))
