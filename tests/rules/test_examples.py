"""Hand-computed deals, one per variant, and the source rule texts' worked examples.

Coordinates in comments: [p, k] = wall p, stack k from its owner's right end;
ring index rho(p, k) = ((4 - p) mod 4) * L + k.
"""

import pytest

from rules import deal, load_variant, next_throw
from rules.ring import landing, rho, stack_of
from rules.tiles import successor

from .layouts import at, placed_walls, stacks_tiles


def test_dice_to_seat_table_of_seed_000():
    # 庄为东，占数为5、9点；庄下家为南点2、6、10点；庄对门为西，点3、7、11点；庄上家为北
    for dealer in range(4):
        for total, offset in [(5, 0), (9, 0), (2, 1), (6, 1), (10, 1), (3, 2), (7, 2),
                              (11, 2), (4, 3), (8, 3), (12, 3)]:
            assert landing(dealer, total) == (dealer + offset) % 4


def test_ring_index_runs_clockwise_into_the_wall_to_the_left():
    assert rho(0, 0, 18) == 0 and rho(0, 17, 18) == 17
    assert rho(3, 0, 18) == 18  # after wall 0 comes the wall of position 3 (p - 1)
    assert rho(1, 17, 18) == 71
    for i in range(72):
        assert rho(*stack_of(i, 18), 18) == i


def test_competition_total_7_grabs_from_the_opposite_players_7th_stack():
    # 如7即为从对家的第七墩抓牌: dealer 2, 3 + 4 = 7 -> wall 0, the dealer takes stack 7.
    walls = placed_walls("jingji", rho(0, 6, 18), {})
    record = deal(walls, [[3, 4]], "jingji", 2, nonce="n")
    assert record["break"] == {"wall_position": 0, "count": 7, "tail_stack": [0, 6],
                               "head_stack": [0, 6]}
    assert record["hands"]["E"][:2] == [at(walls, 0, 6, 0), at(walls, 0, 6, 1)]


@pytest.mark.parametrize("indicator, wild", [("B3", ["B3", "B4"]), ("T9", ["T9", "T1"]),
                                             ("F3", ["F3", "F4"]), ("F4", ["F4", "F1"]),
                                             ("J3", ["J3", "J1"])])
def test_tianjin_hun_indicators_of_seed_001(indicator, wild):
    assert [indicator, successor(indicator)] == wild
    # Dealer 0, 2 + 3 = 5 on the dealer's own wall: tail [0, 4], first stack [0, 5].
    # 对家 throws 4 + 5 = 9: count 9 stacks from the tail stack -> ring 4 - 8 = -4
    # = 64 -> [1, 13]; its top tile is the indicator.
    walls = placed_walls("tianjin", rho(0, 5, 17), {(1, 13, 0): indicator})
    record = deal(walls, [[2, 3], [4, 5]], "tianjin", 0, nonce="n")
    assert record["wild"]["indicator_slot"] == [1, 13, 0]
    assert record["wild"]["indicator"] == indicator
    assert record["wild"]["wild_tiles"] == wild
    assert record["dice"][1] == {"purpose": "wild", "thrower": 2, "faces": [4, 5],
                                 "source": "simulated"}


