"""The daemon's journal: saved at once (a crash finds it), fsynced beside the loop."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from firmware.state.journal import FileJournal
from firmware.state.journal_flush import FlushedJournal


class SlowDisk:
    """os.fsync that blocks until released, as a disk busy with someone else's writes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()
        self.calls = 0
        self.fail: OSError | None = None
        real = os.fsync

        def fsync(fd: int) -> None:
            self.calls += 1
            self.entered.set()
            assert self.release.wait(5.0), "test never released the disk"
            if self.fail is not None:
                raise self.fail
            real(fd)

        monkeypatch.setattr(os, "fsync", fsync)


def test_save_returns_while_the_disk_is_busy_and_a_crash_would_find_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = SlowDisk(monkeypatch)
    journal = FlushedJournal(tmp_path)
    journal.save({"cycle": 1})
    assert disk.entered.wait(5.0)             # the flusher is stuck in fsync ...
    journal.save({"cycle": 2})                # ... and the caller is not
    # What a restart after SIGKILL reads: the newest version, already in place.
    assert FileJournal(tmp_path).load()["cycle"] == 2
    assert not journal.flush(timeout=0.05)
    disk.release.set()
    assert journal.flush(timeout=5.0)
    journal.close()
    assert FileJournal(tmp_path).load()["cycle"] == 2


def test_versions_saved_during_one_fsync_share_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = SlowDisk(monkeypatch)
    journal = FlushedJournal(tmp_path)
    journal.save({"cycle": 0})
    assert disk.entered.wait(5.0)
    for cycle in range(1, 6):
        journal.save({"cycle": cycle})
    disk.release.set()
    journal.close()
    assert journal.flushes == 2               # the first, then only the newest of five
    assert disk.calls == 4                    # file and directory, twice
    assert FileJournal(tmp_path).load()["cycle"] == 5


def test_a_failing_disk_is_raised_in_the_loop_at_the_next_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = SlowDisk(monkeypatch)
    disk.fail = OSError(5, "Input/output error")
    disk.release.set()
    journal = FlushedJournal(tmp_path)
    journal.save({"cycle": 1})
    assert journal.flush(timeout=5.0)
    with pytest.raises(OSError, match="Input/output"):
        journal.save({"cycle": 2})
    disk.fail = None
    journal.save({"cycle": 3})
    journal.close()
    assert FileJournal(tmp_path).load()["cycle"] == 3


def test_after_close_a_save_is_synchronous_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = FlushedJournal(tmp_path)
    journal.close()
    disk = SlowDisk(monkeypatch)
    disk.release.set()
    journal.save({"cycle": 7, "clean": True})
    assert disk.calls == 2
    assert FileJournal(tmp_path).load() == {"cycle": 7, "clean": True,
                                            "format": "mjtable.journal/1"}
