"""`mjtable bench --json --quick` prints every figure bench/README.md documents.

Figures are never asserted here (the machine running the tests is shared and noisy):
only that each is produced and is a number in a plausible unit.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

KEYS = ("speed_factor", "build_efficiency", "latency_p50_ms", "latency_p99_ms",
        "startup_s", "rss_mb", "deals_per_s")


def test_quick_bench_prints_every_figure() -> None:
    result = subprocess.run([sys.executable, "-m", "firmware.cli", "bench", "--json",
                             "--quick"], capture_output=True, text=True, cwd=ROOT,
                            timeout=240)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    for key in KEYS:
        assert isinstance(figures[key], int | float) and figures[key] > 0, key
    assert figures["latency_p50_ms"] <= figures["latency_p99_ms"]
    assert figures["latency_faults"] == []