def test_mcr_two_throws_flowers_depth_first():
    # Dealer 1 throws 1 + 2 = 3 -> the 对家 (position 3) throws 3 + 3: C = 9 on wall 3.
    # r = rho(3, 0) + 8 = 26 = [3, 8]; h = 27 = [3, 9].
    walls = placed_walls("mcr", 27, {(3, 10, 1): "H1",   # E's 4th tile
                                     (3, 8, 0): "H2",    # first tail tile: E again
                                     (2, 9, 0): "H3"})   # S's round-3 first tile
    v = load_variant("mcr")
    assert next_throw(v, 1, []).thrower_position == 1
    assert next_throw(v, 1, [[1, 2]]).thrower_position == 3
    record = deal(walls, [[1, 2], [3, 3]], v, 1, nonce="n")
    assert record["break"] == {"wall_position": 3, "count": 9, "tail_stack": [3, 8],
                               "head_stack": [3, 9]}
    assert [d["thrower"] for d in record["dice"]] == [1, 3]
    assert [d["purpose"] for d in record["dice"]] == ["second_thrower", "break"]
    e = stacks_tiles(walls, [(3, 9), (3, 10), (3, 17), (2, 0), (2, 7), (2, 8)])
    e += [at(walls, 2, 15, 0), at(walls, 2, 17, 0)]
    e.remove("H1")
    e.append(at(walls, 3, 8, 1))
    s = stacks_tiles(walls, [(3, 11), (3, 12), (2, 1), (2, 2), (2, 9), (2, 10)])
    s += [at(walls, 2, 15, 1)]
    s.remove("H3")
    s.append(at(walls, 3, 7, 0))
    w = stacks_tiles(walls, [(3, 13), (3, 14), (2, 3), (2, 4), (2, 11), (2, 12)])
    w += [at(walls, 2, 16, 0)]
    n = stacks_tiles(walls, [(3, 15), (3, 16), (2, 5), (2, 6), (2, 13), (2, 14)])
    n += [at(walls, 2, 16, 1)]
    assert record["hands"] == {"E": e, "S": s, "W": w, "N": n}
    assert record["flowers"] == {"E": ["H1", "H2"], "S": ["H3"], "W": [], "N": []}
    assert record["replacements"] == [
        {"seat": "E", "tile": "H2", "slot": [3, 8, 0]},
        {"seat": "E", "tile": at(walls, 3, 8, 1), "slot": [3, 8, 1]},
        {"seat": "S", "tile": at(walls, 3, 7, 0), "slot": [3, 7, 0]}]
    assert record["next_draw"] == [2, 17, 1]
    assert record["live_remaining"] == 144 - 53 - 3
    assert record["seats"] == {"E": 1, "S": 2, "W": 3, "N": 0}
    assert record["wild"] is None


def test_jingji_head_offset_0_tail_skips_the_dealt_stack():
    # Dealer 2, 3 + 4 = 7 -> wall 0, C = 7: r = h = [0, 6]. A flower in E's hand is
    # replaced from [0, 5] because the tail stack itself was dealt.
    walls = placed_walls("jingji", 6, {(0, 6, 1): "H1"})
    record = deal(walls, [[3, 4]], "jingji", 2, nonce="n")
    e = stacks_tiles(walls, [(0, 6), (0, 7), (0, 14), (0, 15), (3, 4), (3, 5)])
    e += [at(walls, 3, 12, 0), at(walls, 3, 14, 0)]
    e.remove("H1")
    e.append(at(walls, 0, 5, 0))
    assert record["hands"]["E"] == e
    assert record["hands"]["N"] == stacks_tiles(
        walls, [(0, 12), (0, 13), (3, 2), (3, 3), (3, 10), (3, 11)], [(3, 13, 1)])
    assert record["replacements"] == [{"seat": "E", "tile": at(walls, 0, 5, 0),
                                       "slot": [0, 5, 0]}]
    assert record["next_draw"] == [3, 14, 1]


def test_guangdong_three_dice_count_runs_into_the_next_wall():
    # Dealer 3, 6 + 6 + 6 = 18 -> wall (3 + 17) mod 4 = 0; C = 18 > L = 17:
    # r = rho(0, 0) + 17 = 17 = [3, 0]; h = [3, 1].
    walls = placed_walls("guangdong", 18, {})
    record = deal(walls, [[6, 6, 6]], "guangdong", 3, nonce="n")
    assert record["break"] == {"wall_position": 0, "count": 18, "tail_stack": [3, 0],
                               "head_stack": [3, 1]}
    assert record["hands"]["E"] == stacks_tiles(
        walls, [(3, 1), (3, 2), (3, 9), (3, 10), (2, 0), (2, 1)], [(2, 8, 0), (2, 10, 0)])
    assert record["hands"]["W"] == stacks_tiles(
        walls, [(3, 5), (3, 6), (3, 13), (3, 14), (2, 4), (2, 5)], [(2, 9, 0)])
    assert record["next_draw"] == [2, 10, 1]
    assert record["live_remaining"] == 136 - 53
    assert record["flowers"] == {"E": [], "S": [], "W": [], "N": []}


