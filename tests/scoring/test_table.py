"""The table keeps the game: a hand's result entered after it ends, the tallies, the next
dealer's lamp before the dice, the journal and the scores file beside the deal records."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

import rules
from firmware.api.server import hand_in_play
from firmware.hands.scoring import ScoreRefused
from mjtable_core.config import load_config
from rules.variants import REGISTRY
from simulator.harness.runner import Harness, assemble
from simulator.scenario import parse_scenario
from tests.conftest import quick

from .hands import random_win

ENDED = ("opening", "hole_open", "closing")
# The example of docs/scoring.md, self-drawn: a win of 8 points or more.
EXAMPLE = {"concealed": ["W1", "W1", "W1", "B2", "B3", "B4", "J1", "J1", "J1", "F2"],
           "melds": [{"type": "chow", "tiles": ["T1", "T2", "T3"], "claimed": "T2",
                      "from": "left"}], "win_tile": "F2", "self_drawn": True}


def _table(config, variant: str = "mcr", tmp_path=None):
    rules = dataclasses.replace(config.rules, variant=variant,
                                handoff_file=str(tmp_path / "deals.jsonl") if tmp_path else "")
    cfg = dataclasses.replace(quick(config, play_time_s=1.0), rules=rules)
    bench = assemble(cfg, seed=7)      # with the handoff file, when named
    bench.controller.start()
    bench.players.start()
    return bench


def _until(bench, condition, limit: float = 4000.0) -> None:
    bench.clock.run_until(bench.clock.now() + limit, until=condition)
    assert condition()


def _win(rng: random.Random, seat_hint: int) -> dict:
    while True:
        hand = random_win(rng)
        hand["self_drawn"], hand["flowers"] = True, 0
        hand.pop("discarder", None)
        for key in ("variant", "seat_wind", "prevalent_wind"):
            hand.pop(key)
        return hand


def test_sixteen_hands_the_lamps_show_the_next_dealer(config) -> None:
    bench = _table(config)
    ctl = bench.controller
    rng = random.Random(25)
    booked = 0
    for hand in range(1, 17):
        _until(bench, lambda h=hand: len(ctl.handoff.records) >= h
               and ctl.cycle.state in ENDED)
        record = ctl.handoff.records[-1]
        dealer = record["table"]["dealer_position"]
        seat = rng.randrange(4)
        if rng.random() < 0.25:
            result = {"draw": True}
        else:
            result = {"win": _win(rng, seat)}
        answer = ctl.scoring.score(seat, result, hand_in_play(ctl))
        if not answer["booked"]:    # below the minimum: not a win, so the hand is drawn
            answer = ctl.scoring.score(seat, {"draw": True}, hand_in_play(ctl))
        booked += 1
        session = ctl.scoring.session
        assert sum(session.scores) == 0
        won = answer["hand"]["winner"]
        rule = REGISTRY["mcr"].dealer
        stays = rule.after_draw if won is None else rule.after_win and won == dealer
        expected = dealer if stays else (dealer + 1) % 4
        if session.finished:
            # Four rounds: the game is over and the next one's dealer is chosen afresh.
            assert hand == 16 and ctl.scoring.next_dealer() is None
            expected = None
        else:
            assert ctl.scoring.next_dealer() == expected
        # The next walls rise with the next dealer's lamp lit, before any dice.
        _until(bench, lambda h=hand: len(ctl.handoff.records) == h
               and ctl.cycle.state == "dealing" and not ctl.cycle.throws)
        lamps = [bool(bench.hal.read(f"lamp.dealer.{n}")) for n in range(4)]
        assert lamps == [n == expected for n in range(4)]
        _until(bench, lambda h=hand: len(ctl.handoff.records) > h)
        if expected is not None:
            assert ctl.handoff.records[-1]["table"]["dealer_position"] == expected
    assert booked == 16 and len(ctl.scoring.session.hands) == 16
    assert ctl.scoring.session.prevalent == 4       # MCR: four hands a round


def test_refused_while_a_hand_is_in_play_and_twice(config) -> None:
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state == "play")
    with pytest.raises(ScoreRefused, match="a hand is in play"):
        ctl.scoring.score(0, {"draw": True}, hand_in_play(ctl))
    _until(bench, lambda: ctl.cycle.state in ENDED)
    ctl.scoring.score(1, {"draw": True}, hand_in_play(ctl))
    with pytest.raises(ScoreRefused, match="already scored"):
        ctl.scoring.score(1, {"draw": True}, hand_in_play(ctl))


@pytest.mark.parametrize(("result", "expected"), [
    ({"win": {"concealed": ["W1"] * 13, "melds": [], "win_tile": "W1",
              "self_drawn": True}}, "W1: declared 14 times"),
    ({"win": {"concealed": ["W1"] * 13, "melds": [], "win_tile": "W2",
              "self_drawn": True, "flowers": 9}}, "flowers"),
    ({"draw": False}, "draw: expected true"),
    ({"draw": True, "win": {}}, "either"),
])
def test_an_impossible_result_is_refused(config, result, expected) -> None:
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    with pytest.raises(ScoreRefused, match=expected):
        ctl.scoring.score(2, result, hand_in_play(ctl))


def test_the_score_line_goes_beside_the_deal_and_the_session_into_the_journal(
        config, tmp_path) -> None:
    bench = _table(config, tmp_path=tmp_path)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    ctl.scoring.score(3, {"draw": True}, hand_in_play(ctl))
    line = json.loads((tmp_path / "deals.scores.jsonl").read_text().splitlines()[0])
    assert line["schema"] == "mjtable.hand-score/1"
    assert line["commitment"] == ctl.handoff.records[-1]["commitment"]
    assert ctl.table_state.journal_state(False)["session"]["hands"][0]["cycle"] == line["cycle"]


def test_verify_deals_shows_each_hand_with_its_score(config, tmp_path, capsys) -> None:
    from rules.cli import verify_deals_main

    bench = _table(config, tmp_path=tmp_path)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    ctl.scoring.score(3, {"draw": True}, hand_in_play(ctl))
    _until(bench, lambda: len(ctl.handoff.records) >= 2 and ctl.cycle.state in ENDED)
    hand = {"concealed": ["W2", "W3", "W4", "B5", "B5", "B5", "T6", "T7", "T8", "J1", "J1",
                          "J1", "F2"], "melds": [], "win_tile": "F2", "self_drawn": True}
    answer = ctl.scoring.score(1, {"win": hand}, hand_in_play(ctl))
    assert answer["booked"], answer
    deals, scores = tmp_path / "deals.jsonl", tmp_path / "deals.scores.jsonl"
    assert verify_deals_main([str(deals), "--scores", str(scores)]) == 0
    out = capsys.readouterr().out.splitlines()
    first, second = ctl.handoff.records[0], ctl.handoff.records[1]
    assert f"cycle {first['table']['cycle']}: {first['commitment'][:15]}" in out[-2]
    assert out[-2].endswith("drawn")
    assert "won by position 1" in out[-1]
    total = answer["answer"]["total"]
    assert f"1:+{3 * (8 + total)}" in out[-1]
    assert second["commitment"][:15] in out[-1]
    # A score line that names another deal's commitment is reported, not shown as its.
    lines = scores.read_text().splitlines()
    forged = json.loads(lines[0]) | {"commitment": second["commitment"]}
    scores.write_text(json.dumps(forged) + "\n" + lines[1] + "\n")
    assert verify_deals_main([str(deals), "--scores", str(scores)]) == 1
    assert "no deal record of cycle" in capsys.readouterr().err


def test_the_last_hand_of_a_game_is_not_scored_twice(config) -> None:
    # The hand that ends the game (four rounds) must not be booked again into a new game.
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    ctl.scoring.score(1, {"draw": True}, hand_in_play(ctl))
    ctl.scoring.session.prevalent = 4       # as after the sixteenth hand of a game
    assert ctl.scoring.session.finished
    with pytest.raises(ScoreRefused, match="already scored"):
        ctl.scoring.score(1, {"draw": True}, hand_in_play(ctl))
    assert len(ctl.scoring.session.hands) == 1


def test_the_hand_just_ended_can_be_scored_after_a_power_cut(config) -> None:
    # The deal records live in memory; a cut while the lid is open must not leave the
    # players unable to enter the hand they just played.
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    record = ctl.handoff.records[-1]
    saved = json.loads(json.dumps(ctl.table_state.journal_state(False)["session"]))
    ctl.handoff.records.clear()          # a boot: no record in memory, the journal read
    ctl.scoring.restore(saved)
    answer = ctl.scoring.score(2, {"draw": True}, hand_in_play(ctl))
    assert answer["booked"] and answer["hand"]["cycle"] == record["table"]["cycle"]
    assert answer["hand"]["dealer"] == record["table"]["dealer_position"]
    with pytest.raises(ScoreRefused, match="already scored"):
        ctl.scoring.score(2, {"draw": True}, hand_in_play(ctl))


def test_a_player_cannot_set_the_scoring_parameters(config) -> None:
    # A player's own "params" would let him raise the stake of his own win.
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    hand = {"concealed": ["W2", "W3", "W4", "B5", "B5", "B5", "T6", "T7", "T8", "J1", "J1",
                          "J1", "F2"], "melds": [], "win_tile": "F2", "self_drawn": True}
    with pytest.raises(ScoreRefused, match="params"):
        ctl.scoring.score(1, {"win": {**hand, "params": {"unknown": 1}}}, hand_in_play(ctl))
    assert ctl.scoring.session is None


def test_a_fault_during_play_does_not_open_the_hand_to_scoring(config) -> None:
    # A fault stops the table, not the hand: the players still hold their tiles.
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state == "play")
    ctl.fault("storage.failed", "scores", None, {"error": "test"})
    bench.clock.run_until(bench.clock.now() + 1.0)
    assert ctl.cycle.state == "fault"
    with pytest.raises(ScoreRefused, match="a hand is in play"):
        ctl.scoring.score(0, {"draw": True}, hand_in_play(ctl))
    assert ctl.scoring.session is None


def test_a_hand_without_a_deal_record_is_not_scored_as_the_one_before(
        config, monkeypatch) -> None:
    # The engine refused the second hand's walls (a misread tile, say): the hand is played
    # with no deal record. Its result must not be booked on the first hand's record, with
    # that hand's dealer and seat winds.
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    deal = rules.deal

    def refuse_the_second(walls, throws, variant, dealer, **kw):
        if kw["table"]["cycle"] == 2:
            raise rules.RulesError("a tile misread")
        return deal(walls, throws, variant, dealer, **kw)
    monkeypatch.setattr(rules, "deal", refuse_the_second)
    _until(bench, lambda: ctl.cycle.number == 2 and ctl.cycle.state in ENDED)
    assert ctl.handoff.records[-1]["table"]["cycle"] == 1
    with pytest.raises(ScoreRefused, match="cycle 2 has no deal record"):
        ctl.scoring.score(1, {"draw": True}, hand_in_play(ctl))
    assert ctl.scoring.session is None


def test_a_game_of_another_variant_gives_way_to_the_tables_variant(config) -> None:
    # The operator changed [rules] variant and restarted mid-game: the journal brings back
    # a Tianjin game while the table now deals MCR. Scoring by the old game's variant
    # asked every win for a 混 the table never turned: no hand could be scored.
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    ctl.scoring.restore({"variant": "tianjin", "first_dealer": 1, "dealer": 2, "prevalent": 1,
                         "scores": [4, -4, 0, 0], "hands": [{"hand": 1, "cycle": -1}]})
    assert ctl.scoring.next_dealer() is None     # not the old game's dealer on the lamps
    win = EXAMPLE
    answer = ctl.scoring.score(0, {"win": win}, hand_in_play(ctl))
    assert answer["booked"] and ctl.scoring.session.variant == "mcr"
    assert len(ctl.scoring.session.hands) == 1 and sum(ctl.scoring.session.scores) == 0


def test_flowers_are_refused_where_the_table_deals_none(config) -> None:
    # A venue plays MCR without flowers ([rules.overrides] flowers = [], 136 tiles): a
    # winner claiming flowers would add points for tiles the table never dealt.
    bench = _table(config)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    ctl.handoff.variant = dataclasses.replace(ctl.handoff.variant, tiles=136, flowers=(),
                                              replacement="none")
    win = EXAMPLE
    for flowers in (3, ["H1", "H5"]):
        with pytest.raises(ScoreRefused, match="flowers: this table deals no flowers"):
            ctl.scoring.score(0, {"win": {**win, "flowers": flowers}}, hand_in_play(ctl))
    answer = ctl.scoring.score(0, {"win": {**win, "flowers": 0}}, hand_in_play(ctl))
    assert answer["booked"]


def test_a_hand_cut_off_by_the_power_is_not_scored_while_the_table_homes() -> None:
    # The power failed mid-hand. Back on, the table homes and then the hand goes on: a
    # win declared while it homed was booked for a hand the players were still playing.
    raw = {"seed": 7, "cycles": 2, "fault": [{"kind": "power_cut", "where": "power",
                                              "cycle": 1, "phase": "play", "duration_s": 5.0}]}
    harness = Harness(quick(load_config(None), 60.0), parse_scenario(raw, "<test>"))
    harness.boot()
    harness.players.start()
    first = harness.ctl
    harness.clock.run_until(4000.0, until=lambda: harness.ctl is not first)
    ctl = harness.ctl
    assert ctl.cycle.state == "homing" and ctl.cycle.set_in_play is not None
    with pytest.raises(ScoreRefused, match="a hand is in play"):
        ctl.scoring.score(1, {"draw": True}, hand_in_play(ctl))
    assert ctl.scoring.session is None


@pytest.mark.parametrize("hand", [
    {"winner": 0, "payments": {"0": 1000}},                # points out of nowhere
    {"winner": 0, "payments": {"0": 40, "1": -8}},
    {"winner": None, "payments": {"2": 16, "3": -16}},     # a drawn hand pays nothing
])
def test_a_score_line_whose_payments_cannot_be_is_reported(hand: dict) -> None:
    # An edited scores file: every hand the table books pays between its players.
    from rules.scoring.beside import pair_scores

    records = [(1, {"table": {"cycle": 1, "dealer_position": 0}, "commitment": "c1"})]
    line = json.dumps({"cycle": 1, "commitment": "c1", "hand": hand})
    hands, problems = pair_scores(records, [line])
    assert problems == ["scores line 1: not a scored hand (winner and payments)"]
    assert hands[0]["score"] is None


def test_a_failed_declaration_is_fined_in_the_tallies_and_the_hand_goes_on(
        config, tmp_path) -> None:
    # Seed 000: "错和：和牌没有达到起和分(8分)而宣布和牌者即予停和，并罚向各家支付10分该盘继续比赛，
    # 错和者陪打别人和牌后，按规定付分"; "诈和…罚给各家20分".
    from rules.cli import verify_deals_main

    bench = _table(config, tmp_path=tmp_path)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    wrong = {**EXAMPLE, "win_tile": "F3"}          # waiting on F2: 和错牌, fined as 错和
    answer = ctl.scoring.score(2, {"win": wrong}, hand_in_play(ctl))
    assert answer["booked"] is False and answer["fine"]["fine"] == "错和"
    assert answer["scores"][2] == -30 and sorted(answer["scores"]) == [-30, 10, 10, 10]
    # 停和: the fined player does not win this hand; another's result ends it.
    with pytest.raises(ScoreRefused, match="停和"):
        ctl.scoring.score(2, {"win": EXAMPLE}, hand_in_play(ctl))
    booked = ctl.scoring.score(0, {"win": EXAMPLE}, hand_in_play(ctl))
    assert booked["booked"] is True
    total = booked["answer"]["total"]
    assert booked["scores"][0] == 10 + 3 * (8 + total)
    assert booked["scores"][2] == -30 - (8 + total)
    saved = ctl.table_state.journal_state(False)["session"]
    assert saved["fines"][0]["fine"] == "错和" and len(saved["hands"]) == 1
    lines = [json.loads(line) for line in
             (tmp_path / "deals.scores.jsonl").read_text().splitlines()]
    assert "fine" in lines[0] and "hand" in lines[1]
    deals, scores = tmp_path / "deals.jsonl", tmp_path / "deals.scores.jsonl"
    assert verify_deals_main([str(deals), "--scores", str(scores)]) == 0


def test_tianjin_the_dealer_sitting_is_given_at_the_table_and_recorded(tmp_path) -> None:
    # Seed 001: "坐庄：在游戏开始后，玩家拿牌前，庄家可选择是否坐庄，如果坐庄，
    # 庄家胡后其他三家付两倍，若闲家胡，庄家付两倍，闲家付一倍".
    from tests.conftest import CONFIGS
    bench = _table(load_config(CONFIGS["136"]), "tianjin", tmp_path=tmp_path)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    record = ctl.handoff.records[-1]
    # The simulated walls are of unknown tiles: the turned 混 is as the players saw it.
    record["wild"]["indicator"] = "B3"
    wilds = {"B3", rules.tiles.successor("B3")}
    for a, b, c in ("WTB", "WBT", "TWB", "TBW", "BWT", "BTW"):
        su = {"concealed": [f"{a}1", f"{a}2", f"{a}3", f"{a}4", f"{a}5", f"{a}6", f"{b}2",
                            f"{b}3", f"{b}4", f"{b}7", f"{b}7", f"{b}7", f"{c}8"],
              "melds": [], "win_tile": f"{c}8", "self_drawn": True}
        if not wilds & {*su["concealed"], su["win_tile"]}:
            break
    dealer = record["table"]["dealer_position"]
    other = (dealer + 1) % 4
    answer = ctl.scoring.score(other, {"win": {**su, "zuozhuang": True}}, hand_in_play(ctl))
    assert answer["booked"], answer
    paid = answer["hand"]["payments"]
    assert paid[str(dealer)] == -4 and paid[str(other)] == 8      # 素 2; the dealer pays 4
    line = json.loads((tmp_path / "deals.scores.jsonl").read_text().splitlines()[-1])
    assert line["declared"]["win"]["zuozhuang"] is True


def test_tianjin_chan_on_a_drawn_hand_is_booked_and_verified(tmp_path) -> None:
    # Seed 001: "铲…在正常结算之后（无论是否流局），由庄家付给三个闲家每人一个明杠的分".
    from rules.cli import verify_deals_main
    from tests.conftest import CONFIGS

    bench = _table(load_config(CONFIGS["136"]), "tianjin", tmp_path=tmp_path)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    dealer = ctl.handoff.records[-1]["table"]["dealer_position"]
    answer = ctl.scoring.score(dealer, {"draw": {"chan": True, "lazhuang": {"S": 1}}},
                               hand_in_play(ctl))
    assert answer["booked"] is True and answer["hand"]["winner"] is None
    paid = answer["hand"]["payments"]
    assert paid[str(dealer)] == -4 and paid[str((dealer + 1) % 4)] == 2
    assert answer["next_dealer"] == dealer          # "流局，当盘的庄家继续做下一盘的庄家"
    deals, scores = tmp_path / "deals.jsonl", tmp_path / "deals.scores.jsonl"
    assert verify_deals_main([str(deals), "--scores", str(scores)]) == 0


def test_the_competition_lets_a_fined_player_win_by_self_draw(config, tmp_path) -> None:
    # Seed 000, the competition's supplement (4): ""错和"者赔每家10分"诈和"赔每家20分…
    # "诈和""错和"后允许自摸和牌": in `jingji` the fined player may still win by self-draw;
    # a win on a discard stays refused (停和, the rule book's 第十四条).
    bench = _table(config, "jingji", tmp_path=tmp_path)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    fined = ctl.scoring.score(2, {"win": {**EXAMPLE, "win_tile": "F3"}}, hand_in_play(ctl))
    assert fined["fine"]["fine"] == "错和"
    on_a_discard = {**EXAMPLE, "self_drawn": False, "discarder": "left"}
    with pytest.raises(ScoreRefused, match="only by self-draw"):
        ctl.scoring.score(2, {"win": on_a_discard}, hand_in_play(ctl))
    booked = ctl.scoring.score(2, {"win": EXAMPLE}, hand_in_play(ctl))
    assert booked["booked"] is True and booked["hand"]["winner"] == 2
    assert booked["scores"][2] == -30 + 3 * (8 + booked["answer"]["total"])


def test_guangdong_several_winners_on_one_discard_are_each_booked(tmp_path) -> None:
    # Seed 004: "允许一炮多响,如果一炮多响包括庄家在内和牌,下一轮庄家继续当庄": each winner's
    # result is booked for the hand, and the dealer keeps the deal when he is one of them.
    from rules.cli import verify_deals_main
    from tests.conftest import CONFIGS

    bench = _table(load_config(CONFIGS["136"]), "guangdong", tmp_path=tmp_path)
    ctl = bench.controller
    _until(bench, lambda: len(ctl.handoff.records) >= 1 and ctl.cycle.state in ENDED)
    dealer = ctl.handoff.records[-1]["table"]["dealer_position"]
    south, west, north = ((dealer + k) % 4 for k in (1, 2, 3))
    chows = {"concealed": ["W1", "W2", "W3", "W4", "W5", "W6", "B2", "B3", "B4", "T6", "T7",
                           "T8", "W9"], "melds": [], "win_tile": "W9"}     # 平和: 1 番, 2
    first = ctl.scoring.score(south, {"win": {**chows, "discarder": "right",
                                              "also_won": [{"at": "left"}]}}, hand_in_play(ctl))
    assert first["booked"] and first["next_dealer"] == south
    # Only a winner the first named, on the same discard, is booked beside it.
    with pytest.raises(ScoreRefused, match="already scored"):
        ctl.scoring.score(north, {"win": {**chows, "discarder": "left"}}, hand_in_play(ctl))
    with pytest.raises(ScoreRefused, match="discard of position"):
        ctl.scoring.score(dealer, {"win": {**chows, "discarder": "right",
                                           "also_won": [{"at": "across"}]}}, hand_in_play(ctl))
    second = ctl.scoring.score(dealer, {"win": {**chows, "discarder": "across",
                                                "also_won": [{"at": "right"}]}},
                               hand_in_play(ctl))
    assert second["booked"] and second["hand"]["winner"] == dealer
    assert second["next_dealer"] == dealer                   # 庄家继续当庄
    assert second["scores"][west] == -4 and second["scores"][south] == 2
    assert second["scores"][dealer] == 2
    with pytest.raises(ScoreRefused, match="already"):
        ctl.scoring.score(dealer, {"win": {**chows, "discarder": "across",
                                           "also_won": [{"at": "right"}]}}, hand_in_play(ctl))
    deals, scores = tmp_path / "deals.jsonl", tmp_path / "deals.scores.jsonl"
    assert verify_deals_main([str(deals), "--scores", str(scores)]) == 0


def test_verify_deals_shows_every_winner_of_one_discard() -> None:
    # 一炮多响: two score lines for one hand, each a winner's; the hand shows both, and its
    # payments are the two together.
    from rules.scoring.beside import hand_line, pair_scores

    records = [(1, {"table": {"cycle": 1, "dealer_position": 0}, "commitment": "c1"})]
    lines = [json.dumps({"cycle": 1, "commitment": "c1", "hand": {
        "winner": w, "payments": p, "discarder": 2, "also_won": [0]}}) for w, p in (
            (1, {"0": 0, "1": 2, "2": -2, "3": 0}), (0, {"0": 2, "1": 0, "2": -2, "3": 0}))]
    hands, problems = pair_scores(records, lines)
    assert problems == []
    score = hands[0]["score"]
    assert score["winners"] == [1, 0] and score["payments"] == {"0": 2, "1": 2, "2": -4, "3": 0}
    assert "positions 1, 0" in hand_line(hands[0])
    # A hand entered again after a cut, by a winner the first did not name: the last stands.
    again = lines[0].replace('"winner": 1', '"winner": 3')
    hands, _ = pair_scores(records, [lines[0], again])
    assert hands[0]["score"]["winner"] == 3 and "winners" not in hands[0]["score"]
