"""CPU of a simulated hand, this tree against another, pair by pair.

    python -m bench.table.bench_cpu [--old TREE] [--cycles 100] [--seed 3] [--pairs 3]

Each run is `mjtable simulate --cycles N --seed S --json` in a child process, its CPU
(user + system) read from the child's own resource usage (os.wait4), so nothing else
on the machine is counted. With `--old` (another checkout with its own `.venv`, e.g.
a worktree of an older commit), each pair runs the old tree and this one back to
back, alternating which goes first: a shared, noisy machine slows both halves of a
pair alike, so the ratio of a pair is steadier than either time, and the median of
the pairs' ratios is the figure. Without `--old`, the median CPU of this tree's runs.

A table runs from compiled bytecode: each tree first runs once unmeasured, with
PYTHONDONTWRITEBYTECODE cleared, so that neither tree pays for compiling its modules in
the runs that count (a machine that sets it would charge the tree with more modules).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.helpers import children

HERE = Path(__file__).resolve().parents[2]


def simulate_cpu(tree: Path, cycles: int, seed: int) -> tuple[float, dict[str, Any]]:
    """CPU seconds (user + system) of one `simulate` run in `tree`, and its report."""
    command = [str(tree / ".venv" / "bin" / "mjtable"), "simulate", "--cycles", str(cycles),
               "--seed", str(seed), "--json"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with children.spawn(command, cwd=tree, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, env=env) as proc:
        assert proc.stdout is not None
        out = proc.stdout.read()
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, json.loads(out)


def build_speed(report: dict[str, Any], cpu_s: float) -> float:
    """Simulated build time per CPU second: the builds the run simulated (each set's
    start to its last stack), over the CPU the whole run took."""
    return sum(report["build_times_s"]) / cpu_s


def measure(cycles: int = 100, seed: int = 3, pairs: int = 3,
            old: Path | None = None) -> dict[str, Any]:
    new_cpu: list[float] = []
    old_cpu: list[float] = []
    ratios: list[float] = []
    speeds: list[float] = []
    for tree in [HERE] if old is None else [old, HERE]:
        simulate_cpu(tree, 1, seed)     # compiles the tree's bytecode, unmeasured
    for n in range(pairs):
        order = [HERE] if old is None else ([old, HERE] if n % 2 == 0 else [HERE, old])
        got: dict[Path, float] = {}
        for tree in order:
            cpu, report = simulate_cpu(tree, cycles, seed)
            got[tree] = cpu
            if tree == HERE:
                speeds.append(build_speed(report, cpu))
        new_cpu.append(got[HERE])
        if old is not None:
            old_cpu.append(got[old])
            ratios.append(got[HERE] / got[old])
    result: dict[str, Any] = {
        "cycles": cycles, "seed": seed, "pairs": pairs,
        "cpu_s_runs": [round(c, 3) for c in new_cpu],
        "cpu_s_median": round(statistics.median(new_cpu), 3),
        "build_time_per_cpu_s": round(statistics.median(speeds), 1),
    }
    if old is not None:
        result.update({
            "old_tree": str(old),
            "old_cpu_s_runs": [round(c, 3) for c in old_cpu],
            "old_cpu_s_median": round(statistics.median(old_cpu), 3),
            "ratio_runs": [round(r, 3) for r in ratios],
            "ratio_median": round(statistics.median(ratios), 3),
        })
    return result


def main() -> None:
    children.install()      # a killed bench leaves no simulation behind
    parser = argparse.ArgumentParser(prog="python -m bench.table.bench_cpu")
    parser.add_argument("--old", type=Path, help="another checkout, with its own .venv")
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.cycles, args.seed, args.pairs, args.old), indent=1))


if __name__ == "__main__":
    sys.exit(main())
