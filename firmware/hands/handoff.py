"""From walls and dice to the dealt-walls record, and on to every consumer.

The commitment is published when the walls rise, before the dice are thrown; its
nonce is revealed in the next hand's record, so anyone holding both can check the
walls were not changed after the fact. Each record also carries the previous
record's commitment, so the deal history is one chain: a record rewritten after the
fact breaks it (`mjtable verify-deals`, docs/rules.md; docs/mechanics.md, Cheating
and tampering).

While a hand is in play only its public part (commitment, dice, break, counts) leaves
the firmware through the API and the event log; its walls and hands follow once the
next hand's walls rise (`handoff.revealed`).

The dice are the table's own (electronic): their faces come from a seed drawn when the
walls of the hand before rise, before this hand's set is built, and bound into that
hand's commitment; so the firmware cannot roll again once it has seen the walls. The
seed is revealed in the record (`dice_seed`), where anyone can derive the faces again
(rules/dicecommit.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import rules
from firmware.faults.kinds.table import STORAGE_FAILED
from rules import dicecommit

if TYPE_CHECKING:
    from firmware.hands.table import Table

Consumer = Callable[[dict[str, Any]], None]
# Records kept in memory for the API's `walls` (5 by default); the full history is
# the handoff file's. A record is a few KB, so more would only grow the daemon.
KEEP_RECORDS = 50
Walls = list[list[list[str | None]]]
# What a record says about the tiles: secret while its hand is in play.
SECRET_FIELDS = ("walls", "hands", "dealt_slots", "flowers", "replacements", "next_draw")
# The table rolls the dice itself: the faces come from a committed seed. ("observed"
# is for dice a sensor reads, which the firmware does not choose; no backend has them.)
DICE_BINDING = "committed"
# How much of the commitment the 7-segment display shows while the walls wait for
# the dice: "c" and four hex digits, enough for a player to note and compare.
DISPLAY_DIGITS = 4


def display_text(commitment: str) -> str:
    """What the 7-segment display shows of a commitment: "c" and its first hex digits."""
    return "c" + commitment.removeprefix("sha256:")[:DISPLAY_DIGITS]


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """`record` without the tiles of the walls and hands (the rest stays)."""
    return {k: v for k, v in record.items() if k not in SECRET_FIELDS} | {
        "secret_until_hand_ends": [k for k in SECRET_FIELDS if k in record]}


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as anyone may see it: a handoff's record without its tiles."""
    if event.get("kind") == "handoff" and isinstance(event.get("record"), dict):
        return {**event, "record": public_record(event["record"])}
    return event


