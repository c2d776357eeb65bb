"""Signed commands straight on the daemon's socket: the gate, the ledger, the e-stop."""

from __future__ import annotations

from pathlib import Path

from bench.helpers.venue_tables import Daemon, call, wait_for
from tests.venue.watch import VenueKey


def test_enable_bills_the_booking_disable_holds_and_estop_stops(tmp_path: Path) -> None:
    key = VenueKey()
    daemon = Daemon(tmp_path, "t1", extra=(
        f'\n[venue]\ngate = true\nkeys = {{ "{key.key_id}" = "{key.public_b64}" }}\n'))

    def send(name: str, args: dict | None = None) -> dict:
        return call(daemon.socket, "command",
                    {"envelope": key.command("t1", name, args)})

    daemon.start()
    try:
        held = wait_for(lambda: [r for r in call(daemon.socket, "log",
                                                 {"kind": "build.held"})["rows"]],
                        20, "the build held at power-on")
        assert "not enabled" in str(held[0])
        assert daemon.usage()["records"] == []
        gate = call(daemon.socket, "status")["gate"]
        assert (gate["open"], gate["held"]) == (False, "not enabled by the venue")
        answer = send("enable", {"for_s": 3600, "booking_id": "B-7"})
        assert answer["accepted"] and answer["result"]["open"]
        status = call(daemon.socket, "status")
        assert status["gate"]["open"] and status["gate"]["booking_id"] == "B-7"
        assert status["gate"]["until_t"] - status["t"] > 3500
        identify = send("identify")
        assert identify["accepted"] and identify["result"] == {"blinking_s": 5.0}
        records = wait_for(lambda: daemon.usage()["records"], 60, "a hand")
        assert records[0]["booking_id"] == "B-7"
        assert send("disable", {"reason": "closing time"})["accepted"]
        wait_for(lambda: call(daemon.socket, "log", {"kind": "gate.held"})["rows"], 60,
                 "the gate holding the table")
        status = call(daemon.socket, "status")
        assert status["display"] == "En"
        assert status["gate"]["reason"] == "closing time" and not status["gate"]["open"]
        acked = send("usage_ack", {"seq": records[0]["seq"]})
        assert acked["result"] == {"acked": records[0]["seq"]}
        assert daemon.usage()["totals"]["acked"] == records[0]["seq"]
        assert send("estop")["accepted"]
        assert call(daemon.socket, "status")["estopped"] is True
        bad = send("enable", {"for_s": -1, "booking_id": "B-8"})
        assert (bad["accepted"], bad["why"]) == (False, "bad arguments")
    finally:
        daemon.stop()
