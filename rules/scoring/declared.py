"""A declared win read from its JSON object (docs/scoring.md) and checked for possibility.

Everything a scorer trusts is checked here once: tile codes, meld shapes, the number of
tiles, no tile beyond its copies in the set the table dealt with, flowers only where the
variant has them, winds and flags of the right type. A bad field is a `RulesError` whose
message starts with the path of the field (``melds[1].tiles``), never a score.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..errors import RulesError
from ..i18n import _
from ..tiles import FLOWERS, HONOURS, SUITED, successor

WIND_LETTERS = ("E", "S", "W", "N")
SOURCES = ("left", "across", "right")
MELD_TYPES = ("chow", "pung", "kong")
FLAGS = ("self_drawn", "fourth_tile", "kong", "last_tile")
PLAYABLE = SUITED + HONOURS

# Per variant: tiles in the set, flower codes, tiles in a hand before the winning tile,
# and the variant's own key for its wild tile.
_SETS = {
    "mcr": (144, FLOWERS, 13, None),
    "jingji": (144, FLOWERS, 13, None),
    "guangdong": (136, (), 13, None),
    "tianjin": (136, (), 13, "hun"),
    "fuzhou": (144, FLOWERS + HONOURS, 16, "gold"),
}
VARIANTS = tuple(_SETS)
_KNOWN_KEYS = {"variant", "concealed", "melds", "win_tile", *FLAGS, "flowers", "seat_wind",
               "prevalent_wind", "discarder", "params", "hun", "gold"}


@dataclass(frozen=True)
class Meld:
    """One exposed set, or a concealed kong (`source` None)."""

    type: str                  # chow, pung, kong
    tiles: tuple[str, ...]     # sorted
    claimed: str | None        # the tile taken from another seat
    source: str | None         # left, across, right; None for a concealed kong

    @property
    def concealed(self) -> bool:
        return self.source is None


@dataclass(frozen=True)
class Declared:
    """A declared win, checked (see the module doc)."""

    variant: str
    concealed: tuple[str, ...]   # the standing tiles, the winning tile excluded
    melds: tuple[Meld, ...]
    win_tile: str
    self_drawn: bool
    fourth_tile: bool
    kong: bool                   # robbing a kong (discard) / replacement draw (self-drawn)
    last_tile: bool
    flowers: int
    flower_tiles: tuple[str, ...]  # when the flowers were given as codes, else ()
    seat_wind: int               # 0 E .. 3 N; the dealer is E
    prevalent_wind: int
    discarder: str | None        # left, across, right; None when self-drawn or not given
    wild: str | None             # Tianjin 混 indicator / Fuzhou 金 tile
    params: dict

    @property
    def full_hand(self) -> tuple[str, ...]:
        """The standing tiles with the winning tile."""
        return (*self.concealed, self.win_tile)

    def seat_of(self, source: str) -> int:
        """The seat wind of the player at `source` (left = 上家) seen from the winner."""
        return (self.seat_wind + {"right": 1, "across": 2, "left": 3}[source]) % 4


def wild_tiles(declared: Declared) -> frozenset[str]:
    """The tiles that stand for any other: Tianjin's indicator and its successor, Fuzhou's
    gold tile; none elsewhere."""
    if declared.wild is None:
        return frozenset()
    if declared.variant == "tianjin":
        return frozenset({declared.wild, successor(declared.wild)})
    return frozenset({declared.wild})


def read_declared(obj: object) -> Declared:
    """Check a declared win's JSON object and return it; RulesError on the first problem."""
    if not isinstance(obj, dict):
        raise RulesError(_("expected a JSON object, got {got}").format(got=_json_type(obj)))
    unknown = sorted(set(obj) - _KNOWN_KEYS)
    if unknown:
        raise RulesError(_("{key}: unknown key (known: {known})").format(
            key=unknown[0], known=", ".join(sorted(_KNOWN_KEYS))))
    variant = obj.get("variant")
    if variant is None:
        raise RulesError(_("input: missing key {key}").format(key="'variant'"))
    if variant not in VARIANTS:     # a tuple: an unhashable value is simply not a variant
        raise RulesError(_("variant: unknown {name} (known: {known})").format(
            name=_show(variant), known=", ".join(VARIANTS)))
    set_size, flower_codes, hand_size, wild_key = _SETS[variant]
    concealed = _tiles(obj.get("concealed"), "concealed", flower_codes)
    win_tile = _tile(obj.get("win_tile"), "win_tile", flower_codes)
    melds = _melds(obj.get("melds", []), flower_codes)
    flags = {name: _flag(obj, name) for name in FLAGS}
    held = len(concealed) + 3 * len(melds)
    if held != hand_size:
        raise RulesError(_("concealed: {concealed} tiles and {melds} melds make {held} tiles "
                           "before the winning tile; a {variant} hand holds {size}").format(
            concealed=len(concealed), melds=len(melds), held=held, variant=variant,
            size=hand_size))
    wild = None
    for key in ("hun", "gold"):
        if key in obj and key != wild_key:
            raise RulesError(_("{key}: not a key of the {variant} variant").format(
                key=key, variant=variant))
    if wild_key is not None:
        if obj.get(wild_key) is None:
            raise RulesError(_("{key}: the {variant} variant needs its wild tile").format(
                key=wild_key, variant=variant))
        if obj[wild_key] in flower_codes:
            # A turned flower goes to the dealer's flowers and the next tile is turned.
            raise RulesError(_("{key}: {code} is a flower of the {variant} variant, never "
                               "the turned wild tile").format(
                key=wild_key, code=obj[wild_key], variant=variant))
        wild = _tile(obj[wild_key], wild_key, ())
    flowers, flower_tiles = _flowers(obj.get("flowers", 0), flower_codes, variant)
    seat, prevalent = _wind(obj, "seat_wind"), _wind(obj, "prevalent_wind")
    discarder = obj.get("discarder")
    if discarder is not None:
        if discarder not in SOURCES:
            raise RulesError(_("discarder: {got} is not one of left, across, right").format(
                got=_show(discarder)))
        if flags["self_drawn"]:
            raise RulesError(_("discarder: a self-drawn win has no discarder"))
    params = obj.get("params", {})
    if not isinstance(params, dict):
        raise RulesError(_("params: expected an object, got {got}").format(
            got=_json_type(params)))
    declared = Declared(variant, tuple(concealed), tuple(melds), win_tile, flowers=flowers,
                        flower_tiles=flower_tiles, seat_wind=seat, prevalent_wind=prevalent,
                        discarder=discarder, wild=wild, params=params, **flags)
    _check_copies(declared, set_size)
    _check_flags(declared)
    return declared


