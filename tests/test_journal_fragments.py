"""The journal's text re-encodes only what changed, and is json.dumps's text byte for byte."""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from typing import Any

import pytest

from firmware.state.fragments import Fragments
from firmware.state.journal import MemoryJournal


def _same(fragments: Fragments, state: dict[str, Any]) -> None:
    assert fragments.encode(state) == json.dumps(state)


def test_a_window_of_runs_sliding_and_changing_type_keeps_dumps_text() -> None:
    fragments = Fragments()
    runs = [0.44, 0.45, 1, True, None, "é", -0.0, math.inf, -math.inf, math.nan]
    trends = [(29.5, 1.0), (78.4, 1.0001)]
    state: dict[str, Any] = {"timings": {"runs": {"head.0": runs}}, "wear": {"trends": trends},
                             "clean": False, "n": 3}
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
    state["wear"] = {1: [0.5], None: 2, "x": OrderedDict(b=1, a=[2.5])}   # keys dumps turns to text
    _same(fragments, state)
    state["deep"] = {"a": {"b": {"c": {"d": {"e": [1.5]}}}}}
    _same(fragments, state)
    del state["timings"]
    _same(fragments, state)
    assert all(path[0] != "timings" for path in fragments._lists)   # nothing kept of it


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
