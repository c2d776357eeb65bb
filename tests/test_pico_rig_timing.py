"""The pico rig times a stop an edge ended from its own run (simulator/rigs/pico_run.py
`_stopped`): the first run of its output to end after its ARM, once per report."""

from __future__ import annotations

from collections import deque
from types import SimpleNamespace
from typing import Any

from hal.protocol import Reason
from simulator.rigs.pico_run import PicoBoard

LID, LID_LOWER = 0, 9
MS = 1_000_000


def rig(runs: list[tuple[int, int]], edges: list[int], armed: dict[int, int]) -> Any:
    return SimpleNamespace(
        _apply_events=lambda: None, _runs={LID: deque(runs, maxlen=8)},
        _edges={LID_LOWER: deque(edges, maxlen=16)}, _confirm={},
        _armed_at={stop: (at, 0) for stop, at in armed.items()},
        _timed=deque(maxlen=32), latencies_us=[])


def stopped(stop_id: int, board_ms: int = 0) -> bytes:
    return bytes((stop_id, Reason.EDGE)) + board_ms.to_bytes(4, "big") + bytes(
        (LID, LID_LOWER, 1, 1))


def test_a_stop_ended_at_its_arming_is_not_timed_on_an_older_run() -> None:
    # An older run the host's SAFE ended 300 ms after an edge of the lid's stop; the
    # next stop is armed with the lid already there: on and off in the same turn.
    table = rig(runs=[(0, 400 * MS), (1000 * MS, 1000 * MS + 200_000)],
                edges=[100 * MS], armed={1: 900 * MS})
    PicoBoard._stopped(table, stopped(1))  # type: ignore[arg-type]
    assert table.latencies_us == []


def test_a_report_the_board_sends_again_is_timed_once() -> None:
    table = rig(runs=[(0, 400 * MS), (500 * MS, 700 * MS + 300_000)],
                edges=[100 * MS, 700 * MS], armed={1: 0, 2: 450 * MS})
    PicoBoard._stopped(table, stopped(2, 700))  # type: ignore[arg-type]
    PicoBoard._stopped(table, stopped(2, 700))  # type: ignore[arg-type]
    assert table.latencies_us == [300.0]


def test_a_stop_whose_next_run_ended_first_is_timed_on_its_own() -> None:
    table = rig(runs=[(0, 100 * MS + 250_000), (150 * MS, 300 * MS + 400_000)],
                edges=[100 * MS, 300 * MS], armed={1: 0, 2: 120 * MS})
    PicoBoard._stopped(table, stopped(1, 100))  # type: ignore[arg-type]
    PicoBoard._stopped(table, stopped(2, 300))  # type: ignore[arg-type]
    assert table.latencies_us == [250.0, 400.0]
