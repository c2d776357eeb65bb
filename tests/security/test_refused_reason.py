"""A handoff the rules engine refuses (a misread tile) must not tell anyone, while
that hand is in play, which tile sits where: the engine's reason names both. It is
shown once the next walls rise, like the walls themselves."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

import firmware.hands.handoff as handoff_module
import rules
from firmware.hands.handoff import public_event
from mjtable_core.config import load_config
from simulator.harness.runner import assemble
from tests.conftest import quick

REASON = "walls[2][5][0]: B5 appears 5 times, the set holds 4"


def test_a_refusal_names_no_tile_while_its_hand_is_in_play(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real_deal, calls = rules.deal, itertools.count()

    def deal(*args: Any, **kwargs: Any) -> dict[str, Any]:
        if next(calls) == 1:
            raise rules.RulesError(REASON)
        return real_deal(*args, **kwargs)

    monkeypatch.setattr(handoff_module.rules, "deal", deal)
    bench = assemble(quick(load_config(), play_time_s=1.0), seed=12)
    ctl = bench.controller
    shown: list[tuple[str, dict[str, Any]]] = []     # (cycle state, event as served)
    ctl.subscribers.append(lambda e: shown.append((ctl.cycle.state, public_event(e))))
    ctl.start()
    bench.players.start()
    bench.clock.run_until(20000.0, until=lambda: len(ctl.handoff.records) >= 3)
    kinds = [e["kind"] for _, e in shown]
    refused = kinds.index("handoff.refused")
    # From the refusal until the next walls rise (the reason comes first then), nothing
    # served names it.
    end = min(kinds.index(k, refused) for k in ("walls.committed", "handoff.refused.revealed")
              if k in kinds[refused:])
    during = json.dumps([e for _, e in shown[refused:end]])
    assert "B5" not in during and "walls[2]" not in during
    revealed = kinds.index("handoff.refused.revealed")
    assert shown[revealed][1]["reason"] == REASON
    assert shown[revealed][1]["cycle"] == shown[refused][1]["cycle"]
