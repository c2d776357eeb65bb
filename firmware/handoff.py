"""From walls and dice to the dealt-walls record, and on to every consumer.

The commitment is published when the walls rise; its nonce is revealed in the next
hand's record, so anyone holding both can check the walls were not changed after
the fact (docs/mechanics.md, Cheating and tampering).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import rules

if TYPE_CHECKING:
    from firmware.controller import Controller

Consumer = Callable[[dict[str, Any]], None]
KEEP_RECORDS = 500
Walls = list[list[list[str | None]]]


class Handoff:
    def __init__(self, ctl: Controller) -> None:
        self.ctl = ctl
        section = ctl.config.rules
        self.variant = rules.load_variant(section.variant, dict(section.overrides))
        self.rng, self.dice_source = ctl.hal.entropy()
        self.consumers: list[Consumer] = []
        # Recent records for the API; the full history goes to the consumers (the
        # handoff file). Kept bounded so a table that runs for months does not grow.
        self.records: list[dict[str, Any]] = []
        self.count = 0
        self.commitment: str | None = None
        self._nonce: str | None = None
        self._revealed: dict[str, Any] | None = None

    def next_throw(self, dealer: int, throws: list[list[int]]) -> rules.ThrowRequest | None:
        return rules.next_throw(self.variant, dealer, throws)

    def secret(self) -> dict[str, Any]:
        """What the journal keeps so a hand dealt across a power cut keeps its commitment."""
        return {"nonce": self._nonce, "commitment": self.commitment,
                "revealed": self._revealed}

    def restore_secret(self, saved: dict[str, Any]) -> None:
        self._nonce = saved.get("nonce")
        self.commitment = saved.get("commitment")
        self._revealed = saved.get("revealed")

    def commit(self, walls: Walls, cycle: int) -> str:
        """Publish the commitment to the walls that just rose."""
        if self._nonce is not None:
            # The previous hand is over: its nonce may now be revealed.
            self._revealed = {"cycle": cycle - 1, "nonce": self._nonce}
        self._nonce = f"{self.rng.getrandbits(128):032x}"
        self.commitment = rules.commitment(walls, self._nonce)
        self.ctl.emit("walls.committed", cycle=cycle, commitment=self.commitment)
        return self.commitment

    def hand_off(self, walls: Walls, throws: list[list[int]], dealer: int, cycle: int,
                 set_name: str) -> dict[str, Any] | None:
        table = {"id": self.ctl.config.table.id, "cycle": cycle, "set": set_name}
        try:
            record = rules.deal(walls, throws, self.variant, dealer, table=table,
                                dice_source=self.dice_source, nonce=self._nonce,
                                prevalent_wind=self.ctl.config.rules.prevalent_wind)
        except rules.RulesError as exc:
            # Walls the engine refuses (a misread tile, say) are reported, never guessed.
            self.ctl.emit("handoff.refused", cycle=cycle, reason=str(exc))
            return None
        record["revealed"] = self._revealed
        self.records.append(record)
        self.count += 1
        if len(self.records) > 2 * KEEP_RECORDS:
            del self.records[:-KEEP_RECORDS]
        # The full record rides on the event: the API's subscribe stream carries it.
        self.ctl.emit("handoff", cycle=cycle, set=set_name, commitment=record["commitment"],
                      record=record)
        for consumer in self.consumers:
            try:
                consumer(record)
            except Exception as exc:  # a consumer's failure must never stop the table
                self.ctl.emit("handoff.consumer_failed", cycle=cycle,
                              consumer=consumer_name(consumer),
                              error=f"{type(exc).__name__}: {exc}")
        return record


def consumer_name(consumer: Consumer) -> str:
    """A consumer's `name`, else its function or class name."""
    name = getattr(consumer, "name", None)
    if isinstance(name, str):
        return name
    return getattr(consumer, "__qualname__", type(consumer).__qualname__)
