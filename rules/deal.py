"""From built walls and dice to the dealt-walls handoff record (docs/deal-format.md)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .commit import layout_commitment, new_nonce
from .dice import throw_plan
from .errors import RulesError
from .i18n import _
from .ring import SEATS, Ring, landing, rho, seat_position
from .tiles import successor
from .validate import checked_stacks
from .variants import Variant, load_variant

SCHEMA = "mjtable.dealt-walls/1"
DICE_SOURCES = ("electronic", "physical_read", "simulated")
WINDS = ("E", "S", "W", "N")


def deal(walls, throws, variant: Variant | str, dealer_position: int, *, table: dict | None = None,
         dice_source: str | list[str] = "simulated", nonce: str | None = None,
         prevalent_wind: str = "E", previous_commitment: str | None = None,
         next_dice: str | None = None) -> dict:
    """The handoff record of one deal (schema "mjtable.dealt-walls/1").

    `walls`: 4 lists of L stacks [top, bottom] (codes, or None for an unread tile);
    `throws`: the dice throws in the order they happened; `variant`: a Variant or
    its name. The commitment uses `nonce` (a fresh one when None, which is then
    lost: use `deal_with_nonce` to keep it). `previous_commitment` chains the record
    to the one before it (rules/commit.py); `next_dice`, the digest of the next hand's
    dice seed, is bound in too (rules/dicecommit.py). Raises RulesError on any bad input.
    """
    return deal_with_nonce(walls, throws, variant, dealer_position, table=table,
                           dice_source=dice_source, nonce=nonce,
                           prevalent_wind=prevalent_wind,
                           previous_commitment=previous_commitment, next_dice=next_dice)[0]


def deal_with_nonce(walls, throws, variant: Variant | str, dealer_position: int, *,
                    table: dict | None = None, dice_source: str | list[str] = "simulated",
                    nonce: str | None = None, prevalent_wind: str = "E",
                    previous_commitment: str | None = None,
                    next_dice: str | None = None) -> tuple[dict, str]:
    """Like `deal`, returning (record, nonce). The nonce is not in the record: the
    firmware publishes the commitment at hand start and reveals the nonce after."""
    if isinstance(variant, str):
        variant = load_variant(variant)
    plan = throw_plan(variant, dealer_position, throws)
    flat, _nulls, stacks_copy = checked_stacks(walls, variant)
    sources = _sources(dice_source, len(plan))
    if prevalent_wind not in WINDS:
        raise RulesError(_("prevalent_wind: {got} not one of E, S, W, N").format(
            got=repr(prevalent_wind)))
    if table is not None and not isinstance(table, dict):
        raise RulesError(_("table: expected an object, got {got}").format(got=type(table).__name__))
    if nonce is None:
        nonce = new_nonce()

    stacks = variant.stacks_per_wall
    ring_size = 4 * stacks
    d = dealer_position
    tables = _tables(variant)
    ring = Ring.from_layout(flat, stacks)

    # Break: the wall, the count C, the tail stack r and the first dealt stack h.
    breaks = [throws[i] for i, r in enumerate(plan) if r.purpose in tables.break_purposes]
    count = sum(map(sum, breaks))
    wall = d if variant.break_wall == "dealer" else landing(d, sum(breaks[0]))
    tail = (rho(wall, 0, stacks) + count - 1) % ring_size
    head = (tail + variant.head_offset) % ring_size

    dealt = _dealt(variant.deal, head, stacks)
    ring.taken[:] = dealt.taken
    hands = {s: ring.tiles_at(slots) for s, slots in zip(SEATS, dealt.slots, strict=True)}
    flowers: dict[str, list] = {s: [] for s in SEATS}
    replacements: list[dict] = []
    tail_slots = ring.tail_order(tail)
    if variant.flowers:
        replace = _depth_first if variant.replacement == "depth_first" else _round_robin
        replace(ring, tail_slots, tables.flower_set, hands, flowers, replacements)

    wild = None
    if variant.wild == "gold":
        wild = _gold(ring, tail_slots, tables.flower_set, flowers)
    elif variant.wild == "hun":
        wild_throw = throws[[r.purpose for r in plan].index("wild")]
        wild = _hun(ring, tail, sum(wild_throw), tables.flower_set, flowers)

    next_slot = ring.first_live(head)
    record = {
        "schema": SCHEMA,
        "variant": variant.name,
        "params": {**tables.params, "flowers": list(variant.flowers)},
        "tiles_total": variant.tiles,
        "stacks_per_wall": stacks,
        "table": {"id": None, "cycle": None, "set": None, **(table or {}),
                  "dealer_position": d, "prevalent_wind": prevalent_wind},
        # The record's own [top, bottom] lists, made once by the check of the walls.
        "walls": [stacks_copy[p * stacks:(p + 1) * stacks] for p in range(4)],
        "dice": [{"purpose": r.purpose, "thrower": r.thrower_position,
                  "faces": list(throws[i]), "source": sources[i]}
                 for i, r in enumerate(plan)],
        "break": {"wall_position": wall, "count": count,
                  "tail_stack": _stack(tail, stacks), "head_stack": _stack(head, stacks)},
        "seats": {s: seat_position(d, i) for i, s in enumerate(SEATS)},
        "hands": hands,
        "dealt_slots": {s: list(map(list, coords))
                        for s, coords in zip(SEATS, dealt.coords, strict=True)},
        "flowers": flowers,
        "replacements": replacements,
        "wild": wild,
        "next_draw": ring.coords(next_slot) if next_slot is not None else None,
        "live_remaining": ring.remaining(),
        "commitment": layout_commitment(flat, nonce, previous_commitment, next_dice),
    }
    if previous_commitment is not None:
        record["previous_commitment"] = previous_commitment
    if next_dice is not None:
        record["next_dice_commitment"] = next_dice
    return record, nonce


def _stack(ring_index: int, stacks: int) -> list[int]:
    return [(4 - ring_index // stacks) % 4, ring_index % stacks]


def _sources(dice_source, throws: int) -> list[str]:
    if type(dice_source) is str and dice_source in DICE_SOURCES:   # one for every throw
        return [dice_source] * throws
    sources = [dice_source] * throws if isinstance(dice_source, str) else dice_source
    if not isinstance(sources, list | tuple) or len(sources) != throws:
        raise RulesError(_("dice_source: expected one source or a list of {throws}").format(
            throws=throws))
    for s in sources:
        if s not in DICE_SOURCES:
            raise RulesError(_("dice_source: {got} not one of {known}").format(
                got=repr(s), known=", ".join(DICE_SOURCES)))
    return list(sources)


@functools.cache
def _deal_order(deal: str) -> tuple[tuple[int, ...], ...]:
    """For seats E, S, W, N, the indices into the live order D that each takes, in order:
    rounds of 4 (two stacks) per seat, then the jump (dealer D[48] and D[52], S D[49],
    W D[50], N D[51]) or the dealer's 17th tile D[64]."""
    rounds = 3 if deal == "13+jump" else 4
    picks: list[list[int]] = [[] for _ in SEATS]
    for rnd in range(rounds):
        for i in range(len(SEATS)):
            start = 16 * rnd + 4 * i
            picks[i].extend(range(start, start + 4))
    if deal == "13+jump":
        picks[0] += [48, 52]
        picks[1].append(49)
        picks[2].append(50)
        picks[3].append(51)
    else:
        picks[0].append(64)
    return tuple(tuple(p) for p in picks)


