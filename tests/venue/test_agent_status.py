"""What the venue reads of a table's status: the booking gate with the minutes left."""

from __future__ import annotations

from venue.wire import status_view


def _status(t: float) -> dict:
    return {"state": "play", "t": t, "gate": {
        "enforced": True, "open": True, "until_t": 3600.0, "booking_id": "B-7",
        "reason": None, "held": None}}


def test_the_gate_is_published_with_minutes_left_not_a_ticking_second_count() -> None:
    gate = status_view(_status(10.0))["gate"]
    assert gate == {"enforced": True, "open": True, "booking_id": "B-7", "reason": None,
                    "held": None, "left_min": 60}
    # Within one minute the view does not change: the agent publishes on change only.
    assert status_view(_status(11.0)) == status_view(_status(50.0))
    assert status_view(_status(3599.0))["gate"]["left_min"] == 1


def test_a_daemon_without_the_gate_in_its_status_shows_none() -> None:
    assert status_view({"state": "idle"})["gate"] is None
