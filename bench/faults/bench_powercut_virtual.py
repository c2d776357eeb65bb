"""Power cuts on the virtual clock: a thousand cuts in minutes, each one judged.

The real-time bench (bench/faults/bench_powercut.py) kills a real daemon with SIGKILL; at
~20 s a cut it is never run at size. Here the unchanged firmware runs against the
simulated table on the virtual clock (simulator/harness/runner.py: a cut silences the
controller's timers with no clean stop and boots a new controller on the same
journal after the cut's duration), so hundreds of cuts run a minute. `--rig ioboard`
puts the serial link and the I/O-board emulator in between (simulator/rigs/lockstep.py).

Instants, in turn:

- `phase`: as one phase of the cycle begins (build, lid down, lid up, raise, dice,
  play, taken in turn);
- `anywhere`: at a random moment of the cycle (0–60 s after its build started);
- `fault`: a stop-fault of the soak's catalogue (simulator/fuzz/soak.py) is raised, and
  the power fails while it is active and its technician is on the way;
- `technician`: the same, but the power fails in the seconds after the technician's
  repair, while the table clears the fault and goes home again.

Judged at every cut (the controller that boots after it): `power.recovered` raised;
the learned timings and fault history the journal held at the cut restored as they
were; every fault active at the cut still active (a technician clears it, never the
power; a count too short or too long is answered by the refeed the table then holds
for). Judged over each run (the harness): no crash, no stall, no referee
violation, motors stopped after every stop-fault, every handoff's walls the walls on
the table (one whole set), every tile accounted for, every hand completed, no fault
beyond the expected and the allowed.

    python -m bench.faults.bench_powercut_virtual --cuts 1000 [--per-run 10] [--seed 1]
        [--rig sim|ioboard] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from collections import Counter
from typing import Any

from bench.helpers.report import print_report
from firmware.faults.kinds import CATALOGUE, ERROR, INFO, REFEED
from mjtable_core.config import Config, load_config
from mjtable_core.geometry import REFERENCE
from simulator.fuzz.soak import ALLOW, TEMPLATES, Template
from simulator.harness.runner import Harness
from simulator.scenario import (
    AFTER_FAULT,
    PHASES,
    ActionSpec,
    Expect,
    FaultSpec,
    Scenario,
)

KINDS = ("phase", "anywhere", "fault", "technician")
PLAY_TIME_S = 30.0
CUT_S = 5.0                  # how long the power stays off
TECHNICIAN_DELAY_S = ActionSpec("", "").delay_s
# Stop-faults a technician mends: the ones a cut can land on while they are active.
STOP_TEMPLATES = tuple(t for t in TEMPLATES if t.kind != "power_cut" and t.actions
                       and any(CATALOGUE[f].severity == ERROR for f in t.expect))


@dataclasses.dataclass
class Cut:
    """One instant: what it was and what its judging found."""

    kind: str
    cycle: int
    detail: str
    booted: bool = False
    problems: list[str] = dataclasses.field(default_factory=list)


class JudgedHarness(Harness):
    """The scenario harness, judging each power cut as the controller boots again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cuts: list[Cut] = []
        self._before: dict[str, Any] | None = None
        self._at_cut: Cut | None = None

    def plan(self, cuts: list[Cut]) -> None:
        self.cuts = cuts

    def power_cut(self, spec: FaultSpec) -> None:
        if self.table.powered:
            ctl = self.ctl
            saved = self.journal.load()
            self._before = {
                "runs": saved.get("timings", {}).get("runs", {}),
                "history": [f["id"] for f in saved.get("faults", [])],
                "active": sorted(f.id for f in ctl.faults if f.active
                                 and f.kind.severity != INFO),
            }
            # The cut of this cycle in the plan (one per cycle).
            self._at_cut = next((c for c in self.cuts if c.cycle == spec.cycle
                                 and not c.booted), None)
        super().power_cut(spec)

    def boot(self) -> None:
        super().boot()
        cut, before = self._at_cut, self._before
        if cut is None or before is None:
            return
        self._at_cut = self._before = None
        cut.booted = True
        ctl = self.ctl
        ids = [f.id for f in ctl.faults]
        if "power.recovered" not in ids:
            cut.problems.append("no power.recovered after the cut")
        runs = {m: list(r) for m, r in ctl.supervisor.export()["runs"].items()}
        if runs != before["runs"]:
            lost = sorted(set(before["runs"]) ^ set(runs)) or sorted(
                m for m in runs if runs[m] != before["runs"].get(m))
            cut.problems.append(f"learned timings changed by the cut: {lost}")
        if ids[:len(before["history"])] != before["history"]:
            cut.problems.append("fault history not restored as the journal held it")
        active = sorted(f.id for f in ctl.faults if f.active and f.kind.severity != INFO)
        if ctl.refeed_hold is not None:
            # A set refed goes in again counted from zero: that answers a short or
            # long count, so the hold for the refeed takes the place of those faults.
            active += [i for i in before["active"] if CATALOGUE[i].answer == REFEED]
        missing = sorted((Counter(before["active"]) - Counter(active)).elements())
        if missing:
            cut.problems.append(f"active at the cut, gone after it: {missing}")


