"""Storage errors as a person meets them: one line naming the file and what is wrong.

A state directory on an SD card goes read-only when the card wears out, fills up, or
is half-written by a power cut. Commands print this line and exit 2; the daemon
raises E96 `storage.failed` with it as evidence.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from pathlib import Path

from firmware.i18n import _

# What reading or writing the state directory may raise (a damaged JSON file too).
STORAGE_ERRORS = (OSError, sqlite3.Error, json.JSONDecodeError, UnicodeDecodeError)


class Unreadable(sqlite3.OperationalError):
    """A file that cannot be read as it stands; the message says why and what to do."""


def reason(exc: BaseException) -> str:
    """Why a file could not be used, in a few words."""
    if isinstance(exc, Unreadable):
        return str(exc)
    if isinstance(exc, OSError):
        if exc.errno == errno.EROFS:
            return _("the file system is read-only")
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return _("the disk is full")
        if exc.errno in (errno.EACCES, errno.EPERM):
            return _("permission denied")
        if exc.errno == errno.ENOENT:
            return _("it is missing")
        return exc.strerror or str(exc)
    if type(exc) is sqlite3.DatabaseError or isinstance(exc, ValueError):
        return _("the file is damaged ({error}); move it aside").format(error=exc)
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return _("the file system is read-only")
    if "full" in text:
        return _("the disk is full")
    return text


def read_only(directory: Path) -> bool:
    """Whether nothing can be written in `directory`: a file system mounted read-only
    (what a worn SD card becomes), or a directory its user may not write."""
    try:
        mounted_ro = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        return False
    return mounted_ro or not os.access(directory, os.W_OK)


def problem(path: Path, exc: BaseException) -> str:
    """The one line for `path` that could not be used because of `exc`."""
    return _("cannot use {path}: {reason}").format(path=path, reason=reason(exc))
