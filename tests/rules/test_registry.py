"""The variants as a registry: one module per variant, found by the package; an unknown
variant refused with one line everywhere a name is read; a new variant is one module."""

from __future__ import annotations

import dataclasses
import importlib
import random
import sys
import textwrap

import pytest

import rules.variants as variants
from mjtable_core.config import load_config
from mjtable_core.schema import ConfigError
from rules import RulesError, deal, deal_request
from rules.scorekeeper import known_keys, score_request
from rules.scorekeeper.session import Session
from rules.variants import REGISTRY, VARIANTS, check_table_config, load_variant

from .layouts import random_throws, random_walls


def test_one_module_per_variant_in_order() -> None:
    assert list(REGISTRY) == ["mcr", "jingji", "guangdong", "tianjin", "fuzhou"]
    for name, rules in REGISTRY.items():
        assert rules.deal is VARIANTS[name] and rules.deal.name == name
        assert importlib.import_module(f"rules.variants.{name}").RULES is rules
        # Its scorer is a module of rules/scoring/, below the registry (import-linter).
        assert rules.score.__module__.rpartition(".")[0] == "rules.scoring"
        assert rules.score_drawn in (None, getattr(
            sys.modules[rules.score.__module__], "score_drawn", None))


def _hostile_names() -> list[object]:
    return ["riichi", "mcr\nfuzhou", "", 10 ** 4000, ["mcr"], {"a": 1}, True]


@pytest.mark.parametrize("name", _hostile_names(), ids=repr)
def test_an_unknown_variant_is_one_line_everywhere(name: object) -> None:
    rng = random.Random(1)
    attempts = [
        lambda: load_variant(name),
        lambda: score_request({"variant": name}),
        lambda: Session(name, first_dealer=0),
        lambda: deal_request({"variant": name, "dealer_position": 0,
                              "walls": random_walls("mcr", rng),
                              "throws": random_throws("mcr", rng)}),
    ]
    for attempt in attempts:
        with pytest.raises(RulesError) as info:
            attempt()
        text = str(info.value)
        assert text.startswith("variant: unknown ") and "\n" not in text, text
        assert "(known: mcr, jingji, guangdong, tianjin, fuzhou)" in text
        assert len(text) < 120


def test_an_unknown_variant_in_the_table_config(tmp_path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(load_config().source and _config_text().replace(
        'variant = "mcr"', 'variant = "riichi"'), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "[rules] variant: got 'riichi', allowed: one of 'mcr', 'jingji'" in str(info.value)
    assert "\n" not in str(info.value)


def _config_text() -> str:
    from pathlib import Path
    text = Path(load_config().source).read_text(encoding="utf-8")
    if "[rules]" not in text:
        text += '\n[rules]\nvariant = "mcr"\n'
    assert 'variant = "mcr"' in text
    return text


KANSAI = textwrap.dedent('''
    """A variant for the test: MCR's deal, Guangdong's scorer, its own key and dealer."""
    from dataclasses import dataclass

    from mjtable_core.schema import option
    from rules.tiles import FLOWERS
    from rules.rulebook import BASE_DEAL, DealerRule, Variant, VariantRules
    from rules.scoring.guangdong import score


    @dataclass(frozen=True)
    class Params:
        cap: int = option(3, minval=0, maxval=13)
        pinghu_honour_pair: bool = option(True)
        discard_pays: str = option("discarder", choices=("discarder", "all"))
        kong_robbed_pays_all: bool = option(True)
        minimum: int = option(1, minval=0, maxval=13)


    RULES = VariantRules(
        name="kansai", order=9,
        deal=Variant(name="kansai", tiles=144, stacks_per_wall=18, flowers=FLOWERS,
                     replacement="depth_first", **BASE_DEAL),
        dealer=DealerRule(after_win=True, after_draw=False),
        score=score, params=Params,
        keys=frozenset({"passed_win"}))
''')


def test_a_new_variant_is_one_module(tmp_path, monkeypatch) -> None:
    """A module dropped into the package is dealt, scored, booked and checked in the
    table's config, with nothing else edited."""
    package = tmp_path / "rules_variants_extra"
    monkeypatch.setattr(variants, "__path__", [*variants.__path__, str(package)])
    package.mkdir()
    (package / "kansai.py").write_text(KANSAI, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "rules.variants.kansai", raising=False)
    found = variants._discover()
    assert list(found)[-1] == "kansai"
    monkeypatch.setitem(REGISTRY, "kansai", found["kansai"])
    monkeypatch.setitem(VARIANTS, "kansai", found["kansai"].deal)
    rng = random.Random(3)
    record = deal(random_walls("mcr", rng), random_throws("jingji", rng), load_variant("kansai"),
                  1, nonce="n")
    assert record["variant"] == "kansai"
    concealed = "W1 W2 W3 W4 W5 W6 B2 B3 B4 T6 T7 T8 F1"
    win = {"variant": "kansai", "concealed": concealed.split(),
           "melds": [], "win_tile": "F1", "seat_wind": "S", "prevalent_wind": "E",
           "discarder": "left"}
    assert "passed_win" in known_keys()
    answer = score_request(win)
    assert answer["win"] and answer["total"] == 1           # 平和, its own minimum 1
    assert not score_request({**win, "passed_win": True})["win"]
    assert "hun: not a key of the kansai" in _refused({**win, "hun": "W1"})
    session = Session("kansai", first_dealer=1)
    session.record(None, {})
    assert session.dealer == 2                               # its own dealer rule
    config = load_config()
    config = dataclasses.replace(config, rules=dataclasses.replace(config.rules,
                                                                   variant="kansai"))
    check_table_config(config)


def _refused(obj: dict) -> str:
    with pytest.raises(RulesError) as info:
        score_request(obj)
    return str(info.value)
