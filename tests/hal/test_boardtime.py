"""Board stamps onto the host's clock: late arrivals keep their true time."""

from __future__ import annotations

import pytest

from hal.boardtime import WRAP_MS, BoardTime


def test_a_retransmitted_input_keeps_the_time_the_board_saw_it():
    clock = BoardTime()
    offset = 100.0           # the host's clock reads 100 s more than the board's
    # (board ms, link delay): the second needed a retransmission 30 ms later
    arrivals = [(1000, 0.002), (1060, 0.032), (1120, 0.002), (1180, 0.003)]
    times = [clock.at(ms, ms / 1000 + offset + delay) for ms, delay in arrivals]
    assert times[1] - times[0] == pytest.approx(0.060, abs=1e-4)
    assert times[2] - times[1] == pytest.approx(0.060, abs=1e-4)
    assert all(t <= ms / 1000 + offset + d for t, (ms, d) in zip(times, arrivals, strict=True))


def test_the_stamp_wraps_and_a_handshake_starts_afresh():
    clock = BoardTime()
    first = clock.at(WRAP_MS - 10, 5.0)
    assert clock.at(20, 5.03) == pytest.approx(first + 0.030, abs=1e-4)
    clock.reset()            # the board restarted: its ms counter is small again
    assert clock.at(7, 9.0) == pytest.approx(9.0)


def test_the_estimate_follows_a_board_clock_that_runs_slow():
    clock = BoardTime()
    clock.at(0, 0.001)
    # One hour on, the board's crystal has lost 0.18 s (50 ppm); the delay is 1 ms.
    late = clock.at(3_600_000 - 180, 3600.001)
    assert late == pytest.approx(3600.0, abs=0.002)
