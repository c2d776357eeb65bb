"""No side channel on secret walls through the tile readers.

The red team's attack: the `signals` stream marked a tile reader changed only when its
code differed from the last, so a count pulse without a reader change said "the same
tile as the last one on that side" while the walls were secret; they found every equal
neighbouring pair in 5 builds. Here the same attacker watches the stream (sampled as
the daemon samples it) for 20 builds and guesses; the guess must be no better than
chance."""

from __future__ import annotations

import dataclasses
from typing import Any

from firmware.api.server import ApiServer
from mjtable_core.config import load_config
from simulator.harness.runner import assemble
from tests.conftest import quick

BUILDS = 20
SAMPLE_S = 0.1      # the daemon's signal sampling period (firmware/api/server.py)


def watch_builds(builds: int) -> tuple[list[tuple[bool, bool]], int]:
    """(the attacker's guess "same as the last tile", the truth) for every tile that
    arrived alone at its head within one sample; and how many more reads the backend
    reported to the firmware than tiles were counted (none missing: 0 or more)."""
    config = quick(load_config(), play_time_s=1.0)
    config = dataclasses.replace(config, table=dataclasses.replace(
        config.table, tile_reader=True))
    bench = assemble(config, seed=7)
    ctl, clock = bench.controller, bench.clock
    server = ApiServer(ctl, None, None, None)     # type: ignore[arg-type]
    reads = [0]
    ctl.input_watchers.append(lambda name, _v: reads.__setitem__(
        0, reads[0] + name.endswith(".tile_id")))
    ctl.start()
    bench.players.start()
    counted = [0] * len(ctl.sides)
    tiles = 0
    guesses: list[tuple[bool, bool]] = []
    while len(ctl.handoff.records) < builds:
        clock.run_until(clock.now() + SAMPLE_S)
        changed = server.sample_signals()
        for n, side in enumerate(ctl.sides):
            new, counted[n] = side.counted - counted[n], side.counted
            tiles += max(0, new)
            if new != 1 or side.counted < 2:
                counted[n] = side.counted
                continue
            count_seen = f"side.{n}.count" in changed
            reader_seen = f"side.{n}.tile_id" in changed
            if count_seen:
                guesses.append((not reader_seen, side.tiles[-1] == side.tiles[-2]))
    return guesses, reads[0] - tiles


def test_the_reader_stream_says_nothing_of_equal_neighbours(capsys: Any) -> None:
    guesses, extra_reads = watch_builds(BUILDS)
    same = [guess for guess, truth in guesses if truth]
    different = [guess for guess, truth in guesses if not truth]
    assert len(same) >= 20 and len(different) >= 200, (len(same), len(different))
    said_same_when_same = sum(same) / len(same)
    said_same_when_different = sum(different) / len(different)
    hits = sum(1 for guess, truth in guesses if guess and truth)
    precision = hits / max(1, sum(guess for guess, _ in guesses))
    base_rate = len(same) / len(guesses)
    with capsys.disabled():
        print(f"\nreader side channel over {BUILDS} builds: {len(guesses)} tiles, "
              f"{len(same)} equal neighbours; guessed 'same' for {said_same_when_same:.0%} "
              f"of equal and {said_same_when_different:.0%} of different ones; "
              f"precision {precision:.3f} vs chance {base_rate:.3f}")
    # The stream behaves the same whether the tile equals the last one or not.
    assert abs(said_same_when_same - said_same_when_different) < 0.1
    assert precision < base_rate + 0.05
    # And the backend reports every read to the firmware, a repeated code too.
    assert extra_reads >= 0
