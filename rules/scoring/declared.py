"""A declared win read from its JSON object (docs/scoring.md) and checked for possibility.

Everything a scorer trusts is checked here once: tile codes, meld shapes, the number of
tiles, no tile beyond its copies in the set the table dealt with, flowers only where the
variant has them, winds and flags of the right type, and the facts of how the hand went
(the variants' own keys: 漏和, 坐庄, 抢金, the wall...) against the tiles and each other.
Which keys a variant reads, its set and its wild tile are its module's in rules/variants/;
reading is given that variant's `VariantRules` (`declared_under`), and finding them by
name is the scorekeeper's (rules/scorekeeper/, `read_declared`), above the registry.
A bad field is a `RulesError` whose message starts with the path of the field
(``melds[1].tiles``), never a score.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..errors import RulesError, shown
from ..i18n import _
from ..rulebook import Variant, VariantRules
from ..tiles import FLOWERS, HONOURS, SUITED, successor

WIND_LETTERS = ("E", "S", "W", "N")
SOURCES = ("left", "across", "right")
MELD_TYPES = ("chow", "pung", "kong")
FLAGS = ("self_drawn", "fourth_tile", "kong", "last_tile")
PLAYABLE = SUITED + HONOURS
# Keys every variant reads; a variant's own keys (its module's `keys`) are refused in
# the others, so a fact one rule book prices is never silently ignored by another.
COMMON_KEYS = {"variant", "concealed", "melds", "win_tile", *FLAGS, "flowers", "seat_wind",
                "prevalent_wind", "discarder", "params"}
KONG_ROBBED = ("added", "concealed")
# The wall at the win (Fuzhou's tiles left): each count's most.
_WALL_KEYS = {"tiles_left": 144, "exposed_kongs": 16, "concealed_kongs": 16,
              "flower_sets": 9}


@dataclass(frozen=True)
class Claim:
    """Another player who declared a win on the same discard (seat wind; 金雀 in Fuzhou)."""

    seat: int
    jinque: bool = False


@dataclass(frozen=True)
class Wall:
    """The wall when the hand was won: tiles still in it, and what lengthens the reserve
    (every player's exposed and concealed kongs, sets of four alike flowers)."""

    tiles_left: int
    exposed_kongs: int = 0
    concealed_kongs: int = 0
    flower_sets: int = 0


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
    also_won: tuple[Claim, ...] = ()   # others who won on the same discard
    passed_win: bool = False     # 漏和: the winning tile passed since the winner's last move
    kong_robbed: str | None = None   # "added" (加杠) or "concealed" (暗杠) when robbing
    zuozhuang: bool = False      # Tianjin 坐庄: the dealer sits for double
    lazhuang: dict[int, int] = field(default_factory=dict)  # Tianjin 拉庄: seat -> 1 or 2
    chan: bool = False           # Tianjin 铲: the three others followed the dealer's first discard
    hun_discarded: bool = False  # Tianjin 小相公: the winner discarded a 混 this hand
    qiangjin: bool = False       # Fuzhou 抢金: won with the first tile
    wall: Wall | None = None
    deal: Variant = field(kw_only=True)   # the variant's deal row: its set, wild, reserve

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
    if declared.deal.wild == "hun":
        return frozenset({declared.wild, successor(declared.wild)})
    return frozenset({declared.wild})


def declared_under(rules: VariantRules, obj: dict) -> Declared:
    """Check a declared win's JSON object under the variant `rules` and return it;
    RulesError on the first problem. Its keys are known ones (the caller checked them
    against every variant's) and its "variant" names `rules`."""
    variant = rules.name
    others = sorted(set(obj) - COMMON_KEYS - rules.keys)
    if others:
        raise RulesError(_("{key}: not a key of the {variant} variant").format(
            key=others[0], variant=variant))
    set_size, flower_codes = rules.deal.tiles, rules.deal.flowers
    hand_size, wild_key = rules.deal.hand_size, rules.wild_key
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
                        discarder=discarder, wild=wild, params=params, **flags,
                        **_facts(obj, seat), deal=rules.deal)
    _check_copies(declared, set_size)
    _check_flags(declared)
    _check_facts(declared)
    return declared


def _facts(obj: dict, seat: int) -> dict:
    """The keys of how the hand went (docs/scoring.md, "How the hand went"), read; the
    registry has already refused those the variant does not read."""
    out: dict = {}
    for name in ("passed_win", "chan", "zuozhuang", "hun_discarded", "qiangjin"):
        if name in obj:
            out[name] = _flag(obj, name)
    if obj.get("kong_robbed") is not None:
        if obj["kong_robbed"] not in KONG_ROBBED:
            raise RulesError(_("kong_robbed: {got} is not one of added, concealed").format(
                got=_show(obj["kong_robbed"])))
        out["kong_robbed"] = obj["kong_robbed"]
    if "also_won" in obj:
        out["also_won"] = _claims(obj["also_won"], seat)
    if "lazhuang" in obj:
        out["lazhuang"] = _lazhuang(obj["lazhuang"], seat)
    if "wall" in obj:
        out["wall"] = _wall(obj["wall"])
    return out


