"""Where the pico rig's tests find MicroPython's Pico image and the RP2040 boot ROM:
$MJTABLE_RP2_DIR, else the copy CI lays beside the checkout (rp2 in the team's shared
directory). A user's own checkout has neither, and the tests skip saying so."""

from __future__ import annotations

import os
from pathlib import Path

BESIDE = Path(__file__).resolve().parents[2].parent / "shared" / "rp2"

if not os.environ.get("MJTABLE_RP2_DIR") and BESIDE.is_dir():
    os.environ["MJTABLE_RP2_DIR"] = str(BESIDE)
