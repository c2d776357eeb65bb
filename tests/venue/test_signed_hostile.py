"""Signed commands the venue's key signed but the table must still refuse."""

from __future__ import annotations

import math
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from firmware.service import signed
from venue.signing import sign

NOW = 1_800_000_000.0


def _verifier() -> tuple[signed.Verifier, Ed25519PrivateKey]:
    key = Ed25519PrivateKey.generate()
    return signed.Verifier("t1", {"venue-1": key.public_key()}, lambda: NOW, 300.0), key


def _cmd(n: int, **over: Any) -> dict[str, Any]:
    return {"id": f"c{n}", "table": "t1", "name": "identify", "args": {}, "key": "venue-1",
            "issued": NOW, "expires": NOW + 60, **over}


@pytest.mark.parametrize("field, value", [("expires", math.nan), ("issued", math.nan),
                                          ("expires", math.inf), ("issued", -math.inf),
                                          ("expires", 10 ** 400)])
def test_a_time_that_is_not_a_number_is_malformed_not_valid_forever(field: str,
                                                                      value: float) -> None:
    """Before, `expires: NaN` passed every comparison (NaN > x is false): a command
    valid forever, its id kept with no expiry."""
    verifier, key = _verifier()
    with pytest.raises(signed.Refused) as refused:
        verifier.check(sign(key, _cmd(1, **{field: value})))
    assert refused.value.why == signed.MALFORMED
    assert verifier.check(sign(key, _cmd(2))).name == "identify"


@pytest.mark.parametrize("booking", ["B" * 65, "B-7\x1b[2J", "B-7\u202e"])
def test_a_booking_id_too_long_or_with_control_characters_is_refused(booking: str) -> None:
    """Before, any string was taken: it went into every hand record of the ledger and
    every status, with a terminal's escapes (the disable reason was already cut and
    made printable)."""
    from types import SimpleNamespace

    from firmware.api.venue import Venue, run
    from firmware.service.gate import BookingGate
    from mjtable_core.clock import VirtualClock

    verifier, key = _verifier()
    venue = Venue(verifier, BookingGate(VirtualClock(), True), None)
    server: Any = SimpleNamespace(ctl=SimpleNamespace(gate_opened=lambda: None))

    def enable(n: int, booking_id: str) -> Any:
        return run(server, venue, verifier.check(sign(key, _cmd(
            n, name="enable", args={"for_s": 60, "booking_id": booking_id}))))
    with pytest.raises(signed.Refused) as refused:
        enable(1, booking)
    assert refused.value.why == signed.BAD_ARGS and venue.gate.booking_id is None
    assert enable(2, "B-7:2026.12_01")["booking_id"] == "B-7:2026.12_01"


def test_a_replay_after_the_wall_clock_is_set_back_is_still_refused() -> None:
    """Before, an id was forgotten as soon as its command expired: NTP setting the
    table's clock back (it ran fast) reopened the replay of every command forgotten
    meanwhile."""
    key = Ed25519PrivateKey.generate()
    now = [NOW]
    verifier = signed.Verifier("t1", {"venue-1": key.public_key()}, lambda: now[0], 300.0)
    first = sign(key, _cmd(1))
    verifier.check(first)
    now[0] = NOW + 600          # expired: the next check tidies the ids
    verifier.check(sign(key, _cmd(2, issued=now[0], expires=now[0] + 60)))
    now[0] = NOW + 10           # NTP sets the clock back
    with pytest.raises(signed.Refused) as refused:
        verifier.check(first)
    assert refused.value.why == signed.REPLAYED


def test_a_used_id_is_on_the_disk_before_its_command_runs(tmp_path) -> None:
    """With synchronous=NORMAL a used id sat in the WAL unsynced: a power cut right after
    a command could let its replay through within the command's validity."""
    key = Ed25519PrivateKey.generate()
    verifier = signed.Verifier("t1", {"venue-1": key.public_key()}, lambda: NOW, 300.0,
                               tmp_path / signed.FILE_NAME)
    verifier.check(sign(key, _cmd(1)))
    assert verifier.db.execute("PRAGMA synchronous").fetchone() == (2,)     # FULL
    verifier.close()
