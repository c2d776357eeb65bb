"""Variants as data and venue overrides."""

import pytest

from rules import VARIANTS, RulesError, load_variant


def test_table_of_rules_md():
    rows = {name: (v.tiles, v.stacks_per_wall, v.dice, v.break_throws, v.break_wall,
                   v.head_offset, v.deal, len(v.flowers), v.replacement, v.wild, v.reserve)
            for name, v in VARIANTS.items()}
    assert rows == {
        "mcr": (144, 18, 2, 2, "dice", 1, "13+jump", 8, "depth_first", "none", 0),
        "jingji": (144, 18, 2, 1, "dice", 0, "13+jump", 8, "depth_first", "none", 0),
        "guangdong": (136, 17, 3, 1, "dice", 1, "13+jump", 0, "none", "none", 0),
        "tianjin": (136, 17, 2, 1, "dealer", 1, "13+jump", 0, "none", "hun", 0),
        "fuzhou": (144, 18, 2, 1, "dice", 1, "16+1", 15, "round_robin", "gold", 18),
    }
    assert set(load_variant("fuzhou").flowers) >= {"F1", "F4", "J1", "J3", "H1", "H8"}


def test_params_round_trip_as_overrides():
    for name, v in VARIANTS.items():
        assert load_variant(name, v.params()) == v


def test_override_changes_one_parameter():
    v = load_variant("mcr", {"head_offset": 0, "replacement": "round_robin"})
    assert (v.head_offset, v.replacement, v.tiles) == (0, "round_robin", 144)


def test_tiles_override_derives_stacks_per_wall():
    v = load_variant("guangdong", {"tiles": 144, "flowers": [f"H{i}" for i in range(1, 9)],
                                   "replacement": "depth_first"})
    assert v.stacks_per_wall == 18


@pytest.mark.parametrize("name, overrides, message", [
    ("riichi", None, "variant: unknown 'riichi' (known: mcr, jingji, guangdong, tianjin, fuzhou)"),
    ("mcr", {"head_ofset": 1}, "overrides.head_ofset: unknown option (valid options here: "),
    ("mcr", {"head_offset": "1"}, "overrides.head_offset: got '1', expected integer"),
    ("mcr", {"head_offset": True}, "overrides.head_offset: got True, expected integer"),
    ("mcr", {"head_offset": 2}, "overrides.head_offset: got 2, allowed: from 0 to 1"),
    ("mcr", {"dice": 4}, "overrides.dice: got 4, allowed: from 1 to 3"),
    ("mcr", {"tiles": 140}, "overrides.tiles: got 140, allowed: one of 136, 144"),
    ("mcr", {"tiles": 144.0}, "overrides.tiles: got 144.0, expected integer"),
    ("mcr", {"wild": "joker"}, "overrides.wild: got 'joker', allowed: one of 'none', 'hun',"),
    ("mcr", {"flowers": "H1-H8"}, "overrides.flowers: got 'H1-H8', expected list of string"),
    ("mcr", {"flowers": ["H9"]}, "overrides.flowers: got 'H9', allowed: a tile code"),
    ("mcr", {"flowers": ["F1"]}, "overrides.flowers: a 144-tile set needs H1–H8"),
    ("guangdong", {"flowers": ["H1"]}, "overrides.flowers: H1 is not in the 136-tile set"),
    ("mcr", {"stacks_per_wall": 17, "tiles": 144}, "overrides.stacks_per_wall: 17 stacks"),
    ("mcr", {"replacement": "none"}, "overrides.replacement: 'none' but the variant has"),
    ("guangdong", {"replacement": "depth_first"}, "overrides.replacement: 'depth_first' but"),
    ("mcr", ["head_offset"], "overrides: expected a table of parameters, got list"),
    ("mcr", {"flowers": ["H1", "H1"]}, "overrides.flowers: a code is listed twice"),
])
def test_bad_variant_or_override_says_what_and_where(name, overrides, message):
    with pytest.raises(RulesError) as info:
        load_variant(name, overrides)
    text = str(info.value)
    assert text.startswith(message)
    assert "\n" not in text


def test_variant_is_frozen():
    with pytest.raises(AttributeError):
        load_variant("mcr").tiles = 136