def _claims(raw: object, seat: int) -> tuple[Claim, ...]:
    if not isinstance(raw, list):
        raise RulesError(_("also_won: expected a list, got {got}").format(
            got=_json_type(raw)))
    out: list[Claim] = []
    for i, item in enumerate(raw):
        where = f"also_won[{i}]"
        if not isinstance(item, dict):
            raise RulesError(_("{where}: expected an object, got {got}").format(
                where=where, got=_json_type(item)))
        unknown = sorted(set(item) - {"at", "jinque"})
        if unknown:
            raise RulesError(_("{where}.{key}: unknown key (known: at, jinque)").format(
                where=where, key=_name(unknown[0])))
        if item.get("at") not in SOURCES:
            raise RulesError(_("{where}.at: {got} is not one of left, across, right").format(
                where=where, got=_show(item.get("at"))))
        jinque = _flag(item, "jinque", where)
        claim = Claim((seat + {"right": 1, "across": 2, "left": 3}[item["at"]]) % 4, jinque)
        if any(c.seat == claim.seat for c in out):
            raise RulesError(_("{where}.at: {at} is listed twice").format(
                where=where, at=item["at"]))
        out.append(claim)
    return tuple(out)


def _lazhuang(raw: object, seat: int) -> dict[int, int]:
    if not isinstance(raw, dict):
        raise RulesError(_("lazhuang: expected an object of seat winds, got {got}").format(
            got=_json_type(raw)))
    out = {}
    for wind, times in raw.items():
        if wind not in WIND_LETTERS[1:]:
            raise RulesError(_("lazhuang.{wind}: only the dealer's three others (S, W, N) "
                               "pull the dealer (拉庄)").format(wind=_name(wind)))
        # "每个闲家最多可拉两次庄"
        out[WIND_LETTERS.index(wind)] = _count(times, f"lazhuang.{wind}", 0, 2)
    return out


def _wall(raw: object) -> Wall:
    if not isinstance(raw, dict):
        raise RulesError(_("wall: expected an object, got {got}").format(got=_json_type(raw)))
    unknown = sorted(set(raw) - set(_WALL_KEYS))
    if unknown:
        raise RulesError(_("wall.{key}: unknown key (known: {known})").format(
            key=_name(unknown[0]), known=", ".join(_WALL_KEYS)))
    if "tiles_left" not in raw:
        raise RulesError(_("wall.tiles_left: missing"))
    return Wall(**{key: _count(raw[key], f"wall.{key}", 0, most)
                   for key, most in _WALL_KEYS.items() if key in raw})


def _count(value: object, where: str, least: int, most: int) -> int:
    if type(value) is not int or not least <= value <= most:
        raise RulesError(_("{where}: {got} is not a count from {least} to {most}").format(
            where=where, got=_show(value), least=least, most=most))
    return value


def _check_facts(declared: Declared) -> None:
    """The new facts against each other and the tiles: a fact that cannot have happened is
    refused, never scored."""
    discard_win = not declared.self_drawn
    if declared.also_won:
        if not discard_win or declared.discarder is None:
            raise RulesError(_("also_won: several wins on one discard need a discard win "
                               "and its discarder"))
        if any(c.seat == declared.seat_of(declared.discarder) for c in declared.also_won):
            raise RulesError(_("also_won: the discarder does not win on his own discard"))
        if declared.deal.wild != "gold" and any(c.jinque for c in declared.also_won):
            raise RulesError(_("also_won: jinque (金雀, two 金 as the pair) is Fuzhou's; the "
                               "{variant} variant has no 金").format(variant=declared.variant))
    if declared.passed_win and not discard_win:
        # "除非玩家A有进行动牌的情况…动牌的意思在于碰、上、杠、模牌": a draw ends 漏和.
        raise RulesError(_("passed_win: a self-drawn win is a move, which ends 漏和"))
    if declared.kong_robbed is not None and not (declared.kong and discard_win):
        raise RulesError(_("kong_robbed: only on a win robbing a kong (\"kong\" on a "
                           "discard win)"))
    if declared.qiangjin and (not declared.self_drawn or declared.melds):
        raise RulesError(_("qiangjin: 抢金 is won with a player's first tile: self-drawn, "
                           "nothing claimed"))
    if declared.wall is not None:
        _check_wall(declared, declared.wall)


def _check_wall(declared: Declared, wall: Wall) -> None:
    exposed = sum(1 for m in declared.melds if m.type == "kong" and not m.concealed)
    hidden = sum(1 for m in declared.melds if m.type == "kong" and m.concealed)
    if exposed > wall.exposed_kongs or hidden > wall.concealed_kongs:
        raise RulesError(_("wall: counts every player's kongs; the winner alone shows "
                           "{exposed} exposed and {hidden} concealed").format(
            exposed=exposed, hidden=hidden))


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
    if declared.wild is not None and not declared.qiangjin:
        # The turned tile lies out of play (docs/rules.md), unless 抢金 took it in:
        # "庄家开局时出首张牌时打出一张没用的牌，将开出来的金换进".
        limit[declared.wild] -= 1
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


def _flag(obj: dict, name: str, where: str = "") -> bool:
    value = obj.get(name, False)
    if not isinstance(value, bool):
        raise RulesError(_("{key}: expected true or false, got {got}").format(
            key=f"{where}.{name}" if where else name, got=_show(value)))
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


def _name(key: str) -> str:
    """A key from the input: bare when it is a plain name, else quoted and escaped."""
    return key if key.isidentifier() and key.isascii() and len(key) <= 40 else _show(key)


def _show(value: object) -> str:
    return shown(value)


def _json_type(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "?")
