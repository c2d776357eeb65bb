"""Storage faults as a user meets them: a read-only, full or damaged state directory
gives one line and exit 2 for every command, never a traceback.

Tests run as root, whom `chmod -w` does not stop: a read-only or tiny file system is a
real tmpfs mounted for the test (skipped where mounting is not allowed).
"""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from firmware.state.eventlog import EventLog
from mjtable.cli import main

Mount = Callable[[str], Path]


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Mount]:
    """mount(options): a fresh tmpfs under tmp_path with those options (ro, size=...)."""
    mounted: list[Path] = []

    def make(options: str) -> Path:
        where = tmp_path / f"fs{len(mounted)}"
        where.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(where)
        return where

    yield make
    for where in reversed(mounted):
        subprocess.run(["umount", "-l", str(where)], check=False)


def _log(path: Path, rows: int = 5) -> None:
    log = EventLog(path)
    for i in range(rows):
        log.record({"t": float(i), "kind": "key"})
    assert log.flush()
    log.close()


def _read_only_copy(mount: Mount, rows: int = 5) -> Path:
    """A state directory with an event log, then made read-only (the SD card E96 names)."""
    state = mount("size=4m")
    _log(state / "events.sqlite", rows)
    subprocess.run(["mount", "-o", "remount,ro", str(state)], check=True)
    return state


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


def _run(state: Path, tmp_path: Path) -> int:
    return main(["--state-dir", str(state), "run", "--plain", "--cycles", "1",
                 "--speed", "1000", "--socket", str(tmp_path / "api.sock")])


