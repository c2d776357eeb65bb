"""The table's small journal: what must survive a power cut at any instant.

Cycle counter, learned timings, which set is where, fault history and whether the
last stop was clean. Written whole to a temporary file, fsynced, renamed over the
old one and the directory fsynced: after a cut the file is the old or the new
version, never a torn one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Protocol

from firmware.state.fragments import Fragments

FILE_NAME = "journal.json"
FORMAT = "mjtable.journal/1"


class Journal(Protocol):
    def load(self) -> dict[str, Any]: ...

    def save(self, state: dict[str, Any]) -> None: ...


class MemoryJournal:
    """A journal that lives as long as the process: for simulations and tests."""

    def __init__(self) -> None:
        self._state = "{}"      # kept as text, as a file would: nothing shares its lists
        self.saves = 0
        self._text = Fragments()    # json.dumps's text, re-encoding only what changed

    def load(self) -> dict[str, Any]:
        return json.loads(self._state)

    def save(self, state: dict[str, Any]) -> None:
        self._state = self._text.encode(state)
        self.saves += 1


class FileJournal:
    def __init__(self, directory: Path) -> None:
        self.path = directory / FILE_NAME
        directory.mkdir(parents=True, exist_ok=True)
        self._text = Fragments(sort_keys=True)  # json.dumps's text, re-encoding what changed

    def load(self) -> dict[str, Any]:
        try:
            state = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            # Unreadable means untrustworthy: start as after an unclean stop.
            return {"clean": False, "unreadable": True}
        if not isinstance(state, dict):     # damaged, yet still parses as JSON
            return {"clean": False, "unreadable": True}
        return state if state.get("format") == FORMAT else {"clean": False}

    def encode(self, state: dict[str, Any]) -> bytes:
        """The file's bytes: `json.dumps(..., sort_keys=True)`'s, format included."""
        return self._text.encode({**state, "format": FORMAT}).encode()

    def save(self, state: dict[str, Any]) -> None:
        data = self.encode(state)
        tmp = self.path.with_suffix(".tmp")
        # 0600: it holds the staged walls of the next hand and the deal's nonce.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        dir_fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