def _check_flags(declared: Declared) -> None:
    """How the win was made, against the tiles. PyMahjongGB drops a flag these make
    impossible and scores the rest, so the player would see no 抢杠和, 杠上开花 or 和绝张
    and no reason why."""
    win = declared.win_tile
    if declared.fourth_tile and win in declared.concealed:
        # The other three lie in the discards and the melds: none is left to hold.
        raise RulesError(_("fourth_tile: the last {tile} cannot be the winning tile while "
                           "the hand holds one").format(tile=win))
    if not declared.kong:
        return
    if declared.self_drawn:
        if not any(m.type == "kong" for m in declared.melds):
            raise RulesError(_("kong: a win on a kong's replacement draw needs a kong among "
                               "the melds"))
        return
    if win in declared.concealed or any(win in m.tiles for m in declared.melds):
        # The robbed player's pung holds three and the added tile is the fourth.
        raise RulesError(_("kong: robbing a kong of {tile}: all four are the robbed "
                           "player's, yet the hand holds one").format(tile=win))
    if declared.last_tile:
        raise RulesError(_("kong: no kong is made on the last tile, so none is robbed"))


def _check_copies(declared: Declared, set_size: int) -> None:
    """No tile beyond its copies in the set; the wild indicator is out of play."""
    counts = Counter(declared.full_hand)
    for meld in declared.melds:
        counts.update(meld.tiles)
    for code in declared.flower_tiles:
        counts[code] += 1
    limit = dict.fromkeys(PLAYABLE, 4)
    if set_size == 144:
        limit.update(dict.fromkeys(FLOWERS, 1))
    if declared.wild is not None:
        limit[declared.wild] -= 1   # the turned tile lies out of play (docs/rules.md)
    for code, count in sorted(counts.items()):
        if count > limit[code]:
            raise RulesError(_("{code}: declared {count} times; the set the table dealt holds "
                               "{limit}").format(code=code, count=count, limit=limit[code]))


def _melds(raw: object, flower_codes: tuple[str, ...]) -> list[Meld]:
    if not isinstance(raw, list):
        raise RulesError(_("melds: expected a list, got {got}").format(got=_json_type(raw)))
    return [_meld(item, f"melds[{i}]", flower_codes) for i, item in enumerate(raw)]