def _add(state: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-token-1\n"))
    return main(["--state-dir", str(state), "console", "add-technician", "wang"])


def test_a_read_only_state_directory(mount: Mount, tmp_path: Path, capsys,
                                     monkeypatch) -> None:
    state = _read_only_copy(mount)
    assert _run(state, tmp_path) == 2
    assert _one_line(capsys) == (
        f"mjtable: cannot write the state directory {state}: the file system is "
        "read-only; free space, remount it read-write or pass --state-dir DIR")
    assert _add(state, monkeypatch) == 2
    assert _one_line(capsys) == (f"mjtable console: cannot use {state}/technicians.json: "
                                 "the file system is read-only")
    # Reading needs no writing: the log opens read-only and is checked and exported;
    # verify-log says the log is intact and that the card can take no more (exit 2).
    assert main(["--state-dir", str(state), "console", "verify-log"]) == 2
    line = _one_line(capsys)
    assert ": intact: 5 rows intact" in line and line.endswith(
        f"{state} is read-only: the table cannot log a hand; remount it read-write or "
        "replace the SD card")
    assert main(["--state-dir", str(state), "console", "export-log"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5
    assert main(["--state-dir", str(state), "console", "export-log", "--out",
                 str(state / "out.jsonl")]) == 2
    assert _one_line(capsys).endswith(f"cannot use {state}/out.jsonl: the file system is "
                                      "read-only")


def test_a_read_only_state_directory_without_a_log(mount: Mount, capsys) -> None:
    state = mount("ro")
    for command in ("verify-log", "export-log"):
        assert main(["--state-dir", str(state), "console", command]) == 2
        assert _one_line(capsys) == (f"mjtable console: no event log at "
                                     f"{state}/events.sqlite; pass --state-dir DIR")


def test_a_full_disk(mount: Mount, tmp_path: Path, capsys, monkeypatch) -> None:
    state = mount("size=64k")
    with pytest.raises(OSError), open(state / "filler", "wb") as filler:
        while True:
            filler.write(b"\0" * 4096)
            filler.flush()
    assert _run(state, tmp_path) == 2
    assert _one_line(capsys) == (
        f"mjtable: cannot write the state directory {state}: the disk is full; free "
        "space, remount it read-write or pass --state-dir DIR")
    assert _add(state, monkeypatch) == 2
    assert _one_line(capsys) == (f"mjtable console: cannot use {state}/technicians.json: "
                                 "the disk is full")


def test_a_truncated_event_log(tmp_path: Path, capsys) -> None:
    state = tmp_path / "state"
    log = state / "events.sqlite"
    _log(log, rows=500)
    with open(log, "r+b") as fh:       # a power cut in the middle of a write
        fh.truncate(log.stat().st_size // 2)
    damaged = (f"cannot use {log}: the file is damaged (database disk image is "
               "malformed); move it aside")
    for command in ("verify-log", "export-log"):
        assert main(["--state-dir", str(state), "console", command]) == 2
        assert _one_line(capsys) == f"mjtable console: {damaged}"
    assert _run(state, tmp_path) == 2
    assert _one_line(capsys) == f"mjtable: {damaged}"
    with open(log, "r+b") as fh:       # nothing left of the header
        fh.truncate(50)
    assert main(["--state-dir", str(state), "console", "verify-log"]) == 2
    assert "the file is damaged" in _one_line(capsys)


def test_a_damaged_technicians_file(tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / "technicians.json").write_bytes(b'{"technicians": {"li": ')
    assert main(["--state-dir", str(tmp_path), "console", "technicians"]) == 2
    assert _one_line(capsys).startswith(
        f"mjtable console: cannot use {tmp_path}/technicians.json: the file is damaged")
    assert _add(tmp_path, monkeypatch) == 2
    assert "the file is damaged" in _one_line(capsys)


def test_a_crashed_log_on_a_read_only_card_is_not_called_intact_without_its_wal(
        mount: Mount, tmp_path: Path, capsys) -> None:
    """A daemon killed mid-run leaves its last rows in events.sqlite-wal; a card then
    read-only, without the -shm file, cannot show them. verify-log said "intact: 0
    rows" and export-log wrote nothing, as if the log were empty."""
    state = mount("size=4m")
    log = EventLog(tmp_path / "events.sqlite")
    for i in range(20):
        log.record({"t": float(i), "kind": "key"})
    assert log.flush()
    for suffix in ("", "-wal"):             # what a kill -9 leaves, then a lost -shm
        name = "events.sqlite" + suffix
        (state / name).write_bytes((tmp_path / name).read_bytes())
    log.close()
    assert (state / "events.sqlite-wal").stat().st_size > 0
    subprocess.run(["mount", "-o", "remount,ro", str(state)], check=True)
    for command in ("verify-log", "export-log"):
        assert main(["--state-dir", str(state), "console", command]) == 2
        assert _one_line(capsys) == (
            f"mjtable console: cannot use {state}/events.sqlite: its last writes are in "
            f"{state}/events.sqlite-wal, which cannot be read where nothing can be "
            "written; copy the state directory somewhere writable and run it there")


@pytest.mark.parametrize("key", ["run", "chain_head"])
def test_an_event_log_with_damaged_bookkeeping(tmp_path: Path, capsys, key: str) -> None:
    """The log's meta rows damaged (a bad sector, a hand-edit): the daemon stopped with
    a ValueError traceback; it is the damaged file's one line and exit 2."""
    import sqlite3

    state = tmp_path / "state"
    log = state / "events.sqlite"
    _log(log)
    with sqlite3.connect(log) as conn:
        conn.execute("UPDATE meta SET value = 'garbage' WHERE key = ?", (key,))
    conn.close()
    assert _run(state, tmp_path) == 2
    line = _one_line(capsys)
    assert line.startswith(f"mjtable: cannot use {log}: the file is damaged (")
    assert line.endswith("); move it aside")


def test_e96_names_the_event_log_among_what_could_not_be_written() -> None:
    """E96 at "eventlog" read "the journal or the handoff file could not be written"."""
    from firmware.faults.kinds import CATALOGUE

    assert CATALOGUE["storage.failed"].summary == (
        "could not write the journal, handoff file or event log")
