"""The unchanged firmware against the simulated table, many cycles, both tables."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

import rules
from mjtable_core.config import load_config
from simulator.harness.run import simulate
from simulator.harness.runner import assemble
from tests.conftest import CONFIGS, quick

CYCLES = 20


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def run(request):
    config = quick(load_config(CONFIGS[request.param]))
    bench = assemble(config, seed=11)
    records: list[dict] = []
    checks: list[dict] = []
    table, ctl = bench.table, bench.controller

    def on_event(event: dict) -> None:
        if event["kind"] == "handoff":
            physical = [[[top.code, bottom.code] for top, bottom in wall]
                        for wall in table.raised_walls()]
            sets = {t.set_name for wall in table.raised_walls() for s in wall for t in s}
            checks.append({"physical": physical, "sets": sets})
        if event["kind"] == "build.staged":
            checks.append({"staged_motors_off": table.motors_off()
                           or ctl.cycle.state != "play"})
            checks.append({"side_counts": [s.stacked for s in ctl.sides]})

    ctl.subscribers.append(on_event)
    ctl.handoff.consumers.append(records.append)
    ctl.start()
    bench.players.start()
    bench.clock.run_until(CYCLES * 200.0, until=lambda: len(records) >= CYCLES
                          and ctl.build.state == "staged")
    return config, bench, records, checks


def test_every_cycle_hands_off_a_whole_set(run) -> None:
    config, bench, records, _ = run
    assert len(records) == CYCLES
    assert not bench.controller.faults
    for record in records:
        tiles = [t for wall in record["walls"] for stack in wall for t in stack]
        assert len(tiles) == config.table.tiles
        assert all(len(wall) == config.table.stacks_per_wall for wall in record["walls"])


def test_every_tile_is_accounted_for(run) -> None:
    _, bench, _, _ = run
    assert bench.table.tiles_accounted()


def test_each_side_gets_exactly_its_target(run) -> None:
    config, _, _, checks = run
    counts = [c["side_counts"] for c in checks if "side_counts" in c]
    assert len(counts) >= CYCLES
    assert all(c == [config.tiles_per_side] * 4 for c in counts)


def test_sets_alternate_and_match_the_physical_set(run) -> None:
    _, _, records, checks = run
    assert [r["table"]["set"] for r in records] == ["A", "B"] * (CYCLES // 2)
    physical_sets = [c["sets"] for c in checks if "sets" in c]
    assert physical_sets == [{r["table"]["set"]} for r in records]


def test_walls_handed_off_are_the_walls_on_the_table(run) -> None:
    config, _, records, checks = run
    physical = [c["physical"] for c in checks if "physical" in c]
    for record, walls in zip(records, physical, strict=True):
        if config.table.tile_reader:
            assert record["walls"] == walls
            assert Counter(t for w in walls for s in w for t in s) == Counter(
                t for w in record["walls"] for s in w for t in s)
        else:
            assert all(t is None for w in record["walls"] for s in w for t in s)


def test_hands_match_a_redeal_of_the_walls(run) -> None:
    _config, _, records, _ = run
    for record in records[:5]:
        throws = [d["faces"] for d in record["dice"]]
        again = rules.deal(record["walls"], throws, record["variant"],
                           record["table"]["dealer_position"], nonce="check")
        assert again["hands"] == record["hands"]
        assert again["break"] == record["break"]


def test_motors_are_off_when_idle(run) -> None:
    _, bench, _, checks = run
    assert all(c["staged_motors_off"] for c in checks if "staged_motors_off" in c)
    bench.controller.stop()
    assert bench.table.motors_off()


def test_commitment_is_revealed_in_the_next_record(run) -> None:
    _, _, records, _ = run
    for before, after in itertools.pairwise(records):
        revealed = after["revealed"]
        assert revealed["cycle"] == before["table"]["cycle"]
        assert rules.commitment(before["walls"], revealed["nonce"],
                                before.get("previous_commitment"),
                                before.get("next_dice_commitment")) == before["commitment"]


def test_same_seed_same_run_other_seed_other_walls() -> None:
    config = quick(load_config(CONFIGS["144"]))
    first = simulate(config, 3, seed=5)
    again = simulate(config, 3, seed=5)
    other = simulate(config, 3, seed=6)
    assert first["handoffs"] == again["handoffs"]
    assert first["build_times_s"] == again["build_times_s"]
    assert first["handoffs"][0]["commitment"] != other["handoffs"][0]["commitment"]
    assert first["build_times_s"] != other["build_times_s"]


def test_build_inside_the_market_band_and_at_the_mechanical_bound() -> None:
    report = simulate(quick(load_config(CONFIGS["144"])), 10, seed=2)
    builds = report["build_times_s"]
    assert all(18.0 <= b <= 40.0 for b in builds)
    assert all(bound <= b + 0.001 for bound, b in
               zip(report["build_bound_s"], builds, strict=True))
