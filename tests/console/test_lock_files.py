"""The daemon's lock files as an operator or an intruder may leave them: a symbolic or
hard link is refused, never followed (the daemon runs as root: following one would
empty whatever file it names), and a lock file the daemon may only read still locks."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from firmware.service import tablelock
from firmware.service.tablelock import StateUnwritable, TableBusy, lock_table


@pytest.mark.parametrize("link", [os.symlink, os.link])
@pytest.mark.parametrize("which", ["state", "socket"])
def test_a_lock_file_that_is_a_link_is_refused_and_its_target_untouched(
        tmp_path: Path, link, which: str) -> None:
    state, sock = tmp_path / "state", tmp_path / "run" / "api.sock"
    state.mkdir()
    sock.parent.mkdir()
    victim = tmp_path / "passwd"
    victim.write_text("root:x:0:0::/root:/bin/sh\n")
    lock_file = state / "daemon.lock" if which == "state" else sock.with_name("api.sock.lock")
    link(victim, lock_file)
    with pytest.raises(StateUnwritable) as refused:
        lock_table(state, sock)
    assert str(refused.value) == (f"{lock_file} is not a plain lock file (a link to "
                                  "another file?); remove it and start again")
    assert victim.read_text() == "root:x:0:0::/root:/bin/sh\n"
    # Removed, the table starts.
    lock_file.unlink()
    lock_table(state, sock).release()


def test_a_lock_file_owned_by_someone_else_still_locks(tmp_path: Path,
                                                       monkeypatch) -> None:
    """A daemon that may not write another user's lock file still takes its flock (a
    read-only descriptor can hold one): a second daemon on that socket is refused."""
    state, sock = tmp_path / "state", tmp_path / "api.sock"
    first = lock_table(tmp_path / "first-state", sock)
    real_open = os.open

    def not_yours(path, flags, *args):
        if flags & os.O_RDWR:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(tablelock.os, "open", not_yours)
    (state).mkdir()
    (state / "daemon.lock").touch()
    with pytest.raises(TableBusy, match=f"pid {os.getpid()}.*socket"):
        lock_table(state, sock)
    first.release()
    lock_table(state, sock).release()


def test_a_refused_daemon_never_reads_an_empty_lock_file(tmp_path: Path,
                                                         monkeypatch) -> None:
    """The holder's pid is never missing from the lock file while it is rewritten: a
    daemon refused at that instant named "pid ?"."""
    state = tmp_path / "state"
    state.mkdir()
    (state / "daemon.lock").write_text("4194303\n")     # a dead daemon's, longer
    seen: list[str] = []
    real = {name: getattr(os, name) for name in ("ftruncate", "pwrite")}

    def watched(name):
        def call(fd, *args):
            result = real[name](fd, *args)
            seen.append((state / "daemon.lock").read_text())
            return result
        return call

    for name in real:
        monkeypatch.setattr(tablelock.os, name, watched(name))
    lock_table(state, tmp_path / "api.sock").release()
    assert seen and all(text.split("\n")[0] == str(os.getpid()) for text in seen), seen
    assert (state / "daemon.lock").read_text() == f"{os.getpid()}\n"


def test_a_full_disk_at_the_lock_leaves_no_lock_behind(tmp_path: Path,
                                                       monkeypatch) -> None:
    """The flock is taken, then the pid cannot be written (a full card): the daemon is
    refused with the card's line, and the lock it had taken goes with the refusal (it
    stayed held, and the same process's next try was told a daemon was running)."""
    state, sock = tmp_path / "state", tmp_path / "api.sock"

    def full(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(tablelock.os, "pwrite", full)
        with pytest.raises(StateUnwritable, match="the disk is full"):
            lock_table(state, sock)
    lock_table(state, sock).release()
