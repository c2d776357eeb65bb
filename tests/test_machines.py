"""Each state machine against a scripted HAL: what it drives, and when."""

from __future__ import annotations

from firmware.controller import compose_table
from firmware.state.journal import MemoryJournal
from mjtable_core.clock import VirtualClock
from tests.conftest import ScriptedHal, events_of, run_for
from tests.steps import fill_all, homed, lid_down, lid_up, raise_and_deal


def test_power_on_homes_then_builds(rig) -> None:
    _ctl, hal, _clock = rig
    homed(rig)
    assert hal.safe_calls >= 1
    assert hal.values["motor.disc"] and hal.values["motor.ring"]
    assert all(hal.values[f"motor.side.{n}.conveyor"] for n in range(4))
    assert hal.values["lamp.building"] is True


def test_power_on_rehomes_a_cam_found_off_home(rig) -> None:
    ctl, hal, clock = rig
    hal.values["side.2.plate_home"] = False
    ctl.start()
    assert hal.values["motor.side.2.plate"] is True
    assert ctl.cycle.state == "homing"
    hal.edge("side.2.plate_home", True)
    run_for(clock, 0.1)
    assert hal.values["motor.side.2.plate"] is False
    assert ctl.cycle.state == "play"


def test_lid_opens_and_stops_at_upper(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    ctl.lid.open()
    assert hal.values["motor.lid"] == "up"
    hal.edge("lid.lower", False)
    run_for(clock, 1.2)         # above the minimum travel, 0.7 of the learned 1.5 s
    hal.edge("lid.upper", True)
    assert hal.values["motor.lid"] == "off"
    assert ctl.lid.state == "open"


def test_lid_not_rising_is_a_fault_with_motors_off(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    events = events_of(ctl)
    ctl.lid.open()
    run_for(clock, 10.0)
    faults = [e for e in events if e["kind"] == "fault"]
    assert [f["id"] for f in faults] == ["lid.not_rising"]
    assert faults[0]["code"] == "E10"
    assert faults[0]["evidence"]["waited_s"] == 3.0      # k·T = 2 × 1.5 s
    assert hal.motors_off()
    assert hal.values["display"] == "E10"
    assert ctl.cycle.state == "fault"


def test_lid_sensor_conflict(rig) -> None:
    ctl, hal, _clock = rig
    homed(rig)
    hal.edge("lid.upper", True)          # lower is active too
    assert ctl.faults[-1].id == "lid.sensor_conflict"
    assert hal.motors_off()


def test_side_stacks_each_tile_and_stops_at_target(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    side = ctl.sides[1]
    for i in range(side.target):
        hal.values["side.1.tile_id"] = f"W{i % 9 + 1}"
        hal.edge("side.1.count", True)
        assert hal.values["motor.side.1.head"] is True
        hal.edge("side.1.count", False)
        hal.edge("side.1.head_home", False)
        run_for(clock, 0.4)
        hal.edge("side.1.head_home", True)
        assert hal.values["motor.side.1.head"] is False
    run_for(clock, 0.1)      # the side's last home counts once it has held
    assert side.state == "full"
    assert hal.values["motor.side.1.conveyor"] is False
    assert side.counted == side.stacked == 36
    # First tile of a pair is the bottom, the second the top.
    assert side.stacks()[0] == ["W2", "W1"]
    assert len(side.stacks()) == 18


def test_a_last_home_that_opens_with_the_motor_off_was_a_glitch(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    side = ctl.sides[1]
    side.target = 1
    hal.edge("side.1.count", True)
    hal.edge("side.1.head_home", False)
    run_for(clock, 0.4)
    hal.edge("side.1.head_home", True)       # the cam stops here: home, or a glitch
    assert hal.values["motor.side.1.head"] is False
    run_for(clock, 0.02)
    hal.edge("side.1.head_home", False)      # a stopped cam cannot leave home
    run_for(clock, 0.1)
    assert side.state == "stacking" and side.stacked == 0
    assert hal.values["motor.side.1.head"] is True      # the turn runs on to its tile
    run_for(clock, 0.3)
    hal.edge("side.1.head_home", True)
    run_for(clock, 0.1)
    assert side.state == "full" and side.stacked == 1
    assert hal.values["motor.side.1.head"] is False


def test_head_keeps_turning_while_tiles_wait(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.0.count", True)
    run_for(clock, 0.1)
    hal.edge("side.0.count", False)
    run_for(clock, 0.1)
    hal.edge("side.0.count", True)           # a second tile waits at the head
    hal.edge("side.0.head_home", False)
    run_for(clock, 0.25)
    hal.edge("side.0.head_home", True)       # first turn done: one still waiting
    assert hal.values["motor.side.0.head"] is True
    hal.edge("side.0.head_home", False)
    run_for(clock, 0.45)
    hal.edge("side.0.head_home", True)
    assert hal.values["motor.side.0.head"] is False
    assert ctl.sides[0].stacked == 2


def test_home_edge_too_early_is_a_glitch(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    events = events_of(ctl)
    hal.edge("side.1.count", True)
    hal.edge("side.1.head_home", False)
    run_for(clock, 0.05)
    hal.edge("side.1.head_home", True)         # a tenth of a turn: impossible
    assert hal.values["motor.side.1.head"] is True and ctl.sides[1].stacked == 0
    assert [e["kind"] for e in events] == ["sensor.glitch"]
    hal.edge("side.1.head_home", False)
    run_for(clock, 0.4)
    hal.edge("side.1.head_home", True)
    assert hal.values["motor.side.1.head"] is False and ctl.sides[1].stacked == 1


def test_count_bounce_is_ignored_and_a_double_count_is_a_fault(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.2.count", True)
    run_for(clock, 0.002)
    hal.edge("side.2.count", False)
    hal.edge("side.2.count", True)             # 2 ms: bounce of the same tile
    assert ctl.sides[2].counted == 1 and not ctl.faults
    run_for(clock, 0.02)
    hal.edge("side.2.count", False)
    hal.edge("side.2.count", True)             # 22 ms: no second tile can be there yet
    fault = ctl.faults[-1]
    assert (fault.id, fault.code, fault.where) == ("count.double", "E42", "side.2.count")
    assert ctl.sides[2].counted == 1
    # Only the build stops: lid and dice stay with the players.
    assert not any(hal.values[f"motor.side.{n}.head"] for n in range(4))
    assert hal.values["motor.disc"] is False
    assert ctl.cycle.state == "play"


def test_count_edges_are_timed_by_the_boards_stamp(rig) -> None:
    # Over a noisy link the first tile's edge was retransmitted: it reaches the
    # firmware 50 ms late, 20 ms before the next tile's. The board saw them 70 ms
    # apart, and so does the count: two tiles, no double.
    ctl, hal, clock = rig
    homed(rig)
    start = clock.now()
    run_for(clock, 0.05)
    hal.edge("side.2.count", True, at=start)
    run_for(clock, 0.01)
    hal.edge("side.2.count", False, at=start + 0.01)
    run_for(clock, 0.01)
    hal.edge("side.2.count", True, at=start + 0.07)
    assert ctl.sides[2].counted == 2 and not ctl.faults
    # Stamped 3 ms after that tile, an edge is its bounce however late it arrives.
    run_for(clock, 0.1)
    hal.edge("side.2.count", False, at=start + 0.072)
    hal.edge("side.2.count", True, at=start + 0.073)
    assert ctl.sides[2].counted == 2 and not ctl.faults


def test_full_belt_without_counts_is_blind(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.3.full", True)
    run_for(clock, 3.5)
    fault = ctl.faults[-1]
    assert (fault.id, fault.code) == ("count.blind", "E63")
    assert fault.evidence["belt_full"] is True


def test_no_arrivals_is_tiles_missing_with_the_shortfall(rig) -> None:
    ctl, _hal, clock = rig
    homed(rig)
    run_for(clock, 11.0)
    fault = ctl.faults[-1]
    assert (fault.id, fault.code) == ("build.tiles_missing", "E50")
    assert fault.evidence["missing"] == 144
    assert fault.evidence["short_sides"] == {"0": 36, "1": 36, "2": 36, "3": 36}


def test_clearing_a_jam_finishes_the_turn_and_feeds_again(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.3.count", True)
    hal.edge("side.3.head_home", False)
    run_for(clock, 5.0)
    fault = ctl.faults[-1]
    assert fault.id == "head.jam" and hal.motors_off()
    ctl.clear_fault(fault, by="test")
    assert ctl.may_resume() and ctl.needs_resume()
    ctl.resume_after_fault()
    assert hal.values["motor.side.3.head"] is True       # the interrupted turn goes on
    assert hal.values["motor.disc"] is True
    assert all(hal.values[f"motor.side.{n}.conveyor"] for n in range(4))
    hal.edge("side.3.head_home", True)
    assert ctl.sides[3].stacked == 1 and hal.values["motor.side.3.head"] is False


def test_learned_time_and_drift(rig) -> None:
    ctl, _hal, _clock = rig
    homed(rig)
    supervisor = ctl.supervisor
    assert supervisor.learned("lid.up") == 1.5          # seeded from config
    for _ in range(5):
        ctl.lid.open()
        lid_up(rig)
        ctl.lid.close()
        lid_down(rig)
    assert abs(supervisor.learned("lid.up") - 1.2) < 1e-6   # the mean of recent runs


def slow_lid_run(ctl, hal, clock) -> None:
    ctl.lid.open()
    hal.edge("lid.lower", False)
    run_for(clock, 2.2)                      # slower than T·1.3, faster than k·T
    hal.edge("lid.upper", True)
    ctl.lid.close()
    hal.edge("lid.upper", False)
    run_for(clock, 1.2)
    hal.edge("lid.lower", True)


def test_a_slow_run_warns_only_when_it_recurs(rig) -> None:
    """Finding 10: one slow draw is not a worn mechanism; three of the last five are."""
    ctl, hal, clock = rig
    homed(rig)
    for _ in range(5):
        ctl.lid.open()
        lid_up(rig)
        ctl.lid.close()
        lid_down(rig)
    for _ in range(2):
        slow_lid_run(ctl, hal, clock)
    assert not [f for f in ctl.faults if f.id == "timing.drift"]
    slow_lid_run(ctl, hal, clock)
    drift = [f for f in ctl.faults if f.id == "timing.drift"]
    assert [(f.code, f.where) for f in drift] == [("W90", "lid.up")]
    assert drift[0].evidence["slow_of_last"] == [3, 5]
    assert ctl.lid.state == "closed"        # a warning: the table goes on


def test_head_jam_fault(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("side.3.count", True)
    run_for(clock, 5.0)
    fault = ctl.faults[-1]
    assert (fault.id, fault.code, fault.where) == ("head.jam", "E23", "side.3.head")
    assert hal.motors_off()


def test_disc_pauses_while_every_belt_is_full(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    for n in range(4):
        hal.edge(f"side.{n}.full", True)
    assert hal.values["motor.disc"] is True     # not before the delay
    run_for(clock, 1.0)
    assert ctl.build.state == "paused_full"
    assert hal.values["motor.disc"] is False and hal.values["motor.ring"] is False
    hal.edge("side.2.full", False)
    assert ctl.build.state == "building"
    assert hal.values["motor.disc"] is True


def test_one_belt_with_room_keeps_the_disc_turning(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    for n in range(3):
        hal.edge(f"side.{n}.full", True)
    run_for(clock, 2.0)          # below blind_s: full belts are still being counted
    assert ctl.build.state == "building"


def test_staged_set_lights_ready_and_stops_everything(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    run_for(clock, 0.01)
    assert ctl.build.state == "staged"
    assert hal.values["lamp.ready"] is True and hal.values["lamp.building"] is False
    assert hal.written("buzzer")[-2:] == [True, False] or hal.values["buzzer"] is True
    run_for(clock, 1.0)
    assert hal.values["buzzer"] is False
    assert hal.motors_off()


def test_lift_key_is_ignored_until_a_set_is_staged(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    events = events_of(ctl)
    hal.edge("key.lift.0", True)
    run_for(clock, 1.0)
    assert ctl.cycle.state == "play"
    assert any(e["kind"] == "key.ignored" for e in events)
    assert hal.values["motor.lid"] == "off"


def test_both_lift_keys_during_a_build_are_a_top_up(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    hal.edge("key.lift.0", True)
    hal.edge("key.lift.1", True)
    run_for(clock, 0.01)
    assert ctl.cycle.state == "top_up_opening"
    assert ctl.build.state == "paused_top_up"
    assert hal.values["motor.disc"] is False
    assert not any(hal.values[f"motor.side.{n}.conveyor"] for n in range(4))
    assert hal.values["motor.lid"] == "up"
    hal.edge("lid.lower", False)
    run_for(clock, 1.2)             # a lid takes most of its learned travel (1.5 s)
    hal.edge("lid.upper", True)
    assert ctl.cycle.state == "top_up_open"
    hal.edge("key.lift.0", False)
    hal.edge("key.lift.1", False)
    hal.edge("key.lift.1", True)              # one key closes and resumes
    run_for(clock, 1.0)
    assert hal.values["motor.lid"] == "down"
    hal.edge("lid.upper", False)
    run_for(clock, 1.2)
    hal.edge("lid.lower", True)
    run_for(clock, 0.01)
    assert ctl.cycle.state == "play"
    assert ctl.build.state == "building"
    assert hal.values["motor.disc"] is True
    assert all(hal.values[f"motor.side.{n}.conveyor"] for n in range(4))


def throw(rig, seat: int) -> None:
    """`seat` presses its dice key and the dice tumble until they settle."""
    _ctl, hal, clock = rig
    hal.edge(f"key.dice.{seat}", True)
    run_for(clock, 0.1)
    hal.edge("dice.spin", True)
    run_for(clock, 6.0)
    hal.edge("dice.spin", False)


def test_a_wrong_seat_between_throws_is_shown_the_throw_a_cut_lost(rig) -> None:
    """The first throw's faces never reached the display (the link dropped as they were
    written): players who never saw them press a key that is not the thrower's. The
    table shows the throw, which names the second thrower, instead of ignoring the key
    in silence (stalls the ioboard fuzz found: seed 20261204, runs 300 and 1392)."""
    ctl, hal, _clock = rig
    homed(rig)
    fill_all(rig)
    raise_and_deal(rig)
    throw(rig, 2)
    first = ctl.cycle.throws[0]
    hal.values["display"] = ""                  # lost on its way to the board
    wrong = (2 + sum(first)) % 4                # a seat after the second thrower's
    hal.edge(f"key.dice.{wrong}", True)
    assert ctl.cycle.state == "dealing"
    assert hal.values["display"] == "-".join(map(str, first))
    # The second throw's faces lost too (run 1392): in play, a key shows the hand's last.
    throw(rig, (2 + sum(first) - 1) % 4)
    assert ctl.cycle.state == "play"
    hal.values["display"] = ""
    hal.edge("key.dice.1", True)
    assert hal.values["display"] == "-".join(map(str, ctl.cycle.throws[-1]))


def test_cycle_raises_the_staged_set_and_rolls_for_the_right_seats(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    events = events_of(ctl)
    raise_and_deal(rig)
    assert ctl.cycle.set_in_play == "A" and ctl.cycle.set_building == "B"
    assert ctl.build.state == "building"        # the pushed-in set is built at once
    assert any(e["kind"] == "walls.committed" for e in events)
    # MCR: the dealer throws, then the seat the first throw lands on.
    hal.edge("key.dice.2", True)
    assert ctl.cycle.dealer == 2 and hal.values["lamp.dealer.2"] is True
    run_for(clock, 0.1)
    assert hal.values["motor.dice"] is True
    hal.edge("dice.spin", True)
    hal.edge("key.dice.3", True)                 # pressed during the spin: ignored
    run_for(clock, 6.0)
    assert hal.values["motor.dice"] is False
    first = ctl.cycle.throws[0]
    on = next(t for t, n, v in hal.writes if n == "motor.dice" and v)
    off = next(t for t, n, v in hal.writes if n == "motor.dice" and not v and t > on)
    assert off - on >= ctl.timing.dice_min_spin_s
    hal.edge("dice.spin", False)
    second = (2 + sum(first) - 1) % 4
    wrong = (second + 1) % 4
    hal.edge(f"key.dice.{wrong}", True)
    assert ctl.cycle.state == "dealing"
    hal.edge(f"key.dice.{second}", True)
    assert ctl.cycle.state == "rolling"
    run_for(clock, 0.1)
    hal.edge("dice.spin", True)
    run_for(clock, 6.0)
    assert ctl.cycle.state == "play"
    record = ctl.handoff.records[-1]
    assert record["table"]["set"] == "A" and record["table"]["cycle"] == 1
    assert [d["faces"] for d in record["dice"]] == ctl.cycle.throws
    assert record["commitment"] == ctl.handoff.commitment


def test_dice_stuck_when_no_tumbling_is_seen(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    raise_and_deal(rig)
    hal.edge("key.dice.0", True)
    run_for(clock, 2.0)
    assert ctl.faults[-1].id == "dice.stuck"
    assert hal.motors_off()


def test_homing_brings_round_a_cam_that_coasts_past_home(rig) -> None:
    # Over the board's link the stop arrives late: the cam may be past home again.
    ctl, hal, clock = rig
    hal.values["side.1.head_home"] = False
    hal.values["side.2.plate_home"] = False
    ctl.start()
    hal.edge("side.1.head_home", True)
    assert hal.values["motor.side.1.head"] is False
    hal.edge("side.1.head_home", False)
    hal.edge("side.2.plate_home", True)
    hal.edge("side.2.plate_home", False)
    run_for(clock, 0.01)
    assert ctl.cycle.state == "homing"
    assert hal.values["motor.side.1.head"] is True
    assert hal.values["motor.side.2.plate"] is True
    hal.edge("side.1.head_home", True)
    hal.edge("side.2.plate_home", True)
    run_for(clock, 0.1)
    assert not hal.values["motor.side.1.head"] and not hal.values["motor.side.2.plate"]
    assert ctl.cycle.state == "play"


def test_an_idle_head_that_coasts_past_home_after_homing_is_brought_round(config) -> None:
    # Homing ended on this head's home edge, but its stop came late: it is past home
    # while the table holds for a refeed. Left there, the next build's first turn would
    # be taken for a part turn that stacks nothing.
    journal = MemoryJournal()
    journal.save({"clean": False, "cycle": 3, "build": "building", "set_building": "A"})
    clock = VirtualClock()
    hal = ScriptedHal(clock)
    ctl = compose_table(config, hal, clock, journal, consumers=False)
    ctl.start()
    run_for(clock, 0.01)
    assert ctl.cycle.state == "play" and ctl.refeed_hold is not None
    assert ctl.sides[1].state == "idle"
    hal.edge("side.1.head_home", False)
    assert hal.values["motor.side.1.head"] is True
    hal.edge("side.1.head_home", True)
    assert hal.values["motor.side.1.head"] is False
    assert not [f for f in ctl.faults if f.id != "power.recovered"]
