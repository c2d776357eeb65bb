"""`mjtable replay FAULT`: a fault's flight recording run again on the simulated table.

FAULT is a fault's row number in the event log (the first column of `mjtable console
log`), the row number of its recording, or a file: the JSON of one recording, or JSON
lines exported with `mjtable console export-log`. It lives with the simulator: the
firmware never imports it.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import Any

from firmware import statedir
from firmware.diagnosis.recorder import RECORDING
from firmware.i18n import _
from firmware.state.eventlog import LogReader
from firmware.state.storage import STORAGE_ERRORS, Unreadable, problem
from mjtable_core.config import Config, load_config, reference_config
from mjtable_core.schema import ConfigError
from simulator.fuzz.replay import RecordingError, checked, load_recording, replay

EXIT_REPRODUCED, EXIT_NOT_REPRODUCED, EXIT_BAD_INPUT = 0, 1, 2
SAME_FAULT_S = 0.001        # the fault's row time is rounded to the millisecond


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mjtable replay",
        description=_("Run a fault's flight recording (the sensor edges and commands "
                      "before it) again against the simulator and the unchanged "
                      "firmware, and show whether the fault happens again."),
        epilog=_("Exit status: 0 the fault was reproduced, 1 it was not, 2 bad input."))
    parser.add_argument("fault", metavar="FAULT",
                        help=_("the fault's row number in the event log (mjtable console "
                               "log --kind fault), or a file exported from it"))
    parser.add_argument("--state-dir", metavar="DIR",
                        help=_("where the event log is (default: $STATE_DIRECTORY, else "
                               "~/.local/state/mjtable)"))
    parser.add_argument("--config", metavar="FILE",
                        help=_("table config (default: the reference config of the "
                               "recorded table's size)"))
    parser.add_argument("--quiet", action="store_true",
                        help=_("print only the verdict"))
    return parser


def main(argv: list[str], state_dir: str | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        recording = _recording(args.fault, args.state_dir or state_dir)
        config = _config(args.config, recording)
    except (RecordingError, ConfigError) as exc:
        print(f"mjtable replay: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    result = replay(recording, config, say=None if args.quiet else print)
    if args.quiet and result.lines:
        print(result.lines[-1])
    return EXIT_REPRODUCED if result.reproduced else EXIT_NOT_REPRODUCED


def _config(path: str | None, recording: dict[str, Any]) -> Config:
    tiles = recording.get("tiles")
    if path is None:
        return load_config(reference_config("table-136.toml" if tiles == 136 else "table.toml"))
    config = load_config(path)
    if tiles is not None and tiles != config.table.tiles:
        raise RecordingError(_("the recording is of a {tiles}-tile table; {path} is of "
                               "{ours} tiles").format(tiles=tiles, path=path,
                                                      ours=config.table.tiles))
    return config


def _recording(fault: str, state_dir: str | None) -> dict[str, Any]:
    if not fault.isdigit():
        return load_recording(Path(fault))
    path = statedir.state_dir(state_dir) / statedir.EVENT_LOG_NAME
    try:
        return _from_log(LogReader(path), int(fault))
    except FileNotFoundError:
        raise RecordingError(_("no event log at {path}; pass --state-dir DIR").format(
            path=path)) from None
    except (*STORAGE_ERRORS, Unreadable, sqlite3.Error) as exc:
        raise RecordingError(problem(path, exc) if isinstance(exc, OSError)
                             else f"{path}: {exc}") from None


def _from_log(reader: LogReader, seq: int) -> dict[str, Any]:
    """The recording at row `seq`, or the one logged with the fault at row `seq`."""
    fault = next((row for row in reader.each("fault")
                  if row["seq"] == seq and row["kind"] == "fault"), None)
    for row in reader.each(RECORDING):
        if row["seq"] == seq:
            return checked(row, f"#{seq}")
        if fault is not None and row["seq"] > seq and row["run"] == fault["run"] and (
                row.get("fault", {}).get("id"), row.get("fault", {}).get("where")) == (
                fault.get("id"), fault.get("where")) and abs(
                float(row.get("fault_t", -1)) - float(fault["t"])) <= SAME_FAULT_S:
            return checked(row, f"#{row['seq']}")
    if fault is None:
        raise RecordingError(_("row {seq} of the event log is neither a fault nor a flight "
                               "recording").format(seq=seq))
    raise RecordingError(_("the fault at row {seq} ({id}) has no flight recording in the "
                           "log (a note, or raised at start-up)").format(seq=seq,
                                                                         id=fault.get("id")))
