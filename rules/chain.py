"""Checking a deal history: every reveal against its commitment, and the chain.

A history is the handoff records in order (one JSON object per line). Record i+1
reveals the nonce of record i (`revealed`), so record i's walls can be checked against
the commitment published when they rose; and record i+1 names record i's commitment
(`previous_commitment`), which is bound into record i+1's own commitment. So no record
can be rewritten, removed or reordered without breaking a commitment the players saw
before the deal, or the chain at the next record. `revealed` itself is bound in no
commitment, so a record the next one reveals no nonce for is a break too: otherwise
walls changed under an unchanged commitment would pass unchecked.

Electronic dice (`dice_binding: "committed"`): the record reveals its dice seed, whose
faces must be the faces thrown; and when the record before it is the hand just before,
that record's commitment bound the seed's digest (`next_dice_commitment`) before this
hand's walls were built, so the dice cannot have been rolled again after the walls were
seen; a hand just before with committed dice that bound nothing is a break. A first
record, or one after a missing hand, has no such earlier binding: its dice are counted
as not bound, never passed as checked. Dice a sensor read
(`dice_binding: "observed"`) were not chosen by the firmware and carry no seed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from . import dicecommit
from .commit import commitment
from .errors import RulesError
from .i18n import _
from .redeal import redeal_problem


@dataclass
class Verdict:
    """The outcome: `ok`, how many reveals were checked, and the first break."""

    ok: bool
    records: int
    reveals_checked: int
    problem: str | None = None
    line: int | None = None
    dice_checked: int = 0       # hands whose dice were bound before their walls
    dice_unbound: list[int] | None = None   # lines of hands whose dice had no earlier binding
    dice_observed: int = 0      # hands whose dice a sensor read


def read_records(lines: Iterable[str]) -> list[tuple[int, dict[str, Any] | None]]:
    """(line number, record or None for a line that is not a JSON object)."""
    out: list[tuple[int, dict[str, Any] | None]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):    # not JSON, or nested past the parser
            record = None
        out.append((number, record if isinstance(record, dict) else None))
    return out


def _table(record: dict[str, Any]) -> dict[str, Any]:
    """The record's `table`, or nothing when a crafted file put something else there."""
    table = record.get("table")
    return table if isinstance(table, dict) else {}


def _name(record: dict[str, Any], line: int) -> str:
    table = _table(record)
    return _("line {line} (hand {hand} set {set})").format(
        line=line, hand=table.get("cycle"), set=table.get("set"))


def verify_file(path: str) -> Verdict:
    """`verify_history` of a JSON-lines file."""
    with open(path, encoding="utf-8") as fh:
        return verify_history(read_records(fh))


def verify_history(records: list[tuple[int, dict[str, Any] | None]]) -> Verdict:
    """Check every reveal and every chain link; stop at the first break."""
    checked = 0
    dice = _DiceTally()
    previous: tuple[int, dict[str, Any]] | None = None
    for line, record in records:
        if record is None:
            return Verdict(False, checked, checked,
                           _("line {line} is not a JSON record").format(line=line), line)
        if not isinstance(record.get("commitment"), str):
            return Verdict(False, checked, checked,
                           _("line {line} has no commitment").format(line=line), line)
        if previous is not None:
            prev_line, prev = previous
            link = record.get("previous_commitment")
            if link != prev["commitment"]:
                return Verdict(False, len(records), checked,
                               _("{name} does not chain to the record before it: "
                                 "previous_commitment {link} but {before} committed "
                                 "{commitment} (a record was changed, removed or "
                                 "reordered)").format(
                                   name=_name(record, line), link=link,
                                   before=_name(prev, prev_line),
                                   commitment=prev["commitment"]), line)
            revealed = record.get("revealed")
            prev_cycle = _table(prev).get("cycle")
            if not (isinstance(revealed, dict) and isinstance(revealed.get("nonce"), str)
                    and revealed.get("cycle") == prev_cycle):
                # `revealed` is bound in no commitment: a skipped reveal would let walls
                # changed under an unchanged commitment pass.
                return Verdict(False, len(records), checked,
                               _("{name}: its walls cannot be checked: the next record "
                                 "({next}) reveals no nonce for that hand (a reveal removed "
                                 "or changed)").format(name=_name(prev, prev_line),
                                                       next=_name(record, line)), prev_line)
            try:
                recomputed = commitment(prev.get("walls"), revealed["nonce"],
                                        prev.get("previous_commitment"),
                                        prev.get("next_dice_commitment"))
            except RulesError as exc:
                return Verdict(False, len(records), checked,
                               _("{name} cannot be checked: {error}").format(
                                   name=_name(prev, prev_line), error=exc), prev_line)
            if recomputed != prev["commitment"]:
                return Verdict(False, len(records), checked,
                               _("{name}: its walls with the nonce revealed at line {line} "
                                 "give {recomputed}, not the commitment {commitment} "
                                 "published before the deal").format(
                                   name=_name(prev, prev_line), line=line,
                                   recomputed=recomputed, commitment=prev["commitment"]),
                               prev_line)
            checked += 1
            # Its walls hold: its hands must be what those walls and dice deal.
            broken = _dealt_again(prev, prev_line, len(records), checked, dice)
            if broken is not None:
                return broken
        problem = dice.check(line, record, previous)
        if problem is not None:
            return Verdict(False, len(records), checked, problem, line, **dice.counts())
        previous = (line, record)
    if previous is not None:
        broken = _dealt_again(previous[1], previous[0], len(records), checked, dice)
        if broken is not None:
            return broken
    return Verdict(True, len(records), checked, **dice.counts())


