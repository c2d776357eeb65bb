"""Signed commands from the venue over the API (`command`), relayed by `mjtable agent`.

The method is open to the socket's group: the signature is the authority, checked
here in the daemon (firmware/service/signed.py), so nothing that reaches the socket can skip
it. Every refusal is answered as refused and logged (event "venue.refused", a few per
reason a minute, then a count: "venue.refused.repeated").
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Protocol

from firmware.api import protocol as p
from firmware.api.access import OPEN, method
from firmware.api.calls import Caller, Handler
from firmware.i18n import _
from firmware.printable import printable
from firmware.service import signed
from firmware.service.gate import BookingGate
from firmware.service.identify import IDENTIFY_S, Identify

if TYPE_CHECKING:
    from firmware.state.ledger import Ledger

BOOKING_MAX = 64          # characters of a booking id (the venue's are 1–64)
REFUSED_PER_WINDOW = 3    # "venue.refused" rows of one reason a minute; then a count



class Table(Protocol):
    """What a venue's command may do to the table."""

    @property
    def estopped(self) -> bool: ...
    def estop(self, by: str | None = None) -> None: ...
    def gate_opened(self) -> None: ...
    def emit(self, kind: str, **data: Any) -> None: ...


class Rows(Protocol):
    def row(self, kind: str, key: Hashable, per_key: int = 1, **fields: Any) -> bool: ...


class Server(Protocol):
    """What the `command` method uses of the server (`venue` is read when it runs: the
    daemon attaches it after the server is built)."""

    @property
    def ctl(self) -> Table: ...
    @property
    def client_rows(self) -> Rows: ...


class Venue:
    """What the daemon holds for the venue: the verifier, the gate, the ledger."""

    def __init__(self, verifier: signed.Verifier, gate: BookingGate,
                 ledger: Ledger | None, identify: Identify | None = None) -> None:
        self.verifier = verifier
        self.gate = gate
        self.ledger = ledger
        self.identify = identify


def handlers(server: Server) -> dict[str, Handler]:
    @method(OPEN)   # signed by the venue and checked here (firmware/service/signed.py)
    async def command(client: Caller, params: dict[str, Any], _who: str | None) -> Any:
        venue: Venue | None = getattr(server, "venue", None)
        if venue is None:
            raise p.ApiError(p.NOT_AVAILABLE, "this daemon takes no venue commands")
        envelope = params.get("envelope")
        raw = envelope.get("cmd") if isinstance(envelope, dict) else None
        shown_id = printable(str(raw.get("id", ""))[:64]) if isinstance(raw, dict) else ""
        try:
            cmd = venue.verifier.check(envelope)
            result = run(server, venue, cmd)
        except signed.Refused as exc:
            name = printable(str(raw.get("name", ""))[:32]) if isinstance(raw, dict) else ""
            # Anyone in the socket's group can send envelopes: a few rows per reason a
            # window, then a count (mjtable_core/clientrows.py), never one per request.
            server.client_rows.row("venue.refused", exc.why, per_key=REFUSED_PER_WINDOW,
                                   id=shown_id, command=name,
                                   why=exc.why, detail=printable(exc.detail))
            return {"id": shown_id, "accepted": False, "why": _(exc.why),
                    "detail": printable(exc.detail)}
        server.ctl.emit("venue.command", id=cmd.id, command=cmd.name, key=cmd.key)
        return {"id": cmd.id, "accepted": True, "result": result}

    return {"command": command}


def run(server: Server, venue: Venue, cmd: signed.Command) -> Any:
    """Do what a verified command asks; bad arguments are refused like a bad command."""
    args, ctl = cmd.args, server.ctl
    if cmd.name == "enable":
        for_s, booking = args.get("for_s"), args.get("booking_id")
        # The booking id goes into every hand record and every status: short, and
        # nothing a terminal would run.
        if not isinstance(for_s, int | float) or isinstance(for_s, bool) or not (
                0 < for_s <= 7 * 86400) or not isinstance(booking, str | None) or (
                booking is not None and (len(booking) > BOOKING_MAX
                                         or printable(booking) != booking)):
            raise signed.Refused(signed.BAD_ARGS, "enable needs for_s in (0, 604800] "
                                 f"and booking_id (at most {BOOKING_MAX} printable "
                                 "characters)")
        venue.gate.enable(float(for_s), booking)
        if venue.ledger is not None:
            venue.ledger.keep("gate", venue.gate.snapshot())
        ctl.gate_opened()       # a build the gate held starts; the lid key works again
        return venue.gate.status()
    if cmd.name == "disable":
        reason = args.get("reason", "")
        if not isinstance(reason, str):
            raise signed.Refused(signed.BAD_ARGS, "disable needs a reason string")
        venue.gate.disable(printable(reason[:200]))
        if venue.ledger is not None:
            venue.ledger.keep("gate", venue.gate.snapshot())
        return venue.gate.status()
    if cmd.name == "usage_ack":
        seq = args.get("seq")
        if venue.ledger is None or not isinstance(seq, int) or isinstance(seq, bool):
            raise signed.Refused(signed.BAD_ARGS, "usage_ack needs an integer seq")
        return {"acked": venue.ledger.acknowledge(seq)}
    if cmd.name == "estop":
        # The safe direction only: releasing it needs a technician at the table.
        if not ctl.estopped:
            ctl.estop(f"venue ({cmd.key})")
        return {"estopped": True}
    if cmd.name == "identify" and venue.identify is not None:
        # Staff look for the table blinking "Id"; nothing moves.
        venue.identify.start()
        return {"blinking_s": IDENTIFY_S}
    # rebirth: the agent acts on it once the daemon has checked it.
    return {}