@dataclass(frozen=True)
class _Tables:
    """What every deal of one variant shares, worked out once."""

    params: dict        # Variant.params() without the flowers (the record copies those)
    flower_set: frozenset
    break_purposes: frozenset


@functools.lru_cache(maxsize=64)
def _tables(variant: Variant) -> _Tables:
    params = variant.params()
    del params["flowers"]
    return _Tables(params, frozenset(variant.flowers),
                   frozenset({"second_thrower", "break"}))


@dataclass(frozen=True)
class _Dealt:
    """The deal's slots when the live order starts at one stack: the same for every
    deal with that head (a few hundred in all), so kept."""

    slots: tuple[tuple[int, ...], ...]              # per seat E, S, W, N, in order taken
    coords: tuple[tuple[tuple[int, int, int], ...], ...]    # [p, k, level] of those
    taken: bytes                                    # the ring's taken mask after the deal


@functools.lru_cache(maxsize=1024)
def _dealt(deal: str, head: int, stacks: int) -> _Dealt:
    """Deal from the live order D that starts at stack `head`: nothing is taken before
    the deal, so D[i] is plain slot 2·head + i round the ring."""
    ring = Ring.from_layout([None] * (8 * stacks), stacks)
    start = 2 * head
    slots = tuple(tuple((start + i) % ring.size for i in order) for order in _deal_order(deal))
    for seat in slots:
        ring.take_all(seat)     # a slot dealt twice is an engine bug: found here, once
    return _Dealt(slots, tuple(tuple(map(tuple, ring.coords_of(seat))) for seat in slots),
                  bytes(ring.taken))