class Handoff:
    def __init__(self, ctl: Table) -> None:
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
        # The last record's commitment: the next record chains to it.
        self.previous_commitment: str | None = None
        self.in_play: dict[str, Any] | None = None     # the record of the hand in play
        self._nonce: str | None = None
        self._revealed: dict[str, Any] | None = None
        # The last recorded hand's cycle and nonce: the next walls reveal it. A hand
        # whose handoff was refused has no record, so its nonce is never the reveal.
        self._recorded: dict[str, Any] | None = None
        # The seed this hand's faces come from ({seed, commitment, committed_in}), and
        # the one drawn for the next hand, whose digest this hand's commitment binds.
        self._dice: dict[str, Any] | None = None
        self._next_dice: dict[str, Any] | None = None
        # A refused handoff's reason, held back until its hand has ended.
        self._refused: dict[str, Any] | None = None

    def next_throw(self, dealer: int, throws: list[list[int]]) -> rules.ThrowRequest | None:
        return rules.next_throw(self.variant, dealer, throws)

    def secret(self) -> dict[str, Any]:
        """What the journal keeps so a hand dealt across a power cut keeps its commitment."""
        return {"nonce": self._nonce, "commitment": self.commitment,
                "revealed": self._revealed, "previous_commitment": self.previous_commitment,
                "recorded": self._recorded, "dice": self._dice, "next_dice": self._next_dice,
                "refused": self._refused}

    def restore_secret(self, saved: dict[str, Any]) -> None:
        self._nonce = saved.get("nonce")
        self.commitment = saved.get("commitment")
        self._revealed = saved.get("revealed")
        self.previous_commitment = saved.get("previous_commitment", self.previous_commitment)
        self._recorded = saved.get("recorded", self._recorded)
        self._dice = saved.get("dice", self._dice)
        self._next_dice = saved.get("next_dice", self._next_dice)
        self._refused = saved.get("refused", self._refused)

    def ended(self, record: dict[str, Any]) -> bool:
        """Whether `record`'s hand is over, so its tiles may be shown."""
        return record is not self.in_play

    def commit(self, walls: Walls, cycle: int) -> str:
        """Publish the commitment to the walls that just rose."""
        if self._recorded is not None:
            # The last recorded hand is over: its nonce may now be revealed (the
            # record before the next one must be checkable: rules/chain.py).
            self._revealed = self._recorded
        ended, self.in_play = self.in_play, None
        if self._refused is not None:
            self.ctl.emit("handoff.refused.revealed", **self._refused)
            self._refused = None
        if ended is not None and self._revealed is not None:
            # Its walls and hands too: the players have pushed those tiles in.
            self.ctl.emit("handoff.revealed", cycle=self._revealed["cycle"],
                          nonce=self._revealed["nonce"], record=ended)
        self._nonce = f"{self.rng.getrandbits(128):032x}"
        # This hand rolls the seed committed when the last walls rose (none after a
        # cold start: then it is drawn now, and its record says it was not bound
        # before these walls). The next hand's seed is drawn before its set is built.
        self._dice = self._next_dice or {**self._new_seed(), "committed_in": None}
        self._next_dice = {**self._new_seed(), "committed_in": cycle}
        # Bound to the previous record's commitment: one chain (rules/commit.py).
        self.commitment = rules.commitment(walls, self._nonce, self.previous_commitment,
                                           self._next_dice["commitment"])
        # Shown before the deal, so a player can note it and check the record later.
        self.ctl.hal.write("display", display_text(self.commitment))
        self.ctl.emit("walls.committed", cycle=cycle, commitment=self.commitment,
                      next_dice_commitment=self._next_dice["commitment"])
        return self.commitment

    def faces(self, throw: int, dice: int) -> list[int]:
        """The faces of this hand's throw number `throw` (0 first): from the committed
        seed, so a throw made again after a fault shows the same faces."""
        if self._dice is None:      # dice before any walls rose: not a dealt hand
            self._dice = {**self._new_seed(), "committed_in": None}
        return dicecommit.faces(self._dice["seed"], throw, dice)

    def _new_seed(self) -> dict[str, Any]:
        seed = f"{self.rng.getrandbits(128):032x}"
        return {"seed": seed, "commitment": dicecommit.seed_commitment(seed)}

    def hand_off(self, walls: Walls, throws: list[list[int]], dealer: int, cycle: int,
                 set_name: str) -> dict[str, Any] | None:
        table = {"id": self.ctl.config.table.id, "cycle": cycle, "set": set_name}
        try:
            record = rules.deal(walls, throws, self.variant, dealer, table=table,
                                dice_source=self.dice_source, nonce=self._nonce,
                                prevalent_wind=self.ctl.config.rules.prevalent_wind,
                                previous_commitment=self.previous_commitment,
                                next_dice=(self._next_dice or {}).get("commitment"))
        except rules.RulesError as exc:
            # Walls the engine refuses (a misread tile, say) are reported, never guessed.
            # The reason may name a tile and its place in the walls now in play, so it
            # waits, like the walls, for the hand to end (`handoff.refused.revealed`).
            self._refused = {"cycle": cycle, "reason": str(exc)}
            self.ctl.emit("handoff.refused", cycle=cycle, secret_until_hand_ends=["reason"])
            return None
        record["revealed"] = self._revealed
        record["dice_binding"] = DICE_BINDING
        record["dice_seed"] = dict(self._dice) if self._dice is not None else None
        record.setdefault("previous_commitment", None)
        self.previous_commitment = record["commitment"]
        self._recorded = {"cycle": cycle, "nonce": self._nonce}
        self.in_play = record
        self.records.append(record)
        self.count += 1
        if len(self.records) > KEEP_RECORDS:
            del self.records[:-KEEP_RECORDS]
        # The full record rides on the event: the API's subscribe stream carries it.
        self.ctl.emit("handoff", cycle=cycle, set=set_name, commitment=record["commitment"],
                      record=record)
        for consumer in self.consumers:
            try:
                consumer(record)
            except OSError as exc:
                if getattr(consumer, "required", False):
                    # The record of a deal that is not on disk cannot be verified
                    # later: the table stops through the fault path, never goes on.
                    self.ctl.fault(STORAGE_FAILED, "handoff", None,
                                   {"file": consumer_name(consumer),
                                    "error": f"{type(exc).__name__}: {exc.strerror or exc}"})
                    return record
                self._consumer_failed(consumer, cycle, exc)
            except Exception as exc:  # a consumer's failure must never stop the table
                self._consumer_failed(consumer, cycle, exc)
        return record

    def _consumer_failed(self, consumer: Consumer, cycle: int, exc: Exception) -> None:
        self.ctl.emit("handoff.consumer_failed", cycle=cycle,
                      consumer=consumer_name(consumer), error=f"{type(exc).__name__}: {exc}")


def consumer_name(consumer: Consumer) -> str:
    """A consumer's `name`, else its function or class name."""
    name = getattr(consumer, "name", None)
    if isinstance(name, str):
        return name
    return getattr(consumer, "__qualname__", type(consumer).__qualname__)
