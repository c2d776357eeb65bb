"""One daemon per table: locks taken before anything moves.

Two daemons on one table would drive the same pins or serial line and write the same
event log (the second's rows collide with the first's and the first's log writer
stops). So `mjtable run` takes an exclusive `flock` on a lock file in the state
directory, and one beside the API socket, before it opens the HAL; a second daemon
finds either held and stops at once, naming the first one's pid. The kernel drops a
`flock` when its process dies, however it dies: a stale lock file never blocks a
restart. The files are left in place (removing a lock file races a daemon starting).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from pathlib import Path

from firmware.i18n import _
from firmware.state.storage import reason

LOCK_NAME = "daemon.lock"


class TableBusy(Exception):
    """Another daemon holds this table (its state directory or its socket)."""


class StateUnwritable(Exception):
    """The state directory cannot be written: the daemon cannot log, so it does not run."""


class TableLock:
    """The held locks; `release` (or the process's end) lets the next daemon start."""

    def __init__(self) -> None:
        self._fds: list[int] = []

    def take(self, path: Path, what: str) -> None:
        """Hold `path` exclusively or raise TableBusy naming the holder; `what` says
        which resource the file stands for (the state directory, the socket)."""
        fd, writable = _open_lock(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise TableBusy(_("another table daemon (pid {pid}) is running on {what}; "
                              "stop that one first").format(
                                  pid=holder, what=what)) from None
        except BaseException:
            os.close(fd)
            raise
        self._fds.append(fd)
        if not writable:
            return
        # Whoever is refused reads who holds the table: written over the old pid, then
        # cut to length, so that a reader never finds the file empty.
        pid = f"{os.getpid()}\n".encode()
        os.pwrite(fd, pid, 0)
        os.ftruncate(fd, len(pid))

    def release(self) -> None:
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()

    def __enter__(self) -> TableLock:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


def _open_lock(path: Path) -> tuple[int, bool]:
    """The lock file's descriptor and whether the pid may be written into it.

    Never through a link: the daemon runs as root, and a lock file made a symbolic or
    hard link to another file would have that file emptied. A lock file another user
    owns is opened read-only: a read-only descriptor holds a flock all the same."""
    flags = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        try:
            fd, writable = os.open(path, flags | os.O_RDWR | os.O_CREAT, 0o640), True
        except PermissionError as denied:
            try:
                fd, writable = os.open(path, flags | os.O_RDONLY), False
            except FileNotFoundError:
                raise denied from None
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        fd = -1
    if fd >= 0:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
            return fd, writable
        os.close(fd)
    raise StateUnwritable(_("{path} is not a plain lock file (a link to another file?); "
                            "remove it and start again").format(path=path))


def _holder(fd: int) -> str:
    try:
        # The first line: the rest may be what is left of a longer pid, being cut.
        text = os.pread(fd, 32, 0).decode("ascii", "replace").split("\n")[0].strip()
    except OSError:
        text = ""
    return text if text.isdigit() else "?"


def lock_table(state: Path, socket: Path) -> TableLock:
    """Lock the state directory (creating it) and the socket's place, in that order.

    Raises TableBusy when another daemon holds either, StateUnwritable when the state
    directory cannot be written (a read-only or full SD card)."""
    lock = TableLock()
    try:
        state.mkdir(parents=True, exist_ok=True)
        lock.take(state / LOCK_NAME, _("state directory {path}").format(path=state))
    except OSError as exc:
        lock.release()      # a flock taken before the pid could not be written
        raise StateUnwritable(_("cannot write the state directory {path}: {reason}; free "
                                "space, remount it read-write or pass --state-dir DIR")
                              .format(path=state, reason=reason(exc))) from None
    try:
        socket.parent.mkdir(parents=True, exist_ok=True)
        lock.take(socket.with_name(socket.name + ".lock"),
                  _("socket {path}").format(path=socket))
    except OSError:
        # A socket directory we cannot write: no daemon can listen there either, and
        # the API attachment says so; the state directory's lock still holds the table.
        pass
    except (TableBusy, StateUnwritable):
        lock.release()
        raise
    return lock
