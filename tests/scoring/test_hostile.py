"""A hostile scorekeeper: every malformed declared win is one line on stderr and exit 2,
never a traceback - huge numbers, newlines, keys given twice, any value in any key of
any variant, the new keys of round two included."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjtable.cli import main
from rules.scorekeeper import known_keys
from rules.variants import REGISTRY

from .test_fuzhou import PLAIN, fz
from .test_mcr import EXAMPLE
from .test_tianjin import tj

GOOD = {"mcr": EXAMPLE, "jingji": {**EXAMPLE, "variant": "jingji"},
        "guangdong": {"variant": "guangdong", "concealed": [*EXAMPLE["concealed"][:-1], "W9"],
                      "melds": EXAMPLE["melds"], "win_tile": "W9", "seat_wind": "S",
                      "prevalent_wind": "E", "discarder": "left"},
        "tianjin": tj("W1 W2 W3 W4 W5 W6 T2 T3 T4 T7 T7 T7 B8", "B8"),
        "fuzhou": fz(PLAIN, "T2", 1)}
HUGE = 10 ** 4000


def run(tmp_path, capsys, text: str) -> tuple[int, str, str]:
    path = tmp_path / "win.json"
    path.write_text(text, encoding="utf-8")
    code = main(["score", str(path), "--json"])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(code: int, out: str, err: str) -> None:
    assert code in (0, 2), (code, err)
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("mjtable score: "), err
        assert "Traceback" not in err
    else:
        answer = json.loads(out)
        assert sum(answer["payments"].values()) == 0


def test_every_good_hand_scores(tmp_path, capsys) -> None:
    for variant, good in GOOD.items():
        code, _out, err = run(tmp_path, capsys, json.dumps(good))
        assert code == 0, (variant, err)


@pytest.mark.parametrize(("variant", "params"), [
    ("guangdong", {"cap": HUGE}), ("guangdong", {"cap": 10 ** 9}), ("guangdong", {"minimum": -1}),
    ("tianjin", {"base": HUGE}), ("tianjin", {"base": 10 ** 12}), ("tianjin", {"su": 0}),
    ("fuzhou", {"base": HUGE}), ("fuzhou", {"jinque": 10 ** 30}), ("fuzhou", {"base": 0}),
])
def test_a_huge_or_out_of_range_parameter(tmp_path, capsys, variant: str, params: dict) -> None:
    code, _out, err = run(tmp_path, capsys, json.dumps({**GOOD[variant], "params": params}))
    assert code == 2 and err.count("\n") == 1, err
    assert f"params.{next(iter(params))}: " in err and "is not from" in err
    assert len(err) < 300


@pytest.mark.parametrize("text", [
    '{"variant": "mcr", "variant": "fuzhou"}',
    json.dumps(EXAMPLE)[:-1] + ', "seat_wind": "N"}',
    json.dumps({**EXAMPLE, "melds": [{"type": "pung", "tiles": ["W9"] * 3, "from": "left"}]})
    .replace('"from": "left"', '"from": "left", "from": "across"'),
    json.dumps({**GOOD["tianjin"], "lazhuang": {"S": 1}}).replace('"S": 1', '"S": 1, "S": 2'),
])
def test_a_key_given_twice_is_refused(tmp_path, capsys, text: str) -> None:
    code, _out, err = run(tmp_path, capsys, text)
    assert code == 2 and "is given twice" in err and err.count("\n") == 1, err


@pytest.mark.parametrize(("change", "shown"), [
    ({"variant": "mcr\nfuzhou"}, "'mcr\\nfuzhou'"),
    ({"seat_wind": "E\nS"}, '"E\\nS"'),
    ({"params\nx": 1}, '"params\\nx": unknown key'),
    ({"flowers": HUGE}, "a number of about 4001 digits"),
    ({"variant": HUGE}, "a number of about 4001 digits"),
    ({"discarder": "\x1b[2J"}, "\\u001b[2J"),
])
def test_newlines_controls_and_huge_numbers_shown_on_one_line(tmp_path, capsys, change: dict,
                                                              shown: str) -> None:
    code, _out, err = run(tmp_path, capsys, json.dumps({**EXAMPLE, **change},
                                                     ensure_ascii=False))
    assert code == 2 and err.count("\n") == 1 and shown in err, err


_leaf = (st.none() | st.booleans() | st.integers()
         | st.integers(min_value=10 ** 30, max_value=10 ** 40) | st.just(HUGE)
         | st.floats() | st.text(max_size=6)
         | st.sampled_from(["W1", "B5", "T5", "F1", "H1", "E", "S", "left", "across", "added",
                            "concealed", "mcr\n", "bianfeng", "\u2028", "\x1b"]))
_json = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["at", "jinque", "tiles_left", "exposed_kongs", "S", "E", "W", "base",
                     "cap", "scheme", "type", "tiles", "from", "claimed", "x\ny"]),
    inner, max_size=3), max_leaves=8)
_KEYS = sorted(known_keys() | {"draw"})


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variant=st.sampled_from(list(REGISTRY)),
       value=st.dictionaries(st.sampled_from([*_KEYS, "x\ny"]), _json, max_size=4),
       twice=st.sampled_from([None, *_KEYS]))
def test_any_value_in_any_key_of_any_variant(tmp_path, capsys, variant: str, value: dict,
                                             twice: str | None) -> None:
    text = json.dumps({**GOOD[variant], **value})
    if twice is not None:
        text = text[:-1] + f', "{twice}": 0}}'
    one_line(*run(tmp_path, capsys, text))


_FACTS = {
    "also_won": st.lists(st.fixed_dictionaries(
        {"at": st.sampled_from(["left", "across", "right"])},
        optional={"jinque": st.booleans()}), max_size=2),
    "passed_win": st.booleans(), "kong_robbed": st.sampled_from(["added", "concealed"]),
    "zuozhuang": st.booleans(), "chan": st.booleans(), "hun_discarded": st.booleans(),
    "lazhuang": st.dictionaries(st.sampled_from(["S", "W", "N"]), st.integers(0, 2)),
    "qiangjin": st.booleans(),
    "wall": st.fixed_dictionaries({"tiles_left": st.integers(0, 144)}, optional={
        "exposed_kongs": st.integers(0, 4), "concealed_kongs": st.integers(0, 4),
        "flower_sets": st.integers(0, 3)}),
}


@settings(max_examples=400, deadline=None)
@given(variant=st.sampled_from(list(REGISTRY)), seed=st.integers(0, 2 ** 32),
       data=st.data())
def test_plausible_hands_with_every_fact_score_or_are_refused(variant: str, seed: int,
                                                             data) -> None:
    """Hands that are mostly right, with the variant's facts at random: an answer whose
    payments sum to zero, or one RulesError line; never another exception."""
    import random

    from bench.rules.bench_score import random_hand
    from rules.errors import RulesError
    from rules.scorekeeper import score_request

    hand = random_hand(variant, random.Random(seed))
    for key in sorted(REGISTRY[variant].keys - {"hun", "gold"}):
        if data.draw(st.booleans()):
            hand[key] = data.draw(_FACTS[key])
    if data.draw(st.booleans()):
        hand["kong"] = True
    try:
        answer = score_request(hand)
    except RulesError as exc:
        assert "\n" not in str(exc)
        return
    assert sum(answer["payments"].values()) == 0
    if answer["win"]:
        assert answer["total"] >= 0
