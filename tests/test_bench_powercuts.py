"""The virtual-clock power-cut bench: its cuts happen, and its judging can fail."""

from __future__ import annotations

from bench.faults.bench_powercut_virtual import KINDS, bench_config, judged_run, run_cuts


def test_each_kind_of_cut_happens_and_is_judged() -> None:
    report = run_cuts(len(KINDS), per_run=len(KINDS), seed=1)
    assert report["cuts"] == len(KINDS)
    assert set(report["per_kind"]) == set(KINDS)
    assert report["failures"] == []
    assert report["cuts_ok"] == len(KINDS)
    assert report["handoffs_checked"] >= 2 * len(KINDS)


def test_a_restore_that_loses_learned_timings_is_caught(monkeypatch) -> None:
    from firmware.machines.supervisor import Supervisor

    restore = Supervisor.restore

    def forgetful(self, saved):
        restore(self, {**saved, "runs": {}})

    monkeypatch.setattr(Supervisor, "restore", forgetful)
    report = run_cuts(2, per_run=2, seed=1)
    problems = [p for f in report["failures"] for c in f["cuts"] for p in c["problems"]]
    assert any("learned timings changed by the cut" in p for p in problems)


def test_a_top_up_cut_off_by_the_power_is_done_again() -> None:
    # Run 39 of seed 1 (1,000 cuts): the players' top-up of cycle 4 is cut 0.1 s in, so
    # after the refeed the set is short again and build.tiles_missing is raised again.
    # That raise took the top-up planned for cycle 10, where the table then held for
    # good with 10 of 21 hands dealt. The players top up again instead.
    _scenario, planned, report = judged_run(bench_config(), 39, 10, 1)
    assert [f["id"] for f in report["faults"]].count("build.tiles_missing") >= 3
    assert report["problems"] == [] and report["cycles_completed"] == 21
    assert all(c.booted and not c.problems for c in planned)


def test_a_second_top_up_after_a_cut_does_not_raise_walls_onto_walls() -> None:
    # Run 45 of seed 1 (1,000 cuts): the players' top-up of cycle 12 is cut 1.4 s in,
    # build.tiles_missing comes again after the refeed and they top up again. Before
    # main's head-turn timing change (a turn chained from a home edge begins at the
    # board's stamp) the walls then rose onto the last hand's walls (wall.onto_wall,
    # E51, a stall); with it the run holds. Whether that change fixed the cause or only
    # moved the run off that path was not analysed: this keeps the path judged.
    _scenario, _planned, report = judged_run(bench_config(), 45, 10, 1)
    assert report["problems"] == [] and report["cycles_completed"] == 21
