"""The journal's text re-encodes only what changed, and is json.dumps's text byte for byte."""

from __future__ import annotations

import json
import math
import random
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

from firmware.state.fragments import Fragments
from firmware.state.journal import FORMAT, FileJournal, MemoryJournal


class _Both:
    """The journal's two texts: in memory (keys in order) and on file (sorted)."""

    def __init__(self) -> None:
        self.ordered, self.sorted = Fragments(), Fragments(sort_keys=True)

    def encode(self, state: dict[str, Any]) -> None:
        assert self.ordered.encode(state) == json.dumps(state)
        assert self.sorted.encode(state) == json.dumps(state, sort_keys=True)


def _same(fragments: _Both, state: dict[str, Any]) -> None:
    fragments.encode(state)


def test_a_window_of_runs_sliding_and_changing_type_keeps_dumps_text() -> None:
    fragments = _Both()
    runs = [0.44, 0.45, 1, True, None, "é", -0.0, math.inf, -math.inf, math.nan]
    trends = [(29.5, 1.0), (78.4, 1.0001)]
    state: dict[str, Any] = {"timings": {"runs": {"head.0": runs, "build": [25.5]}},
                             "wear": {"trends": trends}, "clean": False, "n": 3}
    _same(fragments, state)
    _same(fragments, state)                 # unchanged: the kept text
    runs.append(0.46)
    del runs[0]                             # the window slides, in place
    _same(fragments, state)
    runs[1] = 1.0                           # equal to 1, written otherwise
    _same(fragments, state)
    runs[1] = 1
    runs[2] = 1                             # True == 1, yet "true" is not "1"
    _same(fragments, state)
    trends.append((403.0, [1, 2]))          # a tuple holding a list: encoded whole
    _same(fragments, state)
    trends[-1][1].append(3)
    _same(fragments, state)
    state["timings"]["runs"]["head.1"] = [[1, 2], {"a": 1}]
    # Keys dumps turns to text, a dict subclass: encoded by dumps itself.
    state["wear"] = {"y": {2: [0.5], 1: 2}, "x": OrderedDict(b=1, a=[2.5])}
    _same(fragments, state)
    state["deep"] = {"a": {"b": {"c": {"d": {"e": [1.5]}}}}}
    _same(fragments, state)
    del state["timings"]
    _same(fragments, state)
    assert "timings" not in fragments.ordered._kept[""]     # nothing kept


def test_a_window_slid_by_any_number_keeps_dumps_text() -> None:
    fragments = _Both()
    runs: list[Any] = [float(n) + 0.5 for n in range(6)]
    state: dict[str, Any] = {"timings": {"runs": {"head.0": runs}}}
    _same(fragments, state)
    runs.append(6.5)                        # grown, nothing gone
    _same(fragments, state)
    del runs[:3]
    runs += [7.5, 8.5]                      # slid by three, two new
    _same(fragments, state)
    runs[:] = [runs[0] + 0.0, *runs[1:]]    # an equal first element, not the same one
    _same(fragments, state)
    runs[:] = [1.5, *runs]                  # a new first element: encoded again
    _same(fragments, state)
    del runs[0]
    runs.append([9])                        # slid on to a list: encoded whole
    _same(fragments, state)
    runs[:] = runs[1:-1]
    _same(fragments, state)
    runs.clear()
    _same(fragments, state)

def test_a_window_handed_as_the_same_tuple_keeps_its_text() -> None:
    fragments = _Both()
    window = (0.5, 1.5, (2.5, 1.0))
    holding = (0.5, [1.5])                  # a tuple holding a list: never kept
    state: dict[str, Any] = {"runs": {"head.0": window, "held": holding}}
    _same(fragments, state)
    _same(fragments, state)                 # the very same tuple: the kept text
    assert fragments.ordered._kept[""]["runs"]["head.0"][0] is window
    holding[1].append(2.5)
    _same(fragments, state)                 # encoded again: what it holds changed
    state["runs"]["head.0"] = (*window[1:], -0.0)   # slid on, a new tuple
    _same(fragments, state)
    state["runs"]["head.0"] = [*state["runs"]["head.0"]]    # a list of the same
    _same(fragments, state)


def test_a_dict_of_atoms_keeps_its_text_while_it_holds_the_same_ones() -> None:
    fragments = _Both()
    as_new = {"head.0": 0.45, "lid.up": 1.0}
    state: dict[str, Any] = {"wear": {"as_new": as_new, "trends": []}}
    _same(fragments, state)
    state["wear"] = {"as_new": dict(as_new), "trends": []}     # a copy: the same atoms
    _same(fragments, state)
    as_new["lid.up"] = 1                    # equal to 1.0, written otherwise
    state["wear"]["as_new"] = as_new
    _same(fragments, state)
    as_new["lid.up"] = True
    as_new["head.0"] = -0.0
    _same(fragments, state)
    state["wear"]["as_new"] = {"lid.up": True, "head.0": -0.0}  # another order
    _same(fragments, state)