def _draw(ring: Ring, tail_slots, seat: str, replacements: list[dict]):
    slot = next(tail_slots, None)
    if slot is None:
        raise RulesError(_("walls: the wall ran out during flower replacement"))
    tile = ring.take(slot)
    replacements.append({"seat": seat, "tile": tile, "slot": ring.coords(slot)})
    return tile


def _set_aside(hand: list, flower_set: frozenset, flowers: list) -> int:
    """Move the flowers out of `hand` (a null is never a flower); return how many."""
    if flower_set.isdisjoint(hand):     # most hands: one C-speed look, nothing to move
        return 0
    kept = [t for t in hand if t is None or t not in flower_set]
    moved = [t for t in hand if t is not None and t in flower_set]
    hand[:] = kept
    flowers.extend(moved)
    return len(moved)


def _depth_first(ring, tail_slots, flower_set, hands, flowers, replacements) -> None:
    """Seats E, S, W, N in turn; a seat replaces until it is clean."""
    for s in SEATS:
        owed = _set_aside(hands[s], flower_set, flowers[s])
        while owed:
            tile = _draw(ring, tail_slots, s, replacements)
            owed -= 1
            if tile is not None and tile in flower_set:
                flowers[s].append(tile)
                owed += 1
            else:
                hands[s].append(tile)


def _round_robin(ring, tail_slots, flower_set, hands, flowers, replacements) -> None:
    """Each round every seat, E first, replaces the flowers it held at the round's
    start; flowers drawn wait for the next round."""
    owed = {s: _set_aside(hands[s], flower_set, flowers[s]) for s in SEATS}
    while any(owed.values()):
        drawn_flowers = {s: [] for s in SEATS}
        for s in SEATS:
            for _owed in range(owed[s]):
                tile = _draw(ring, tail_slots, s, replacements)
                if tile is not None and tile in flower_set:
                    drawn_flowers[s].append(tile)
                else:
                    hands[s].append(tile)
        for s in SEATS:
            flowers[s].extend(drawn_flowers[s])
        owed = {s: len(drawn_flowers[s]) for s in SEATS}


def _wild_record(kind: str, ring: Ring, slot: int, set_aside: list[dict]) -> dict:
    indicator = ring.tiles[slot]
    if indicator is None:
        tiles = None
    elif kind == "hun":
        tiles = [indicator, successor(indicator)]
    else:
        tiles = [indicator]
    return {"kind": kind, "indicator": indicator, "indicator_slot": ring.coords(slot),
            "wild_tiles": tiles, "set_aside": set_aside}


def _flip(ring: Ring, slots, flower_set, flowers, kind: str) -> dict:
    """Turn over tiles from `slots` until one is not a flower; flowers go to the
    dealer's flowers (Fuzhou). The turned tile is out of play."""
    set_aside: list[dict] = []
    for slot in slots:
        tile = ring.take(slot)
        if tile is not None and tile in flower_set:
            flowers["E"].append(tile)
            set_aside.append({"tile": tile, "slot": ring.coords(slot)})
            continue
        return _wild_record(kind, ring, slot, set_aside)
    raise RulesError(_("walls: the wall ran out while turning the wild indicator"))


def _gold(ring, tail_slots, flower_set, flowers) -> dict:
    """Fuzhou 金: flip the next tile from the tail."""
    return _flip(ring, tail_slots, flower_set, flowers, "gold")


def _hun(ring: Ring, tail: int, total: int, flower_set, flowers) -> dict:
    """Tianjin 混: count `total` stacks from the tail stack (which is 1) and turn its
    top remaining tile. The tail stack is where the next tail draw comes from."""
    first = next(ring.tail_order(tail), None)
    if first is None:
        raise RulesError(_("walls: no tile left to turn as the wild indicator"))
    ring_size = 4 * ring.stacks
    stack = (first // 2 - (total - 1)) % ring_size
    # Tail order from the counted stack; skipping taken slots gives its top remaining tile.
    return _flip(ring, ring.tail_order(stack), flower_set, flowers, "hun")
