"""Variants as data and venue overrides."""

from pathlib import Path

import pytest

from rules import VARIANTS, RulesError, load_variant
from rules.variants import PARAMETERS


def _shown(name: str, value: object) -> str:
    """A deal parameter as docs/rules.md's variant table writes it."""
    if name != "flowers":
        return str(value)
    if not value:
        return "–"
    runs = []
    for letter in "HFJ":
        codes = sorted(c for c in value if c[0] == letter)
        if codes:
            runs.append(f"{codes[0]}–{codes[-1]}")
    return ", ".join(runs)


def test_table_of_rules_md():
    """docs/rules.md's table is read by people; each variant's module is the one place its
    row is written. They must agree, column for column, a new variant's included."""
    text = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    head = next(line for line in text.splitlines() if line.startswith("| parameter | meaning"))
    columns = [c.strip() for c in head.strip("|").split("|")][2:]
    assert columns == list(VARIANTS), "docs/rules.md's variant table needs a column each"
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 2 + len(columns):
            rows[cells[0].strip("`")] = dict(zip(columns, cells[2:], strict=True))
    assert set(rows) == set(PARAMETERS)
    for name, v in VARIANTS.items():
        for parameter in PARAMETERS:
            assert rows[parameter][name] == _shown(parameter, getattr(v, parameter)), (
                name, parameter)
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


def test_a_row_checked_once_is_kept_and_a_refused_one_refused_again():
    overrides = {"head_offset": 0, "replacement": "round_robin"}
    assert load_variant("mcr", dict(overrides)) is load_variant("mcr", dict(overrides))
    assert load_variant("mcr", {"head_offset": 1}).head_offset == 1
    for _ in range(2):      # kept by the values' types too: True is no 1
        with pytest.raises(RulesError, match="got True, expected integer"):
            load_variant("mcr", {"head_offset": True})
