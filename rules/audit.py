"""Fairness audit over a history of dealt-walls records.

Each test gives its statistic, degrees of freedom and p-value; the verdict is
"suspicious" when any p-value is below `alpha`. Tests (docs/rules.md):

- tile_position: tile kind (W B T F J H) x position (8 ring sectors x 2 levels),
  chi-square of independence. Walls sorted by kind, or kinds favouring a side or
  a level, show here.
- tile_code_position: the same per code x 8 ring sectors, once every expected cell
  count is at least 5.
- carry_over: adjacent tiles (along the ring, circular) of a record that are
  adjacent again in the next record of the same physical set (table id and set;
  a two-set table builds set A from the tiles of the last hand played with A),
  against the exact expectation under a uniform shuffle; one-sided t-test on the
  per-pair excess. Catches an under-mixed set.
- dice_faces: every die face against 1/6 each; dice_sum_Nd6: throw totals against
  the exact N-dice distribution (tail bins pooled to expected >= 5).
- seat_kind: kinds dealt to E, S, W, N (before flower replacement) and left in the
  wall, chi-square of independence.

Records holding unknown (null) tiles are left out of the tile tests.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import product

from .errors import RulesError
from .i18n import _
from .ring import SEATS, Ring
from .stats import chi2_sf, t_sf
from .tiles import KINDS, kind, set_composition
from .validate import validate_walls
from .variants import load_variant

ALPHA = 0.001
SECTORS = 8
MIN_EXPECTED = 5.0
MIN_PAIRS = 10


def audit(records: list[dict], alpha: float = ALPHA) -> dict:
    """Run every test over `records` (handoff dicts, oldest first); see the module doc."""
    if not isinstance(records, list):
        raise RulesError(_("records: expected a list of dealt-walls records"))
    if not 0 < alpha < 1:
        raise RulesError(_("alpha: {alpha} outside (0, 1)").format(alpha=alpha))
    checked = [_check_record(i, r) for i, r in enumerate(records)]
    complete = [r for r in checked if r["complete"]]
    tests = {
        "tile_position": _tile_position(complete),
        "tile_code_position": _tile_code_position(complete),
        "carry_over": _carry_over(checked),
        "dice_faces": _dice_faces(checked),
        **_dice_sums(checked),
        "seat_kind": _seat_kind(complete),
    }
    flagged = [f"{name} (p={t['p_value']:.3g})" for name, t in tests.items()
               if t.get("p_value") is not None and t["p_value"] < alpha]
    ran = [t for t in tests.values() if t.get("p_value") is not None]
    if flagged:
        verdict = "suspicious: " + ", ".join(flagged)
    elif ran:
        verdict = "no evidence of bias"
    else:
        verdict = "not enough data"
    skipped = len(checked) - len(complete)
    return {
        "records": len(records),
        "records_with_null_tiles": skipped,
        "note": (_("{skipped} record(s) with unknown tiles left out of the tile "
                   "tests").format(skipped=skipped) if skipped else None),
        "alpha": alpha,
        "tests": tests,
        "verdict": verdict,
    }


# -- input ---------------------------------------------------------------------------

def _check_record(index: int, record) -> dict:
    where = f"records[{index}]"
    if not isinstance(record, dict):
        raise RulesError(_("{where}: expected a dealt-walls object").format(where=where))
    for key in ("variant", "params", "walls", "dice", "hands", "flowers", "replacements"):
        if key not in record:
            raise RulesError(_("{where}: missing {key}").format(where=where, key=repr(key)))
    try:
        variant = load_variant(record["variant"], record["params"])
        nulls = validate_walls(record["walls"], variant)
    except RulesError as exc:
        raise RulesError(f"{where}.{exc}") from None
    composition = set_composition(variant.tiles)
    _check_dealt(where, record, composition, nulls == 0)
    ring = Ring(record["walls"], variant.stacks_per_wall)
    return {"where": where, "variant": variant, "ring": ring, "complete": nulls == 0,
            "record": record, "composition": composition}


def _check_dealt(where: str, record: dict, composition: dict, complete: bool) -> None:
    """The fields the tests read beyond the walls, in the shapes they read them (a
    crafted file must be refused on one line, not crash a test)."""
    def tile(code: object) -> bool:
        return (code is None and not complete) or (type(code) is str and code in composition)

    for key in ("hands", "flowers"):
        seats = record[key]
        if not (isinstance(seats, dict) and all(
                isinstance(seats.get(seat), list) and all(map(tile, seats[seat]))
                for seat in SEATS)):
            raise RulesError(_("{where}.{key}: expected the tiles of each seat E, S, W, "
                               "N").format(where=where, key=key))
    wild = record.get("wild")
    set_aside = wild.get("set_aside", []) if isinstance(wild, dict) else []
    for key, draws, seat in (("replacements", record["replacements"], None),
                             ("wild.set_aside", set_aside, "E")):
        if not (isinstance(draws, list) and all(
                isinstance(x, dict) and x.get("seat", seat) in SEATS and tile(x.get("tile"))
                for x in draws)):
            raise RulesError(_("{where}.{key}: expected draws of a seat and a tile").format(
                where=where, key=key))
    if not isinstance(record["dice"], list):
        raise RulesError(_("{where}.dice: expected a list of throws").format(where=where))
    table = record.get("table")
    if isinstance(table, dict) and not all(
            isinstance(table.get(k), str | int | None) for k in ("id", "set")):
        raise RulesError(_("{where}.table: id and set must be names").format(where=where))


# -- tests ---------------------------------------------------------------------------

def _pearson(observed: dict, expected: dict) -> float:
    return sum((observed.get(key, 0) - e) ** 2 / e for key, e in expected.items() if e > 0)


def _result(statistic: float, dof: int, **extra) -> dict:
    return {"statistic": round(statistic, 6), "dof": dof,
            "p_value": chi2_sf(statistic, dof), **extra}


def _skipped(reason: str) -> dict:
    return {"statistic": None, "dof": None, "p_value": None, "skipped": reason}


def _sector(slot: int, ring: Ring) -> int:
    return (slot // 2) * SECTORS // (4 * ring.stacks)


def _contingency(complete: list[dict], column, row) -> tuple[Counter, dict]:
    """Observed counts and expected counts (from each record's own margins)."""
    observed: Counter = Counter()
    expected: dict = {}
    for r in complete:
        ring, comp = r["ring"], r["composition"]
        total = ring.size
        col_totals = Counter()
        for code, n in comp.items():
            col_totals[column(code)] += n
        row_totals = Counter(row(slot, ring) for slot in range(total))
        for slot in range(total):
            observed[(row(slot, ring), column(ring.tiles[slot]))] += 1
        for (rw, rn), (cl, cn) in product(row_totals.items(), col_totals.items()):
            expected[(rw, cl)] = expected.get((rw, cl), 0.0) + rn * cn / total
    return observed, expected


def _independence(complete, column, row, label: str) -> dict:
    if not complete:
        return _skipped(_("no record without unknown tiles"))
    observed, expected = _contingency(complete, column, row)
    rows = {k[0] for k in expected}
    cols = {k[1] for k in expected}
    low = min(expected.values())
    if low < MIN_EXPECTED:
        return _skipped(_("too few records for {label} (smallest expected count {low:.2f} "
                          "< {min:g})").format(label=label, low=low, min=MIN_EXPECTED))
    dof = (len(rows) - 1) * (len(cols) - 1)
    return _result(_pearson(observed, expected), dof, records=len(complete))


def _tile_position(complete: list[dict]) -> dict:
    return _independence(complete, kind,
                         lambda slot, ring: (_sector(slot, ring), slot % 2), "kind x position")


def _tile_code_position(complete: list[dict]) -> dict:
    return _independence(complete, lambda code: code, _sector, "code x sector")


def _seat_kind(complete: list[dict]) -> dict:
    """Kinds dealt to each seat before replacement, plus the rest of the wall."""
    if not complete:
        return _skipped(_("no record without unknown tiles"))
    observed: Counter = Counter()
    expected: dict = {}
    for r in complete:
        comp = r["composition"]
        total = sum(comp.values())
        dealt = _initial_hands(r)
        kinds_total = Counter()
        for code, n in comp.items():
            kinds_total[kind(code)] += n
        rest = Counter(kinds_total)
        rows = {}
        for seat in SEATS:
            counts = Counter(kind(c) for c in dealt[seat])
            rows[seat] = sum(counts.values())
            for k, n in counts.items():
                observed[(seat, k)] += n
                rest[k] -= n
        rows["wall"] = total - sum(rows.values())
        for k, n in rest.items():
            observed[("wall", k)] += n
        for (rw, rn), (k, kn) in product(rows.items(), kinds_total.items()):
            expected[(rw, k)] = expected.get((rw, k), 0.0) + rn * kn / total
    low = min(expected.values())
    if low < MIN_EXPECTED:
        return _skipped(_("too few records for seat x kind (smallest expected count "
                          "{low:.2f})").format(low=low))
    kinds = sorted({k for _, k in expected}, key=KINDS.index)
    counts = {seat: {k: observed.get((seat, k), 0) for k in kinds} for seat in SEATS}
    dof = (len(SEATS) + 1 - 1) * (len(kinds) - 1)
    return _result(_pearson(observed, expected), dof, records=len(complete), counts=counts)


def _initial_hands(r: dict) -> dict[str, list]:
    """What each seat was dealt: hand + flowers - replacements (- gold set-asides)."""
    rec = r["record"]
    out = {}
    for seat in SEATS:
        got = Counter(rec["hands"][seat]) + Counter(rec["flowers"][seat])
        got -= Counter(x["tile"] for x in rec["replacements"] if x["seat"] == seat)
        if seat == "E" and rec.get("wild"):
            got -= Counter(x["tile"] for x in rec["wild"].get("set_aside", []))
        out[seat] = list(got.elements())
    return out


def _carry_over(checked: list[dict]) -> dict:
    excess = []
    observed_total = expected_total = 0.0
    for before, after in _same_set_pairs(checked):
        if not (before["complete"] and after["complete"]):
            continue
        a, b = before["ring"].tiles, after["ring"].tiles
        if len(a) != len(b):
            continue
        pairs = {_pair(a[i], a[(i + 1) % len(a)]) for i in range(len(a))}
        seen = sum(_pair(b[i], b[(i + 1) % len(b)]) in pairs for i in range(len(b)))
        expect = _expected_adjacent(pairs, Counter(b))
        excess.append(seen - expect)
        observed_total += seen
        expected_total += expect
    n = len(excess)
    if n < MIN_PAIRS:
        return _skipped(_("{n} pairs of complete records of the same set, need "
                          "{need}").format(n=n, need=MIN_PAIRS))
    mean = sum(excess) / n
    var = sum((x - mean) ** 2 for x in excess) / (n - 1)
    if var == 0:
        t = math.inf if mean > 0 else -math.inf if mean < 0 else 0.0
        p = 0.0 if mean > 0 else 1.0
    else:
        t = mean / math.sqrt(var / n)
        p = t_sf(t, n - 1)
    return {"statistic": round(t, 6) if math.isfinite(t) else t, "dof": n - 1, "p_value": p,
            "pairs": n, "adjacent_again": int(observed_total),
            "expected_uniform": round(expected_total, 3),
            "test": "one-sided t on (observed - expected) per pair of records"}


def _same_set_pairs(checked: list[dict]) -> list[tuple[dict, dict]]:
    """Each record with the one before it of the same physical set: on a two-set table
    the walls of hand i+1 are built from other tiles than those of hand i. Records
    without a set name pair with the one before them without a set name."""
    last: dict[tuple, dict] = {}
    pairs = []
    for r in checked:
        table = r["record"].get("table") or {}
        key = (table.get("id"), table.get("set")) if isinstance(table, dict) else (None, None)
        if key in last:
            pairs.append((last[key], r))
        last[key] = r
    return pairs


def _pair(x: str, y: str) -> tuple[str, str]:
    return (x, y) if x <= y else (y, x)


def _expected_adjacent(pairs: set, counts: Counter) -> float:
    """Expected adjacent positions (of N, circular) showing a pair from `pairs` when the
    tiles with `counts` are uniformly shuffled."""
    n = sum(counts.values())
    prob = 0.0
    for x, y in pairs:
        if x == y:
            prob += counts[x] * (counts[x] - 1)
        else:
            prob += 2 * counts[x] * counts[y]
    return n * prob / (n * (n - 1))


def _throws(checked: list[dict]):
    for r in checked:
        for i, throw in enumerate(r["record"]["dice"]):
            faces = throw.get("faces") if isinstance(throw, dict) else None
            if (not isinstance(faces, list) or not faces
                    or not all(isinstance(f, int) and 1 <= f <= 6 for f in faces)):
                raise RulesError(_("{where}: faces must be integers 1–6").format(
                    where=f"{r['where']}.dice[{i}]"))
            yield faces


def _dice_faces(checked: list[dict]) -> dict:
    faces = Counter(f for throw in _throws(checked) for f in throw)
    total = sum(faces.values())
    if total < 6 * MIN_EXPECTED:
        return _skipped(_("{total} dice faces, need {need:g}").format(
            total=total, need=6 * MIN_EXPECTED))
    expected = {f: total / 6 for f in range(1, 7)}
    return _result(_pearson(faces, expected), 5, faces=total,
                   counts={str(f): faces.get(f, 0) for f in range(1, 7)})


def _sum_distribution(dice: int) -> dict[int, float]:
    dist = Counter({0: 1})
    for _die in range(dice):
        nxt: Counter = Counter()
        for s, w in dist.items():
            for f in range(1, 7):
                nxt[s + f] += w
        dist = nxt
    return {s: w / 6 ** dice for s, w in sorted(dist.items())}


def _pool(bins: list[tuple[int, float]], total: int) -> list[list[int]]:
    """Merge tail bins until each expected count is at least MIN_EXPECTED."""
    groups = [[s] for s, _ in bins]
    probs = [p for _, p in bins]
    changed = True
    while changed and len(groups) > 1:
        changed = False
        for end in (0, -1):
            if len(groups) > 1 and probs[end] * total < MIN_EXPECTED:
                j = 1 if end == 0 else -2
                groups[j] = sorted(groups[j] + groups[end])
                probs[j] += probs[end]
                del groups[end], probs[end]
                changed = True
    return groups


def _dice_sums(checked: list[dict]) -> dict:
    by_dice: dict[int, Counter] = {}
    for throw in _throws(checked):
        by_dice.setdefault(len(throw), Counter())[sum(throw)] += 1
    out = {}
    for dice, sums in sorted(by_dice.items()):
        name = f"dice_sum_{dice}d6"
        total = sum(sums.values())
        dist = _sum_distribution(dice)
        groups = _pool(list(dist.items()), total)
        if len(groups) < 2 or min(sum(dist[s] for s in g) for g in groups) * total < MIN_EXPECTED:
            out[name] = _skipped(_("{total} throws of {dice} dice are too few").format(
                total=total, dice=dice))
            continue
        observed = {i: sum(sums.get(s, 0) for s in g) for i, g in enumerate(groups)}
        expected = {i: total * sum(dist[s] for s in g) for i, g in enumerate(groups)}
        out[name] = _result(_pearson(observed, expected), len(groups) - 1, throws=total)
    return out
