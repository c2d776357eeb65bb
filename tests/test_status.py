"""One status picture: the API, the live view, the TUI and the journal read the
controller's `status()` (each machine's own `status()`), never a copy built apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.api.auth import Technicians
from firmware.api.server import ApiServer
from firmware.console import render
from firmware.console.view import picture, snap_from_status, snapshot
from firmware.state.table_state import JOURNALED_STATUS
from simulator.harness.runner import Harness
from tests.test_diagnosis import table_in_play


def _api(harness: Harness, state: Path) -> ApiServer:
    ctl = harness.ctl
    return ApiServer(ctl, ctl.maintenance(), Technicians(state / "technicians.json"), None)


# One table walked through these moments in order (the fixture is shared): a hand in
# play with the next set staged, the next build running, an e-stop with a fault active.
MOMENTS = ["in play", "building", "e-stop"]


def _go_to(harness: Harness, moment: str) -> None:
    ctl, clock = harness.ctl, harness.clock
    if moment == "building":
        clock.run_until(clock.now() + 4000.0, until=lambda: ctl.build.state == "building")
        assert ctl.build.state == "building"
    elif moment == "e-stop":
        ctl.fault("head.jam", "side.2", 2, {"test": True})
        ctl.estop("tech")


@pytest.fixture(scope="module")
def harness() -> Harness:
    return table_in_play()


def test_machines_report_their_own_status(harness: Harness) -> None:
    ctl = harness.ctl
    status = ctl.status()
    assert status["sides"] == [side.status() for side in ctl.sides]
    assert status["plates"] == [plate.status()["state"] for plate in ctl.plates]
    assert status["dice"] == ctl.dice.status()
    assert (status["build"], status["lid"]) == (ctl.build.status()["state"],
                                               ctl.lid.status()["state"])
    assert {k: status[k] for k in ctl.cycle.status()} == ctl.cycle.status()


@pytest.mark.parametrize("moment", MOMENTS)
def test_api_view_tui_and_journal_agree(harness: Harness, moment: str,
                                        tmp_path: Path) -> None:
    _go_to(harness, moment)
    ctl = harness.ctl
    api = _api(harness, tmp_path).status(with_signals=True)
    picture_now = ctl.status()
    # The API is the picture plus only what is the API's own.
    assert {k: api[k] for k in picture_now} == picture_now
    assert set(api) - set(picture_now) == {"service", "commitment", "hand_in_play",
                                           "counters", "signals", "gate"}
    # The live view draws the snapshot of that same picture the TUI draws from the API.
    view = snapshot(ctl)
    assert view == snap_from_status(api)
    assert view["held_by"] == ("estop" if moment == "e-stop" else None)
    tui = render.table_text(api).plain
    assert picture(view).plain in tui
    # The journal keeps the machines' part under the same names (the build's and the
    # cycle's states as recovery would restore them: tests/test_journal.py).
    ctl.save_journal()
    saved = ctl.journal.load()
    assert {k: saved[k] for k in JOURNALED_STATUS} == {k: api[k] for k in JOURNALED_STATUS}
    if moment == "e-stop":
        assert api["estopped"] and api["held_by"] and view["faults"]
        assert any(f["id"] == "head.jam" for f in api["faults"])