def test_what_json_cannot_hold_is_still_refused() -> None:
    journal = MemoryJournal()
    journal.save({"runs": [0.5, 0.6]})
    with pytest.raises(TypeError):
        journal.save({"runs": [0.5, 0.6, object()]})
    with pytest.raises(TypeError):
        journal.save({"runs": [0.5, 0.6], "set": {1, 2}})
    cycle: dict[str, Any] = {}
    cycle["a"] = {"b": {"c": {"d": {"e": cycle}}}}
    with pytest.raises(ValueError):
        journal.save(cycle)
    assert journal.load() == {"runs": [0.5, 0.6]}      # the last good save stands
    # After a refusal, a dict of atoms (encoded whole) is encoded as dumps does.
    good = {"counts": {"a": 1, "b": [2.5]}, "whole": {"x": 1.5, "y": None}}
    journal.save(good)
    assert journal._state == json.dumps(good)


def test_the_file_journal_writes_sorted_dumps_text(tmp_path: Path) -> None:
    journal = FileJournal(tmp_path)
    state: dict[str, Any] = {"wear": {"trends": {"b": [(1.5, 1.0)], "a": []}}, "clean": True}
    for step in range(3):
        state["wear"]["trends"]["b"].append((2.5 + step, 0.99))
        journal.save(state)
        assert journal.path.read_text() == json.dumps({**state, "format": FORMAT},
                                                      sort_keys=True)
    assert journal.load()["wear"]["trends"]["b"][-1] == [4.5, 0.99]


# Atoms as a journal may hand them, the hostile ones too (a subclass, NaN, -0.0, a lone
# surrogate, 1 / 1.0 / True); each draw of a number a fresh object now and then.
_ATOMS: list[Any] = [0.0, -0.0, 1, 1.0, True, False, None, math.nan, math.inf, -math.inf,
                     "é", "\ud800", "", 10**30, 0.1, -7, type("Name", (str,), {})("s")]
_NAMES = ["a", "b", "c", "runs", "as_new"]


def _atom(draw: random.Random) -> Any:
    atom = draw.choice(_ATOMS)
    if type(atom) in (int, float) and draw.random() < 0.3:
        atom = type(atom)(repr(atom))           # equal, not the same object
    return atom


def _drawn(draw: random.Random, depth: int) -> Any:
    k = draw.random()
    if depth > 5 or k < 0.35:
        return _atom(draw)
    if k < 0.5:
        return [_atom(draw) for _ in range(draw.randrange(5))]
    if k < 0.6:
        return tuple(_atom(draw) if draw.random() < 0.8 else (_atom(draw), _atom(draw))
                     for _ in range(draw.randrange(5)))
    if k < 0.7:
        return [_drawn(draw, depth + 1) for _ in range(draw.randrange(3))]
    if k < 0.85:
        return {draw.choice(_NAMES): _atom(draw) for _ in range(draw.randrange(4))}
    return {draw.choice(_NAMES): _drawn(draw, depth + 1) for _ in range(draw.randrange(4))}


def _containers(value: Any, found: dict[int, Any]) -> list[Any]:
    if type(value) in (dict, list) and id(value) not in found:
        found[id(value)] = value
        for item in value.values() if type(value) is dict else value:
            _containers(item, found)
    return list(found.values())


def _as_dumps(fragments: _Both, state: dict[str, Any]) -> bool:
    """Whether dumps takes `state`; either way, both texts do as it does."""
    took = True
    for encode, sort_keys in ((fragments.ordered.encode, False),
                              (fragments.sorted.encode, True)):
        try:
            text = json.dumps(state, sort_keys=sort_keys)
        except (TypeError, ValueError) as exc:     # a cycle, what JSON cannot hold
            with pytest.raises(type(exc)):
                encode(state)
            took = False
        else:
            assert encode(state) == text
    return took


@pytest.mark.parametrize("seed", range(40))
def test_any_run_of_saves_writes_dumps_text(seed: int) -> None:
    """Saves of a state changed in place between them (windows sliding, atoms swapped
    for equal ones, the same objects handed again or under another key, a value that
    changes its kind, a refusal now and then) all write dumps's text."""
    draw = random.Random(seed)
    fragments = _Both()
    state: dict[str, Any] = {"runs": {"head.0": [0.4, 0.5]}, "as_new": {"a": 1.0}}
    seen: list[Any] = []
    for _ in range(80):
        held = _containers(state, {})
        if len(held) > 40:
            state = {"runs": [1.5]}
            held = _containers(state, {})
        into = draw.choice(held)
        k = draw.random()
        if type(into) is dict:
            name = draw.choice(_NAMES)
            if into and k < 0.2:
                del into[draw.choice(list(into))]
            elif k < 0.4 and seen:
                into[name] = draw.choice(seen)      # an object saved before
            else:
                into[name] = into[name] if name in into and k < 0.5 else _drawn(draw, 2)
        elif into and k < 0.4:
            del into[0]
            into.append(_atom(draw))                # the window slides
        elif into and k < 0.6:
            into[draw.randrange(len(into))] = _atom(draw)
        else:
            into.append(draw.choice(seen) if seen and k < 0.7 else _drawn(draw, 3))
        seen = _containers(state, {})[-20:]
        if draw.random() < 0.05:
            state["refused"] = draw.choice([{1, 2}, object()])
            assert not _as_dumps(fragments, state)
            del state["refused"]
        if not _as_dumps(fragments, state):     # an object saved inside itself
            state = {"runs": [2.5]}
