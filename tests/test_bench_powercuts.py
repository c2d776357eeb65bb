"""The virtual-clock power-cut bench: its cuts happen, and its judging can fail."""

from __future__ import annotations

from bench.bench_powercut_virtual import KINDS, run_cuts


def test_each_kind_of_cut_happens_and_is_judged() -> None:
    report = run_cuts(len(KINDS), per_run=len(KINDS), seed=1)
    assert report["cuts"] == len(KINDS)
    assert set(report["per_kind"]) == set(KINDS)
    assert report["failures"] == []
    assert report["cuts_ok"] == len(KINDS)
    assert report["handoffs_checked"] >= 2 * len(KINDS)


def test_a_restore_that_loses_learned_timings_is_caught(monkeypatch) -> None:
    from firmware.supervisor import Supervisor

    restore = Supervisor.restore

    def forgetful(self, saved):
        restore(self, {**saved, "runs": {}})

    monkeypatch.setattr(Supervisor, "restore", forgetful)
    report = run_cuts(2, per_run=2, seed=1)
    problems = [p for f in report["failures"] for c in f["cuts"] for p in c["problems"]]
    assert any("learned timings changed by the cut" in p for p in problems)
