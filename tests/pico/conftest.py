"""Where the pico rig's tests find MicroPython's Pico image and the RP2040 boot ROM:
$MJTABLE_RP2_DIR, else the copy CI lays beside the checkout (rp2 in the team's shared
directory). A user's own checkout has neither, and the tests skip saying so."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

BESIDE = Path(__file__).resolve().parents[2].parent / "shared" / "rp2"

if not os.environ.get("MJTABLE_RP2_DIR") and BESIDE.is_dir():
    os.environ["MJTABLE_RP2_DIR"] = str(BESIDE)


def run_on_chip(scenario: Any) -> dict[str, Any]:
    """A short scenario (2 s of play) on the pico rig: its report, or the test skipped
    with the reason the chip cannot start."""
    from mjtable_core.config import load_config
    from simulator.harness.runner import Harness
    from simulator.rigs.pico_chip import ChipMissing

    try:
        harness = Harness(load_config(None).with_play_time(2.0), scenario, None, rig="pico")
    except ChipMissing as exc:
        pytest.skip(str(exc))
    return harness.run()