def test_tianjin_break_on_the_dealers_own_wall():
    # Dealer 1 throws 6 + 6 = 12: own wall 1, r = rho(1, 0) + 11 = 62 = [1, 11].
    walls = placed_walls("tianjin", 63, {})
    record = deal(walls, [[6, 6], [1, 1]], "tianjin", 1, nonce="n")
    assert record["break"]["tail_stack"] == [1, 11]
    assert record["break"]["head_stack"] == [1, 12]
    assert record["hands"]["E"][:4] == stacks_tiles(walls, [(1, 12), (1, 13)])
    # 混 throw 2: the second stack from the tail stack, [1, 10].
    assert record["wild"]["indicator_slot"] == [1, 10, 0]
    assert record["live_remaining"] == 136 - 53 - 1
    # h + 26 = 89 = ring 21 = [3, 4]
    assert record["next_draw"] == [3, 4, 1]


def test_fuzhou_sixteen_plus_one_round_robin_and_gold():
    # Dealer 0 throws 1 + 1 = 2 -> wall 1: r = rho(1, 0) + 1 = 55 = [1, 1], h = [1, 2].
    walls = placed_walls("fuzhou", 56, {
        (1, 2, 0): "F1",     # E's first tile
        (0, 14, 1): "H1",    # N's round-4 second tile
        (1, 1, 0): "J1",     # first tail tile, drawn by E: waits for round 2
        (1, 0, 1): "H2",     # turned for gold: to the dealer's flowers
        (2, 17, 0): "B5"})   # turned next: the gold
    record = deal(walls, [[1, 1]], "fuzhou", 0, nonce="n")
    assert record["break"] == {"wall_position": 1, "count": 2, "tail_stack": [1, 1],
                               "head_stack": [1, 2]}
    assert record["replacements"] == [
        {"seat": "E", "tile": "J1", "slot": [1, 1, 0]},
        {"seat": "N", "tile": at(walls, 1, 1, 1), "slot": [1, 1, 1]},
        {"seat": "E", "tile": at(walls, 1, 0, 0), "slot": [1, 0, 0]}]
    assert record["flowers"] == {"E": ["F1", "J1", "H2"], "S": [], "W": [], "N": ["H1"]}
    e = stacks_tiles(walls, [(1, 2), (1, 3), (1, 10), (1, 11), (0, 0), (0, 1),
                             (0, 8), (0, 9)], [(0, 16, 0)])
    e.remove("F1")
    e.append(at(walls, 1, 0, 0))
    assert record["hands"]["E"] == e
    n = stacks_tiles(walls, [(1, 8), (1, 9), (1, 16), (1, 17), (0, 6), (0, 7),
                             (0, 14), (0, 15)])
    n.remove("H1")
    n.append(at(walls, 1, 1, 1))
    assert record["hands"]["N"] == n
    assert [len(h) for h in record["hands"].values()] == [17, 16, 16, 16]
    assert record["wild"] == {"kind": "gold", "indicator": "B5", "indicator_slot": [2, 17, 0],
                              "wild_tiles": ["B5"],
                              "set_aside": [{"tile": "H2", "slot": [1, 0, 1]}]}
    assert record["next_draw"] == [0, 16, 1]
    assert record["live_remaining"] == 144 - 65 - 4 - 1
    assert record["params"]["reserve"] == 18
