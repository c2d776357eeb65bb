"""Consumers of the dealt-walls handoff: the rules engine named in config, and a file.

`attach_consumers(ctl)` adds them to `ctl.handoff.consumers` where a controller is
assembled (daemon, simulator). The third consumer, the API's subscribe stream, needs
nothing here: the controller's "handoff" event carries the full record.

Every consumer is called inside the controller's loop; `Handoff.hand_off` catches
whatever one raises and reports it as a `handoff.consumer_failed` event, so a broken
engine or a full disk never stops the table.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from firmware.i18n import _
from mjtable_core import plugins
from mjtable_core.schema import ConfigError

if TYPE_CHECKING:
    from firmware.hands.table import Consuming

ENGINE_GROUP = plugins.RULES_ENGINES
Record = dict[str, Any]
Emit = Callable[..., None]


class RulesEngine(Protocol):
    """What an entry point's factory returns (see rules/engine.py)."""

    def on_deal(self, record: Record) -> list[str] | None: ...


def installed_engines() -> dict[str, EntryPoint]:
    """Engines that installed packages declare, by name (this one declares `builtin`)."""
    return plugins.installed(ENGINE_GROUP)


def check_engine_name(name: str, file: str) -> None:
    """A config error unless an installed package provides engine `name`."""
    plugins.require(ENGINE_GROUP, name, file, "rules", "engine")


def load_engine(name: str, file: str = "<config>") -> RulesEngine:
    """Load and build engine `name`; a config error names what went wrong."""
    check_engine_name(name, file)
    entry = installed_engines()[name]
    try:
        engine = entry.load()()
    except Exception as exc:  # a third party's import or constructor failing
        raise ConfigError(file, "rules", "engine",
                          _("rules engine {name!r} ({value}) failed to load: {error}").format(
                              name=name, value=entry.value,
                              error=f"{type(exc).__name__}: {exc}")) from None
    if not callable(getattr(engine, "on_deal", None)):
        raise ConfigError(file, "rules", "engine",
                          _("rules engine {name!r} ({value}) has no on_deal(record)").format(
                              name=name, value=entry.value))
    return engine


class EngineConsumer:
    """Hands each record to an in-process engine and reports what it finds."""

    def __init__(self, name: str, engine: RulesEngine, emit: Emit) -> None:
        self.name = f"engine:{name}"
        self.engine_name = name
        self.engine = engine
        self.emit = emit

    def __call__(self, record: Record) -> None:
        problems = self.engine.on_deal(record) or []
        for problem in problems:
            self.emit("handoff.engine_problem", engine=self.engine_name,
                      cycle=record.get("table", {}).get("cycle"), problem=str(problem))


class HandoffFile:
    """Appends one JSON line per record; each line is on disk before the call returns.

    A power cut can cut at most the line being written. The file's tail is checked
    before every append, so a new record never joins a broken line: a partial line
    (ours, cut short, or one someone else appended since) is moved to the quarantine
    file beside it (`<file>.quarantine`, kept as evidence) and cut off, and a
    `handoff.file.repaired` event says so; `foreign` when we had left the file whole.
    """

    # A record not on disk cannot be verified later: a failed write is a fault.
    required = True

    def __init__(self, path: Path, emit: Emit | None = None) -> None:
        self.name = f"file:{path}"
        self.path = path
        self.emit = emit
        # Whether our own last write may have been cut short (a restart, a failure).
        self._check_tail = True

    def last_commitment(self) -> str | None:
        """The commitment of the file's last whole record: the next one chains to it."""
        try:
            with open(self.path, "rb") as fh:
                size = fh.seek(0, os.SEEK_END)
                fh.seek(max(0, size - 256 * 1024))
                lines = fh.read().splitlines()
        except FileNotFoundError:
            return None
        for line in reversed(lines):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict) and isinstance(record.get("commitment"), str):
                return record["commitment"]
        return None

    def __call__(self, record: Record) -> None:
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        created = not self.path.exists()
        if created:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # 0600: the file holds the walls and hands of the hand in play.
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if created or self._check_tail:
                # Also a file an older firmware left 0644: this line has the walls.
                os.fchmod(fd, 0o600)
            repaired = drop_partial_line(fd, quarantine_path(self.path))
            if repaired is not None and self.emit is not None:
                self.emit("handoff.file.repaired", file=str(self.path),
                          foreign=not self._check_tail, **repaired)
            # Until this line is on disk, a failure may leave part of it: check next time.
            self._check_tail = True
            while line:
                line = line[os.write(fd, line):]
            os.fsync(fd)
            self._check_tail = False
        finally:
            os.close(fd)
        if created:
            _fsync_dir(self.path.parent)


def quarantine_path(path: Path) -> Path:
    """Where the partial lines cut off the handoff file are kept."""
    return path.with_name(path.name + ".quarantine")


def drop_partial_line(fd: int, quarantine: Path | None = None) -> dict[str, Any] | None:
    """Cut an unterminated last line off the file (a write cut short, or appended by
    someone else), keeping it in `quarantine`; None when the file ends whole, else
    what was done."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return None
    start = size
    while start > 0:
        chunk_start = max(0, start - 4096)
        found = os.pread(fd, start - chunk_start, chunk_start).rfind(b"\n")
        if found >= 0:
            start = chunk_start + found + 1
            break
        start = chunk_start
    tail = os.pread(fd, size - start, start)
    try:
        json.loads(tail)
    except (ValueError, RecursionError):    # not JSON, or nested past the parser
        if quarantine is not None:
            _keep(quarantine, start, tail)
        os.ftruncate(fd, start)
        os.fsync(fd)
        return {"offset": start, "bytes": len(tail),
                "quarantine": str(quarantine) if quarantine is not None else None}
    os.write(fd, b"\n")   # a whole record that only lost its newline
    os.fsync(fd)
    return {"offset": start, "bytes": len(tail), "newline_added": True}


def _keep(quarantine: Path, offset: int, tail: bytes) -> None:
    """Append a cut-off line to the quarantine file (0600, like the handoff file)."""
    entry = json.dumps({"offset": offset,
                        "text": tail.decode("utf-8", "backslashreplace")}) + "\n"
    fd = os.open(quarantine, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, entry.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    # The new file's directory entry must survive a power cut too.
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def handoff_path(value: str, state_dir: Path | None) -> Path | None:
    """Where `[rules] handoff_file` points: None when empty; relative paths resolve
    against the state directory when one is known, else the current directory."""
    if not value:
        return None
    path = Path(value).expanduser()
    if path.is_absolute():
        return path
    return (state_dir if state_dir is not None else Path.cwd()) / path


def attach_consumers(ctl: Consuming, state_dir: Path | None = None) -> list[Any]:
    """Add the config's consumers to the controller's handoff: the file first (it is
    what survives a crash), then the engine. Raises ConfigError for a bad engine."""
    section, file = ctl.config.rules, ctl.config.source
    consumers: list[Any] = []
    path = handoff_path(section.handoff_file, state_dir)
    if path is not None:
        handoff_file = HandoffFile(path, ctl.emit)
        consumers.append(handoff_file)
        # Each scored hand's line goes beside the deal records (firmware/hands/scoring.py).
        ctl.scoring.file = HandoffFile(path.with_name(path.stem + ".scores.jsonl"))
        if ctl.handoff.previous_commitment is None:
            # After a restart the deal chain goes on from the file's last record.
            ctl.handoff.previous_commitment = handoff_file.last_commitment()
    if section.engine:
        consumers.append(EngineConsumer(section.engine, load_engine(section.engine, file),
                                        ctl.emit))
    ctl.handoff.consumers.extend(consumers)
    return consumers
