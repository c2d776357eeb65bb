"""The session: 16 hands per variant dealt by the rules engine, random valid wins declared
(or a drawn hand), the tallies, the dealer's moves and the rounds; the 4-2-1-0 standing."""

from __future__ import annotations

import random

import pytest

from rules import deal, load_variant
from rules.errors import RulesError
from rules.scorekeeper import score_request
from rules.scorekeeper.session import Session
from rules.variants import REGISTRY

from ..rules.layouts import random_throws, random_walls
from .hands import random_win

SHAPE = {"mcr": {}, "jingji": {}, "guangdong": {}, "tianjin": {"chow_melds": False},
         "fuzhou": {"sets": 5, "honours": False}}


def _declare(variant: str, record: dict, rng: random.Random) -> tuple[str, dict]:
    """A random valid win for the hand `record` dealt: its wild tile, its set."""
    while True:
        hand = random_win(rng, variant, **SHAPE[variant])
        if variant in ("guangdong", "tianjin"):
            hand["flowers"] = 0
        if variant == "tianjin":
            hand.update(self_drawn=True, hun=record["wild"]["indicator"])
            hand.pop("discarder", None)
        if variant == "fuzhou":
            hand["gold"] = record["wild"]["indicator"]
        try:
            answer = score_request(hand)
        except RulesError:
            continue        # beyond the copies the dealt set holds: declare another
        if answer["win"]:
            return hand["seat_wind"], answer


@pytest.mark.parametrize("variant", list(REGISTRY))
def test_sixteen_hands(variant: str) -> None:
    rng = random.Random(f"session-{variant}")
    v = load_variant(variant)
    session = Session(variant, first_dealer=2)
    for number in range(1, 17):
        dealer, prevalent = session.dealer, session.prevalent
        record = deal(random_walls(variant, rng), random_throws(variant, rng), v, dealer,
                      nonce=f"n{number}")
        if rng.random() < 0.2:
            winner, payments = None, {}
        else:
            winner, answer = _declare(variant, record, rng)
            payments = answer["payments"]
            if not payments:    # a discard win with no discarder named: the self-drawn case
                continue
        before = list(session.scores)
        booked = session.record(winner, payments, cycle=number)
        assert sum(session.scores) == 0
        assert sum(booked["payments"].values()) == 0
        assert [s - b for s, b in zip(session.scores, before, strict=True)] == [
            booked["payments"].get(str(p), 0) for p in range(4)]
        rule = REGISTRY[variant].dealer
        won = booked["winner"]
        stays = rule.after_draw if won is None else rule.after_win and won == dealer
        assert session.dealer == (dealer if stays else (dealer + 1) % 4)
        if not stays and session.dealer == 2:
            assert session.prevalent == prevalent + 1
        else:
            assert session.prevalent == prevalent
    assert len(session.hands) >= 12
    assert Session.from_dict(session.as_dict()) == session


def test_mcr_rounds_turn_every_four_hands() -> None:
    session = Session("mcr", first_dealer=1)
    seen = []
    for _ in range(16):
        seen.append((session.dealer, session.prevalent))
        session.record(None, {})
    assert seen[:5] == [(1, 0), (2, 0), (3, 0), (0, 0), (1, 1)]
    assert session.finished
    with pytest.raises(RulesError):
        session.record(None, {})


def test_guangdong_dealer_keeps_the_deal_on_a_draw_and_his_win() -> None:
    session = Session("guangdong", first_dealer=0)
    session.record(None, {})
    assert session.dealer == 0
    session.record("E", {"E": 3, "S": -1, "W": -1, "N": -1})
    assert session.dealer == 0 and session.scores == [3, -1, -1, -1]
    session.record("S", {"E": -2, "S": 2, "W": 0, "N": 0})
    assert session.dealer == 1 and session.scores == [1, 1, -1, -1]


def test_guangdong_several_winners_on_one_discard_and_the_dealer_among_them() -> None:
    # Seed 004: "允许一炮多响,如果一炮多响包括庄家在内和牌,下一轮庄家继续当庄".
    session = Session("guangdong", first_dealer=0)
    session.record("S", {"E": 0, "S": 2, "W": -2, "N": 0}, cycle=1)
    assert session.dealer == 1
    session.also_won("E", {"E": 4, "S": 0, "W": -4, "N": 0}, cycle=1)
    assert session.dealer == 0 and session.prevalent == 0       # he keeps the deal
    assert session.scores == [4, 2, -6, 0]
    assert [h["winner"] for h in session.hands] == [1, 0]
    assert session.hands[0]["hand"] == session.hands[1]["hand"] == 1
    with pytest.raises(RulesError, match="cycle 2"):
        session.also_won("N", {"E": 0, "S": 0, "W": -1, "N": 1}, cycle=2)
    with pytest.raises(RulesError, match="already"):
        session.also_won("E", {"E": 4, "S": 0, "W": -4, "N": 0}, cycle=1)


def test_fuzhou_draw_passes_the_deal() -> None:
    session = Session("fuzhou", first_dealer=3)
    session.record(None, {})
    assert session.dealer == 0


def test_standard_points_4_2_1_0_and_ties_share() -> None:
    session = Session("jingji", first_dealer=0, scores=[30, -10, 5, -25])
    assert session.standard_points() == [4, 1, 2, 0]
    session.scores = [10, 10, -10, -10]
    assert session.standard_points() == [3, 3, 0.5, 0.5]


def test_payments_that_do_not_balance_are_refused() -> None:
    with pytest.raises(RulesError, match="sum to 1"):
        Session("mcr", 0).record("E", {"E": 1})