def plan_run(run: int, cuts: int, seed: int) -> tuple[Scenario, list[Cut]]:
    """A scenario with `cuts` cuts, one every second cycle, kinds taken in turn."""
    rng = random.Random(f"powercut-{seed}-{run}")
    faults: list[FaultSpec] = []
    actions: list[ActionSpec] = []
    expect = {"power.recovered"}
    allow = set(ALLOW)
    planned: list[Cut] = []
    for i in range(cuts):
        cycle = 2 + 2 * i
        kind = KINDS[(run * cuts + i) % len(KINDS)]
        power = {"kind": "power_cut", "where": "power", "cycle": cycle, "duration_s": CUT_S}
        if kind == "phase":
            phase = PHASES[(run * cuts + i) // len(KINDS) % len(PHASES)]
            faults.append(FaultSpec(**power, phase=phase))
            detail = phase
        elif kind == "anywhere":
            at = round(rng.uniform(0.0, 60.0), 2)
            faults.append(FaultSpec(**power, at_s=at))
            detail = f"{at} s into the cycle"
        else:
            template: Template = rng.choice(STOP_TEMPLATES)
            fill = {"s": rng.randrange(REFERENCE.side_count), "set": rng.choice(REFERENCE.sets)}
            faults.append(FaultSpec(kind=template.kind, where=template.where.format(**fill),
                                    cycle=cycle, phase=template.phase, **dict(template.fields)))
            for after, do, where in template.actions:
                action = ActionSpec(after, do, where.format(**fill) if where else None)
                # A technician's repair survives the cut; the players' top-up does not
                # when the cut comes before the tiles go in: after the refeed the set is
                # short again and they top up again. Without this second one that raise
                # takes the top-up planned for a later cut's fault, and the run ends held.
                actions += [action, action] if do == "top_up" else [action]
            expect.update(template.expect)
            allow.update(template.allow)
            at = (rng.uniform(0.5, TECHNICIAN_DELAY_S - 0.5) if kind == "fault"
                  else TECHNICIAN_DELAY_S + rng.uniform(0.05, 3.0))
            faults.append(FaultSpec(**power, phase=AFTER_FAULT, at_s=round(at, 2)))
            detail = f"{template.kind} {template.where.format(**fill)}, cut {at:.2f} s after"
        # The operator refeeds when the table holds for it after the cut.
        actions.append(ActionSpec("power.recovered", "refeed"))
        planned.append(Cut(kind, cycle, detail))
    scenario = Scenario(seed=seed * 1000 + run, cycles=2 * cuts + 1, faults=tuple(faults),
                        actions=tuple(actions),
                        expect=Expect(tuple(sorted(expect)), tuple(sorted(allow))),
                        source=f"<power cuts run {run} seed {seed}>")
    return scenario, planned


def judged_run(config: Config, run: int, cuts: int, seed: int, rig: str = "sim"
               ) -> tuple[Scenario, list[Cut], dict[str, Any]]:
    """Run number `run` of the bench, with its `cuts`, judged: (scenario, cuts, report)."""
    scenario, planned = plan_run(run, cuts, seed)
    harness = JudgedHarness(config, scenario, rig=rig)
    harness.plan(planned)
    return scenario, planned, harness.run()


def bench_config(config: Config | None = None) -> Config:
    """The table the bench runs: `config` (the reference one) with short hands."""
    config = config or load_config(None)
    return config.with_play_time(PLAY_TIME_S)


def run_cuts(total: int, per_run: int = 10, seed: int = 1, rig: str = "sim",
             config: Config | None = None, progress: Any = None) -> dict[str, Any]:
    """`total` cuts in runs of `per_run`; the report's `ok` is True when all held."""
    config = bench_config(config)
    started = time.perf_counter()
    cuts: list[Cut] = []
    failures: list[dict[str, Any]] = []
    runs = 0
    handoffs = 0
    sim_s = 0.0
    for run in range((total + per_run - 1) // per_run):
        n = min(per_run, total - run * per_run)
        scenario, planned, report = judged_run(config, run, n, seed, rig)
        runs += 1
        handoffs += len(report["handoffs"])
        sim_s += report["sim_time_s"]
        for cut in planned:
            if not cut.booted:
                cut.problems.append("the cut never happened or the table never booted after it")
        cuts.extend(planned)
        bad = [c for c in planned if c.problems]
        if report["problems"] or bad:
            failures.append({"run": run, "scenario": scenario.source,
                             "problems": report["problems"][:10],
                             "cuts": [dataclasses.asdict(c) for c in bad][:10]})
        if progress is not None:
            progress(len(cuts), total)
    wall = time.perf_counter() - started
    per_kind: dict[str, dict[str, int]] = {}
    for cut in cuts:
        entry = per_kind.setdefault(cut.kind, {"cuts": 0, "judged_ok": 0})
        entry["cuts"] += 1
        entry["judged_ok"] += not cut.problems
    return {
        "cuts": len(cuts),
        "cuts_ok": sum(not c.problems for c in cuts),
        "per_kind": per_kind,
        "per_phase": dict(Counter(c.detail for c in cuts if c.kind == "phase")),
        "runs": runs,
        "runs_ok": runs - len(failures),
        "handoffs_checked": handoffs,
        "sim_time_s": round(sim_s, 1),
        "wall_time_s": round(wall, 1),
        "wall_s_per_cut": round(wall / max(1, len(cuts)), 3),
        "rig": rig,
        "seed": seed,
        "failures": failures,
        "ok": not failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.faults.bench_powercut_virtual",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--cuts", type=int, default=1000)
    parser.add_argument("--per-run", type=int, default=10, help="cuts in one harness run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rig", choices=("sim", "ioboard"), default="sim")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    def progress(done: int, total: int) -> None:
        print(f"  {done}/{total} cuts", file=sys.stderr, flush=True)

    report = run_cuts(args.cuts, args.per_run, args.seed, args.rig, progress=progress)
    return print_report(report, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