def _dealt_again(record: dict[str, Any], line: int, records: int, checked: int,
                 dice: _DiceTally) -> Verdict | None:
    """The break when `record`'s hands are not what its walls and dice deal."""
    problem = redeal_problem(record)
    if problem is None:
        return None
    return Verdict(False, records, checked, _("{name}: {problem}").format(
        name=_name(record, line), problem=problem), line, **dice.counts())


class _DiceTally:
    """Checks each record's dice against its seed and the binding before its walls."""

    def __init__(self) -> None:
        self.checked = 0
        self.unbound: list[int] = []
        self.observed = 0

    def counts(self) -> dict[str, Any]:
        return {"dice_checked": self.checked, "dice_unbound": self.unbound,
                "dice_observed": self.observed}

    def check(self, line: int, record: dict[str, Any],
              previous: tuple[int, dict[str, Any]] | None) -> str | None:
        """None when the dice hold, else what is wrong with them."""
        binding = record.get("dice_binding")
        if binding is None:
            return None         # a record from before dice were committed (mjtable-commit/2)
        if binding == "observed":
            self.observed += 1
            return None
        name = _name(record, line)
        if binding != "committed":
            return _("{name}: unknown dice_binding {binding!r}").format(name=name,
                                                                         binding=binding)
        seed = record.get("dice_seed")
        throws = record.get("dice")
        if not (isinstance(seed, dict) and isinstance(throws, list)):
            return _("{name}: its dice are committed but the record reveals no dice "
                     "seed").format(name=name)
        try:
            if dicecommit.seed_commitment(seed.get("seed")) != seed.get("commitment"):
                return _("{name}: its dice seed does not give the dice commitment "
                         "{commitment} it claims").format(name=name,
                                                          commitment=seed.get("commitment"))
            for i, throw in enumerate(throws):
                faces = throw.get("faces") if isinstance(throw, dict) else None
                if not isinstance(faces, list):
                    return _("{name}: throw {i} has no faces").format(name=name, i=i)
                if faces != dicecommit.faces(seed["seed"], i, len(faces)):
                    return _("{name}: throw {i} shows {faces} but the committed dice seed "
                             "gives {seeded} (the dice were rolled again)").format(
                                 name=name, i=i, faces=faces,
                                 seeded=dicecommit.faces(seed["seed"], i, len(faces)))
        except RulesError as exc:
            return _("{name}: {error}").format(name=name, error=exc)
        bound = _bound_before(record, previous)
        if bound is None and _follows(record, previous):
            # The hand just before had committed dice, so it had to bind these: a
            # firmware that binds nothing would otherwise pass, every seed drawn once
            # the walls were up and every hand "unbound" like a first one.
            prev_line, prev = previous  # type: ignore[misc]
            return _("{name}: {before} is the hand just before it and its dice were "
                     "committed, but it bound no dice seed for this hand "
                     "(next_dice_commitment is missing): these dice may have been chosen "
                     "after the walls were seen").format(name=name,
                                                         before=_name(prev, prev_line))
        if bound is None:
            self.unbound.append(line)
        elif bound != seed["commitment"]:
            prev_line, prev = previous  # type: ignore[misc]
            return _("{name}: its dice seed {commitment} is not the one {before} bound "
                     "before these walls were built ({bound}): the dice were chosen after "
                     "the walls were seen").format(name=name, commitment=seed["commitment"],
                                                   before=_name(prev, prev_line), bound=bound)
        else:
            self.checked += 1
        return None


def _follows(record: dict[str, Any], previous: tuple[int, dict[str, Any]] | None) -> bool:
    """Whether the record before is the hand just before, with committed dice."""
    if previous is None:
        return False
    prev = previous[1]
    cycle = _table(record).get("cycle")
    return (isinstance(cycle, int) and _table(prev).get("cycle") == cycle - 1
            and prev.get("dice_binding") == "committed")


def _bound_before(record: dict[str, Any],
                  previous: tuple[int, dict[str, Any]] | None) -> str | None:
    """The dice commitment the hand just before bound for this hand, when there is one."""
    if previous is None:
        return None
    prev = previous[1]
    cycle = _table(record).get("cycle")
    prev_cycle = _table(prev).get("cycle")
    link = prev.get("next_dice_commitment")
    if isinstance(cycle, int) and prev_cycle == cycle - 1 and isinstance(link, str):
        return link
    return None