def _meld(item: object, where: str, flower_codes: tuple[str, ...]) -> Meld:
    if not isinstance(item, dict):
        raise RulesError(_("{where}: expected an object, got {got}").format(
            where=where, got=_json_type(item)))
    unknown = sorted(set(item) - {"type", "tiles", "claimed", "from"})
    if unknown:
        raise RulesError(_("{where}.{key}: unknown key (known: type, tiles, claimed, "
                           "from)").format(where=where, key=unknown[0]))
    kind = item.get("type")
    if kind not in MELD_TYPES:
        raise RulesError(_("{where}.type: {got} is not one of chow, pung, kong").format(
            where=where, got=_show(kind)))
    tiles = sorted(_tiles(item.get("tiles"), f"{where}.tiles", flower_codes))
    size = 4 if kind == "kong" else 3
    if len(tiles) != size:
        raise RulesError(_("{where}.tiles: a {kind} has {size} tiles, got {got}").format(
            where=where, kind=kind, size=size, got=len(tiles)))
    if kind == "chow":
        _check_chow(tiles, where)
    elif len(set(tiles)) != 1:
        raise RulesError(_("{where}.tiles: a {kind} is {size} of one tile, got {tiles}").format(
            where=where, kind=kind, size=size, tiles=" ".join(tiles)))
    if "from" not in item:
        raise RulesError(_("{where}.from: missing (left, across, right, or null for a "
                           "concealed kong)").format(where=where))
    source = item["from"]
    if source is None:
        # A meld with no discarder is only a concealed kong: never a concealed chow/pung.
        if kind != "kong":
            raise RulesError(_("{where}.from: only a concealed kong has no discarder; a "
                               "{kind} is claimed from left, across or right").format(
                where=where, kind=kind))
        if item.get("claimed") is not None:
            raise RulesError(_("{where}.claimed: a concealed kong claims no tile").format(
                where=where))
        return Meld(kind, tuple(tiles), None, None)
    if source not in SOURCES:
        raise RulesError(_("{where}.from: {got} is not one of left, across, right, "
                           "null").format(where=where, got=_show(source)))
    if kind == "chow" and source != "left":
        raise RulesError(_("{where}.from: a chow is claimed only from the left (上家)").format(
            where=where))
    claimed = item.get("claimed")
    if claimed is None:
        claimed = tiles[0] if kind != "chow" else None
        if claimed is None:
            raise RulesError(_("{where}.claimed: missing: which tile of the chow was "
                               "taken").format(where=where))
    claimed = _tile(claimed, f"{where}.claimed", flower_codes)
    if claimed not in tiles:
        raise RulesError(_("{where}.claimed: {tile} is not in the meld").format(
            where=where, tile=claimed))
    return Meld(kind, tuple(tiles), claimed, source)


def _check_chow(tiles: list[str], where: str) -> None:
    suits = {t[0] for t in tiles}
    if any(t in HONOURS for t in tiles):
        raise RulesError(_("{where}.tiles: a chow of honours ({tiles}) does not exist").format(
            where=where, tiles=" ".join(tiles)))
    numbers = sorted(int(t[1]) for t in tiles)
    if len(suits) != 1 or numbers != list(range(numbers[0], numbers[0] + 3)):
        raise RulesError(_("{where}.tiles: {tiles} is not three consecutive tiles of one "
                           "suit").format(where=where, tiles=" ".join(tiles)))


def _tiles(raw: object, where: str, flower_codes: tuple[str, ...]) -> list[str]:
    if not isinstance(raw, list):
        raise RulesError(_("{where}: expected a list of tile codes, got {got}").format(
            where=where, got=_json_type(raw)))
    return [_tile(code, f"{where}[{i}]", flower_codes) for i, code in enumerate(raw)]


def _tile(code: object, where: str, flower_codes: tuple[str, ...]) -> str:
    if code in flower_codes:
        raise RulesError(_("{where}: {code} is a flower: flowers go in \"flowers\"").format(
            where=where, code=code))
    if code not in PLAYABLE:
        raise RulesError(_("{where}: {got} is not a tile code (W1-W9, B1-B9, T1-T9, F1-F4, "
                           "J1-J3)").format(where=where, got=_show(code)))
    return code


def _flag(obj: dict, name: str) -> bool:
    value = obj.get(name, False)
    if not isinstance(value, bool):
        raise RulesError(_("{key}: expected true or false, got {got}").format(
            key=name, got=_show(value)))
    return value


def _wind(obj: dict, name: str) -> int:
    value = obj.get(name)
    if value not in WIND_LETTERS:
        raise RulesError(_("{key}: {got} is not a wind (E, S, W, N)").format(
            key=name, got=_show(value)))
    return WIND_LETTERS.index(value)


def _flowers(raw: object, codes: tuple[str, ...], variant: str) -> tuple[int, tuple[str, ...]]:
    """A count, or the flower codes themselves (needed where a variant prices a set of
    four); either way only what the variant's set holds."""
    most = sum(1 if c.startswith("H") else 4 for c in codes)
    if isinstance(raw, list):
        for i, code in enumerate(raw):
            if code not in codes:
                raise RulesError(_("flowers[{i}]: {got} is not a flower of the {variant} "
                                   "variant").format(i=i, got=_show(code), variant=variant))
        return len(raw), tuple(raw)
    if type(raw) is not int or not 0 <= raw <= most:
        if not codes:
            raise RulesError(_("flowers: the {variant} variant plays without flowers; "
                               "got {got}").format(variant=variant, got=_show(raw)))
        raise RulesError(_("flowers: {got} is not a count from 0 to {most}").format(
            got=_show(raw), most=most))
    return raw, ()


def _show(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


def _json_type(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "?")
