"""The flight recorder: the sensor edges and output commands before each fault.

Every input edge (with the I/O board's own time stamp where the HAL gives one) and
every command that reaches the HAL goes into a ring bounded in entries. A replay must
start the table somewhere it can be brought to again from power-on, so the window a
fault keeps starts at the last *anchor*: a build starting, or the cycle entering a
phase while no build runs. With the anchor it keeps what the table had learned then
(travel times) and every input's value. At a fault the window is frozen, bounded in
seconds and bytes too, and logged as a `flight.recording` event right after the fault
(`mjtable replay` runs it again against the simulator: simulator/fuzz/replay.py).

Entries are short lists, to keep a recording small in the event log:
`[t, "i", signal, value]` (an input edge; a fifth item is the board's time of it),
`[t, "o", signal, value]` (a command), `[t, "a", kind, state]` (an anchor).
"""

from __future__ import annotations

import json
from collections import deque
from typing import TYPE_CHECKING, Any

from firmware.faults.kinds import CATALOGUE, INFO
from mjtable_core.signals import OUTPUT_KINDS, Value

if TYPE_CHECKING:
    from firmware.diagnosis.table import Watched

RECORD_S = 300.0        # at most this long before the fault
MAX_ENTRIES = 3000      # a whole 144-tile build is ~800
MAX_BYTES = 96_000      # of the entries' JSON, per fault
RECORDING = "flight.recording"      # the event kind in the log


class FlightRecorder:
    """The ring of recent edges and commands of one controller."""

    def __init__(self, ctl: Watched) -> None:
        self.ctl = ctl
        self.entries: deque[list[Any]] = deque(maxlen=MAX_ENTRIES)
        self.anchor: dict[str, Any] | None = None
        self._anchor_entry: list[Any] | None = None
        self._appended = 0      # entries ever added (the ring forgets, this does not)
        self._mark = 0
        self.inputs = [name for name, sig in ctl.hal.signals.items()
                       if sig.kind not in OUTPUT_KINDS]
        self._clock_now = ctl.clock.now
        # The board's time of an edge, where the HAL keeps one: asked at every edge,
        # looked up once (ctl.edge_time's own source, without its call around it).
        self._changed_at = (ctl.outputs.changed_at if ctl.hal.capabilities.board_time
                            else None)
        ctl.input_watchers.append(self._on_input)
        ctl.outputs.watchers.append(self._on_output)
        ctl.subscribers.append(self._on_event)

    def mark(self) -> None:
        """A fault is being raised: entries from here on are what its stop did."""
        self._mark = self._appended

    def _add(self, entry: list[Any]) -> None:
        self.entries.append(entry)
        self._appended += 1

    def _now(self) -> float:
        return round(self.ctl.clock.now(), 6)

    # Times are kept raw on the hot path and rounded once, when a fault freezes them;
    # every edge and command is one entry: _add inline.
    def _on_input(self, name: str, value: Value) -> None:
        now = self._clock_now()
        if self._changed_at is not None:
            at = self._changed_at(name)
            self.entries.append([now, "i", name, value, now if at is None else at])
        else:
            self.entries.append([now, "i", name, value])
        self._appended += 1

    def _on_output(self, name: str, value: Value) -> None:
        self.entries.append([self._clock_now(), "o", name, value])
        self._appended += 1

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if self.ctl.cycle.faulted:
            pass        # parked by a fault: no start point a replay can reach
        elif kind == "build.started" or (
                kind == "phase" and self.ctl.build.at_rest):
            self._anchor(kind, event.get("state"))
        if kind == "fault" and CATALOGUE[event["id"]].severity != INFO:
            recording = self.freeze(event)
            # After the fault's own row: the log keeps them in that order.
            self.ctl.clock.post(lambda: self.ctl.emit(RECORDING, **recording))

    def _anchor(self, kind: str, phase: str | None) -> None:
        ctl = self.ctl
        supervisor = ctl.supervisor
        read = ctl.hal.read
        self.anchor = {
            "t": self._now(), "kind": kind, "phase": phase,
            "state": {"cycle": ctl.cycle.state, "build": ctl.build.state},
            "inputs": {name: read(name) for name in self.inputs},
            "timings": {m: list(r) for m, r in supervisor.runs.items()},
            "slow": {k: list(v) for k, v in supervisor._slow.items()},
            # A sensor already under suspicion: the next miss may be the one that counts.
            "misses": dict(supervisor.misses), "suspects": sorted(supervisor.suspects),
            "degraded": sorted(supervisor.degraded),
        }
        self._anchor_entry = [ctl.clock.now(), "a", kind, phase]
        self._add(self._anchor_entry)

    def freeze(self, fault: dict[str, Any]) -> dict[str, Any]:
        """The window before `fault` (its event), bounded, as logged."""
        now = self._now()
        anchor = self.anchor
        start = now - RECORD_S
        # From the anchor's own entry on (what came before it in that instant is not
        # the replay's), while the ring still holds it.
        at = next((i for i, e in enumerate(self.entries) if e is self._anchor_entry), None)
        anchored = anchor is not None and at is not None and anchor["t"] >= start
        kept = (list(self.entries)[at:] if anchored and at is not None
                else [e for e in self.entries if e[0] >= start])
        entries = [[round(e[0], 6), *e[1:4], *(round(b, 6) for b in e[4:] if b is not None)]
                   for e in kept]
        size = len(json.dumps(entries, separators=(",", ":")))
        while entries and size > MAX_BYTES:
            # Too long to keep whole: the oldest go, and with them the start point.
            size -= len(json.dumps(entries.pop(0), separators=(",", ":"))) + 1
            anchored = False
        table = self.ctl.config.table
        # Where the fault's stop began, counted from the end (the ring may have moved).
        after = min(len(entries), self._appended - self._mark)
        raised = self.ctl.faults[-1] if self.ctl.faults else None
        side = raised.side if raised is not None and raised.id == fault["id"] else None
        return {"fault": {**{k: fault.get(k) for k in ("id", "code", "where", "sim_time_s",
                                                       "cycle")}, "side": side},
                "fault_t": now, "table": table.id, "tiles": table.tiles,
                "board_time": self._changed_at is not None,
                "anchor": anchor if anchored else None,
                "stop_at": len(entries) - after,
                "entries": entries}
