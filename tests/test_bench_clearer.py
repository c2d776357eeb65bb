"""The venue-faults bench's technician speaks to the daemon through the one client: it
logs in, hears a warning on the event stream and clears it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bench.venue.bench_venue_faults import Clearer
from firmware.api.client import ClientError
from tests.console.conftest import TOKEN, start_daemon


def test_the_clearer_clears_a_drift_it_hears(tmp_path: Path) -> None:
    daemon, stop = start_daemon(tmp_path, players=False)
    try:
        with pytest.raises(ClientError):
            Clearer(daemon.socket, ("li", "not-the-token"))
        clearer = Clearer(daemon.socket, ("li", TOKEN))
        try:
            daemon.call(lambda: daemon.ctl.fault("timing.drift", "lid", None, {"mechanism": "lid"}))
            deadline = time.monotonic() + 10.0
            while time.monotonic() < deadline and not (clearer.cleared and not daemon.call(
                    lambda: any(f.active for f in daemon.ctl.faults))):
                time.sleep(0.05)
        finally:
            clearer.stop()
        assert clearer.cleared == 1 and len(clearer.seen) == 1
        assert daemon.call(lambda: [f.id for f in daemon.ctl.faults if f.active]) == []
        assert not clearer.thread.is_alive()
    finally:
        stop()
