"""The referee on its own: each rule caught from the physical table, with no firmware.

The table is driven by hand, as a faulty controller would drive it; the referee must
see every breach, and none where the table is driven right.
"""

from __future__ import annotations

from typing import Any

from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config, load_config, reference_config
from simulator.harness.referee import RULES, Referee
from simulator.harness.watchdog import STALL_BOUND_S, StallWatchdog
from simulator.physics.table import SimTable


def bench(config: Config | None = None) -> tuple[VirtualClock, SimTable, Referee]:
    clock = VirtualClock()
    table = SimTable(config or load_config(), clock, seed=5)
    return clock, table, Referee(table, lambda: 1)


def rules(referee: Referee) -> list[str]:
    return [v["rule"] for v in referee.violations]


def open_lid(clock: VirtualClock, table: SimTable) -> None:
    table.command("motor.lid", "up")
    clock.run_until(clock.now() + 0.5)      # a third of the way up
    table.command("motor.lid", "off")


def test_rule_names_are_the_documented_ones() -> None:
    from tests.conftest import ROOT

    doc = (ROOT / "docs" / "faults.md").read_text()
    for rule in RULES:
        assert f"`{rule}`" in doc, rule


def test_feeding_with_the_lid_closed_is_fine() -> None:
    clock, table, referee = bench()
    for motor in ("motor.disc", "motor.ring", "motor.side.0.conveyor"):
        table.command(motor, True)
    clock.run_until(5.0)
    assert referee.violations == []


def test_disc_running_while_the_lid_opens() -> None:
    clock, table, referee = bench()
    table.command("motor.disc", True)
    open_lid(clock, table)
    assert rules(referee) == ["motor.lid_open"]
    v = referee.violations[0]
    assert set(v) == {"t", "cycle", "rule", "detail"} and "motor.disc" in v["detail"]


def test_conveyor_started_with_the_lid_open() -> None:
    clock, table, referee = bench()
    open_lid(clock, table)
    table.command("motor.side.2.conveyor", True)
    assert rules(referee) == ["motor.lid_open"]


def test_a_wall_rising_under_an_open_lid() -> None:
    clock, table, referee = bench()
    open_lid(clock, table)
    table.command("motor.side.1.plate", True)
    clock.run_until(clock.now() + 10.0)
    assert "wall.lid_open" in rules(referee)


def test_walls_committed_with_a_plate_cam_mid_turn() -> None:
    clock, table, referee = bench()
    table.command("motor.side.3.plate", True)
    clock.run_until(clock.now() + table.sim.plate_turn_s * 0.3)
    table.command("motor.side.3.plate", False)
    referee.on_event({"kind": "walls.committed", "cycle": 1})
    details = [v["detail"] for v in referee.violations if v["rule"] == "wall.not_up"]
    assert any("plate cam 3" in d for d in details)
    # No wall stands at all yet: each of the four is reported short.
    assert sum("stacks standing" in d for d in details) == 4


def test_a_wall_rising_onto_a_standing_wall() -> None:
    clock, table, referee = bench()
    a_tiles = [t for t in table.tiles if t.set_name == "A"][:4]
    for tile, place in zip(a_tiles, ("wall.1", "wall.1", "track.1", "track.1"), strict=True):
        table.disc.remove(tile)
        table.where[tile.id] = place
    table.walls[1] = [(a_tiles[0], a_tiles[1])]
    table.sides[1].track.append((a_tiles[2], a_tiles[3]))
    assert table.tiles_accounted()
    table.command("motor.side.1.plate", True)
    clock.run_until(clock.now() + 10.0)
    assert rules(referee) == ["wall.onto_wall"]
    assert table.tiles_accounted()          # the old wall fell onto the table


def test_handoff_of_walls_that_do_not_stand() -> None:
    _, _, referee = bench()
    record = {"walls": [[["B1", "B2"]] * 18] * 4}
    referee.on_event({"kind": "handoff", "cycle": 1, "set": "A", "record": record})
    assert rules(referee) == ["handoff.mismatch"]


def test_a_stack_laid_onto_a_wall_that_did_not_rise() -> None:
    clock, table, referee = bench()
    side = table.sides[0]
    other = [t for t in table.tiles if t.set_name == "B"][:2]
    side.track.append((other[0], other[1]))     # set B's wall stayed on the track
    for motor in ("motor.disc", "motor.ring", "motor.side.0.conveyor",
                  "motor.side.0.head"):
        table.command(motor, True)
    clock.run_until(30.0, until=lambda: len(side.track) > 1)
    assert "build.onto_track" in rules(referee)


def test_motor_started_with_the_case_open() -> None:
    clock, table, referee = bench()
    table.stick("case_open", True)
    clock.run_until(1.0)
    table.command("motor.dice", True)
    assert rules(referee) == ["motor.case_open"]


def test_motor_left_running_when_the_case_opens() -> None:
    clock, table, referee = bench()
    table.command("motor.ring", True)
    table.stick("case_open", True)
    clock.run_until(1.0)
    assert rules(referee) == ["motor.case_open"]


def fault(fault_id: str, where: str = "side.0") -> dict[str, Any]:
    return {"kind": "fault", "id": fault_id, "where": where}


def test_motor_turned_on_in_the_instant_a_fault_stops_it() -> None:
    clock, table, referee = bench()
    clock.run_until(2.0)
    referee.on_event(fault("lid.not_rising"))
    table.command("motor.disc", True)
    clock.run_until(2.0)
    assert rules(referee) == ["motor.on_at_fault"]


def test_motor_turned_on_after_a_stop_until_the_resume() -> None:
    clock, table, referee = bench()
    referee.on_event(fault("plate.stuck"))
    clock.run_until(3.0)
    table.command("motor.side.0.head", True)
    assert rules(referee) == ["motor.after_stop"]
    table.command("motor.side.0.head", False)
    referee.on_event({"kind": "fault.cleared", "id": "plate.stuck", "where": "side.0"})
    referee.on_event({"kind": "resume_after_fault"})
    table.command("motor.side.0.head", True)
    assert rules(referee) == ["motor.after_stop"]


def test_a_build_scoped_fault_stops_only_the_build() -> None:
    clock, table, referee = bench()
    referee.on_event(fault("head.jam"))
    clock.run_until(1.0)
    assert referee.pending == 0
    table.command("motor.lid", "up")            # players may still top up
    assert referee.violations == []
    table.command("motor.ring", True)
    assert rules(referee) == ["motor.after_stop"]


def test_motor_still_running_at_the_fault_instant() -> None:
    clock, table, referee = bench()
    table.command("motor.dice", True)
    clock.run_until(1.0)
    referee.on_event(fault("dice.stuck"))
    clock.run_until(1.0)
    assert rules(referee) == ["motor.after_stop"]


def test_a_stop_sent_over_a_broken_link_is_judged_after_the_boards_failsafe() -> None:
    # The stop cannot cross a dropped link: the board's failsafe stops the motors within
    # its limit (tests/scenarios/review/ioboard_link_drop_head_jam.toml). No grace more.
    for link_down, off_at, expected in ((True, 1.3, []), (True, 1.6, ["motor.after_stop"]),
                                        (False, 1.3, ["motor.after_stop"])):
        clock, table, referee = bench()
        referee.link_grace_s, referee.link_broken = 0.5, lambda d=link_down: d
        table.command("motor.ring", True)
        clock.run_until(1.0)
        referee.on_event(fault("head.jam"))
        clock.call_later(off_at - 1.0, lambda t=table: t.command("motor.ring", False))
        clock.run_until(2.0)
        assert rules(referee) == expected, (link_down, off_at)


def test_after_an_estop_until_the_resume() -> None:
    clock, table, referee = bench()
    referee.on_event({"kind": "estop"})
    clock.run_until(1.0)
    table.command("motor.side.1.plate", True)
    assert rules(referee) == ["motor.after_stop"]


def test_clearing_one_side_does_not_resume_another_sides_stop() -> None:
    # Two heads jammed; the technician clears side 0's. Side 2 still holds the build.
    clock, table, referee = bench()
    for side in (0, 2):
        referee.on_event({"kind": "fault", "id": "head.jam", "where": f"side.{side}.head"})
    clock.run_until(1.0)
    referee.on_event({"kind": "fault.cleared", "id": "head.jam", "where": "side.0.head"})
    table.command("motor.ring", True)
    assert rules(referee) == ["motor.after_stop"]
    table.command("motor.ring", False)
    referee.on_event({"kind": "fault.cleared", "id": "head.jam", "where": "side.2.head"})
    table.command("motor.ring", True)
    assert rules(referee) == ["motor.after_stop"]


def test_a_resume_after_fault_while_a_fault_is_active_does_not_resume_it() -> None:
    clock, table, referee = bench()
    referee.on_event({"kind": "fault", "id": "lid.not_lowering", "where": "motor.lid"})
    referee.on_event({"kind": "halted", "reason": "service"})
    clock.run_until(1.0)
    referee.on_event({"kind": "resume_after_fault"})
    table.command("motor.disc", True)
    assert rules(referee) == ["motor.after_stop"]
    assert "lid.not_lowering" in referee.violations[0]["detail"]


def stand_walls(table: SimTable, set_name: str = "A") -> None:
    """Put a complete wall of `set_name` on each side, as a raise would."""
    tiles = [t for t in table.tiles if t.set_name == set_name]
    full = table.config.table.stacks_per_wall
    for n in range(4):
        wall = []
        for k in range(full):
            top, bottom = tiles[2 * (n * full + k)], tiles[2 * (n * full + k) + 1]
            for tile in (top, bottom):
                table.disc.remove(tile)
                table.where[tile.id] = f"wall.{n}"
            wall.append((top, bottom))
        table.walls[n] = wall
    assert table.tiles_accounted()


def named(table: SimTable) -> list[list[list[str | None]]]:
    return [[[top.code, bottom.code] for top, bottom in wall] for wall in table.walls]


def test_a_handoff_naming_the_standing_tiles_is_fine() -> None:
    _, table, referee = bench()
    stand_walls(table)
    referee.on_event({"kind": "handoff", "cycle": 1, "set": "A",
                      "record": {"walls": named(table)}})
    assert referee.violations == []


def test_a_handoff_naming_other_tiles_without_a_tile_reader() -> None:
    # No reader: the firmware cannot know the tiles. Walls named None are honest;
    # a code it names anyway must be the tile standing there.
    config = load_config(reference_config("table-136.toml"))
    assert not config.table.tile_reader
    _, table, referee = bench(config)
    stand_walls(table)
    blind = [[[None, None] for _ in wall] for wall in table.walls]
    referee.on_event({"kind": "handoff", "cycle": 1, "set": "A", "record": {"walls": blind}})
    assert referee.violations == []
    walls = named(table)
    walls[1][3] = [walls[1][3][1], "W9" if walls[1][3][0] != "W9" else "W8"]
    referee.on_event({"kind": "handoff", "cycle": 2, "set": "A", "record": {"walls": walls}})
    assert rules(referee) == ["handoff.mismatch"]
    assert "wall 1.3" in referee.violations[0]["detail"]


class _Ctl:
    """Just what the watchdog reads of a controller."""

    def __init__(self, state: str) -> None:
        self.estopped = False
        self.refeed_hold = None
        self.faults: list[Any] = []
        self.cycle = type("C", (), {"state": state, "number": 2})()


def test_a_stuck_table_is_a_stall_and_says_what_it_shows() -> None:
    from simulator.physics.players import SimPlayers

    clock, table, _ = bench()
    players = SimPlayers(table, clock, table.config)
    players.phase = "waiting_walls"
    ctl = _Ctl("dealing")
    dog = StallWatchdog(clock, table, players, lambda: ctl)  # type: ignore[arg-type,return-value]
    clock.run_until(STALL_BOUND_S + 30.0)
    assert len(dog.stalls) == 1
    stall = dog.stalls[0]
    assert stall["phase"] == "dealing" and stall["waited_s"] > STALL_BOUND_S
    assert stall["display"] == ""               # silent: nothing on the display


def test_busy_players_are_not_a_stall() -> None:
    from simulator.physics.players import SimPlayers

    clock, table, _ = bench()
    players = SimPlayers(table, clock, table.config)
    players.phase = "playing"
    ctl = _Ctl("play")
    dog = StallWatchdog(clock, table, players, lambda: ctl)  # type: ignore[arg-type,return-value]
    clock.run_until(3 * STALL_BOUND_S)
    assert dog.stalls == []


# A top-up asked for while the power is off: the players' keys go unheard. Found by
# `mjtable fuzz --seed 1` (run 314), which passed by running out of simulated time.
TOP_UP_IN_THE_DARK = """
seed = 49896
cycles = 2
play_time_s = 20.0
[[fault]]
kind = "missing_tiles"
where = "table"
cycle = 1
phase = "lid_up"
[[fault]]
kind = "power_cut"
where = "power"
cycle = 2
at_s = 38.1
duration_s = 40.1
[[action]]
after_fault = "build.tiles_missing"
do = "top_up"
delay_s = 24.5
[expect]
allow = ["build.tiles_missing", "power.recovered"]
cycles_completed = 0
"""


def _top_up_in_the_dark() -> Any:
    import tomllib

    from simulator.harness.runner import Harness
    from simulator.scenario import parse_scenario

    scenario = parse_scenario(tomllib.loads(TOP_UP_IN_THE_DARK), "dark.toml")
    return scenario, Harness(load_config(), scenario)


def test_a_top_up_cut_off_by_the_power_gives_way_to_the_refeed() -> None:
    # The players were topping up when the power went; after it the half-built set is
    # held for a refeed, which also answers the tiles that were missing: the display
    # asks for the refeed (not E50, whose top-up the table would refuse), the players
    # give up the top-up and refeed the set themselves (both lift keys held). The
    # tiles they forgot on the table are still missing from the set built again: E50
    # holds it, and the run ends held instead of stalling.
    _, harness = _top_up_in_the_dark()
    events: list[dict[str, Any]] = []
    harness.boot_hooks.append(lambda ctl: ctl.subscribers.append(events.append))
    report = harness.run()
    assert report["stalls"] == [] and report["problems"] == []
    assert not harness.players.topping_up and harness.players.refeeds == 1
    assert [e["by"] for e in events if e["kind"] == "refeed.confirmed"] == [
        "players (refeed)"]
    assert harness.ctl.refeed_hold is None
    assert harness.table.values["display"] == "E50"
    assert report["sim_time_s"] < 1000.0     # it ended held, not at the run's deadline


def test_a_run_that_ends_neither_done_nor_held_is_a_stall() -> None:
    from simulator.fuzz.batch import classify

    scenario, harness = _top_up_in_the_dark()
    # Players who say they top up and never press: the table waits on them forever.
    harness.players.top_up = lambda: setattr(harness.players, "topping_up", True)
    harness.players._patience = lambda: None      # type: ignore[method-assign]
    harness.players._refeed = lambda: None        # type: ignore[method-assign]
    report = harness.run()
    assert len(report["stalls"]) == 1, report["problems"]
    assert "stalls" in classify(scenario, report)


def test_a_top_up_the_lid_motor_cannot_open_leaves_the_table_held() -> None:
    # Fuzz seed 20261207 #1987: tiles left on the table (E50), the players top up, but
    # the lid motor is dead (E10) and no technician replaces it. The table holds
    # showing E10 and ignores the players' lift keys: a held table, not a stall, though
    # the players still mean to top up.
    from simulator.harness.runner import Harness
    from simulator.scenario import load_scenario
    from tests.conftest import ROOT

    scenario = load_scenario(
        ROOT / "tests" / "scenarios" / "fuzz" / "lid_motor_dead_during_top_up.toml")
    harness = Harness(load_config(scenario.config), scenario)
    report = harness.run()
    assert report["stalls"] == [] and report["problems"] == [], report["problems"]
    assert harness.players.topping_up
    active = {f.code for f in harness.ctl.faults if f.active}
    assert active == {"E10", "E50"} and harness.table.values["display"] == "E10"
    assert harness.ctl.cycle.state == "fault" and report["motors_off_at_end"]
    assert report["sim_time_s"] < 1000.0     # it ended held, not at the run's deadline


def lay(table: SimTable, n: int, *stacks: tuple) -> None:
    """Stacks laid onto track `n`, as the head reports them to the referee."""
    for stack in stacks:
        table.sides[n].track.append(stack)
        for happening in table.happenings:
            happening("stack.laid", n)


def test_a_tile_of_the_other_set_pushed_in_with_a_set_is_a_stray() -> None:
    # A tile of set A forgotten on the table goes into the hole with set B at the next
    # push: the table cannot see its colour, only the count can (build.extra_tiles).
    _, table, referee = bench()
    stray = next(t for t in table.disc if t.set_name == "A")
    table.disc.remove(stray)
    table.on_table.append(stray)
    table.where[stray.id] = "table"
    pushed = list(table.on_table)
    table.push_into_hole()
    b_tiles = [t for t in pushed if t.set_name == "B"]
    assert table.came_with[stray.id] == "B"
    lay(table, 0, (b_tiles[0], stray), (b_tiles[1], b_tiles[2]))
    assert rules(referee) == []


def test_a_set_pushed_in_and_laid_onto_another_sets_wall_is_caught() -> None:
    # The rule the strays must not weaken: set B's wall did not rise, set A is pushed
    # in and its stacks are laid onto B's on the same track.
    _, table, referee = bench()
    a_tiles, table.disc[:] = list(table.disc), []
    table.on_table = a_tiles
    b_tiles = [t for t in table.tiles if t.set_name == "B"]
    table.sides[0].track.append((b_tiles[0], b_tiles[1]))
    for tile in (b_tiles[0], b_tiles[1]):
        table.where[tile.id] = "track.0"
    table.push_into_hole()
    assert table.came_with[a_tiles[0].id] == "A"
    assert table.came_with[b_tiles[0].id] == "B"    # on the track, not in the push
    lay(table, 0, (a_tiles[0], a_tiles[1]))
    assert rules(referee) == ["build.onto_track"]


def test_a_motor_turned_on_within_the_link_grace_is_caught() -> None:
    # An adversarial run on the ioboard rig switched the disc, the ring and the
    # conveyors on 20 ms after E32; the board's failsafe stopped them within its limit,
    # and the referee, which armed its stop check only after the 0.5 s grace, missed it.
    clock, table, referee = bench()
    referee.link_grace_s, referee.link_broken = 0.5, lambda: True
    clock.run_until(1.0)
    referee.on_event(fault("head.jam"))
    clock.call_later(0.02, lambda: table.command("motor.ring", True))
    clock.call_later(0.3, lambda: table.command("motor.ring", False))
    clock.run_until(2.0)
    assert rules(referee) == ["motor.after_stop"]
    assert referee.violations[0]["t"] == 1.02


def test_a_command_late_for_noise_and_stopped_in_its_instant_is_no_breach() -> None:
    # A SET sent before the fault crosses late (noise) and the SAFE right behind it:
    # the motor is off again before the instant ends.
    clock, table, referee = bench()
    referee.link_grace_s = 0.5
    clock.run_until(1.0)
    referee.on_event(fault("head.jam"))
    clock.run_until(1.05)
    table.command("motor.ring", True)
    table.command("motor.ring", False)
    clock.run_until(2.0)
    assert referee.violations == []


def test_nothing_runs_against_the_boards_interlock_table() -> None:
    from hal.interlocks import interlock_rules

    clock = VirtualClock()
    table = SimTable(load_config(), clock, seed=5)
    referee = Referee(table, lambda: 1, interlocks=interlock_rules(table.signals))
    table.command("motor.side.1.plate", True)       # lid closed: allowed
    clock.run_until(0.1)
    table.command("motor.side.1.plate", False)
    assert referee.violations == []
    table.stick("lid.lower", False)                 # as the board would read it
    table.command("motor.disc", True)
    clock.run_until(0.2)
    table.command("motor.disc", False)
    table.unstick("lid.lower")
    table.stick("side.2.plate_home", False)
    table.command("motor.lid", "up")
    clock.run_until(0.3)
    assert rules(referee) == ["motor.interlock", "motor.interlock"]
    assert "motor.disc" in referee.violations[0]["detail"]
    assert "side.2.plate_home" in referee.violations[1]["detail"]


def test_a_failsafe_in_the_graces_last_instant_is_in_time() -> None:
    # The board's failsafe falls in the very instant the grace ends (its limit from the
    # host's last frame): judged once that instant is over, not before it.
    clock, table, referee = bench()
    referee.link_grace_s, referee.link_broken = 0.5, lambda: True
    table.command("motor.ring", True)
    clock.run_until(1.0)
    referee.on_event(fault("link.lost", "link"))
    clock.call_at(1.5, lambda: table.command("motor.ring", False))
    clock.run_until(2.0)
    assert referee.violations == []


def test_players_press_the_close_key_again_when_it_went_unheard() -> None:
    # A top-up's closing key pressed while a fault held the table: the table, back in
    # top_up_open, waits for one lift key with the hole open. The players used to
    # never press it again, and a correct table looked stalled.
    from simulator.physics.players import PATIENCE_S, SimPlayers

    clock, table, _ = bench()
    players = SimPlayers(table, clock, table.config)
    players.phase = "playing"
    table.physical["lid.upper"] = True
    pressed: list[str] = []
    table.press = pressed.append            # type: ignore[method-assign]
    clock.run_until(2 * PATIENCE_S + 1.0)
    assert "key.lift.0" in pressed


def test_a_self_test_in_test_mode_is_judged_by_the_interlock_table_not_as_a_fault() -> None:
    # A technician runs the plate self-test the diagnosis names while plate.stuck holds
    # the table: that motion is the technician's, on purpose. The referee flagged it as
    # a motor run after the fault's stop; now it judges it against the interlock table.
    from firmware.faults.kinds import CATALOGUE
    from simulator.harness.runner import Harness
    from simulator.scenario import ActionSpec, Expect, FaultSpec, Scenario
    from tests.conftest import CONFIGS, quick

    config = quick(load_config(CONFIGS["144"]), 20.0)
    scenario = Scenario(
        seed=28, cycles=2, source="self-test",
        faults=(FaultSpec("plate_blocked", "side.1.plate", 2, phase="raise"),),
        actions=(ActionSpec(after_fault="plate.stuck", do="clear_obstruction",
                            where="side.1.plate", delay_s=30.0),),
        expect=Expect(allow=tuple(CATALOGUE)))
    harness = Harness(config, scenario, None, rig="sim", rig_options={})
    results: list[dict] = []

    def hook(ctl: Any) -> None:
        service = ctl.maintenance()

        def on_event(event: dict) -> None:
            if event["kind"] == "fault" and event["id"] == "plate.stuck":
                ctl.clock.call_later(3.0, lambda: service.test("plate.1", "tech",
                                                               results.append))
        ctl.subscribers.append(on_event)

    harness.boot_hooks.append(hook)
    report = harness.run()
    assert results and results[0]["test"] == "plate.1"     # the self-test ran
    assert report["referee_violations"] == []
    assert harness.referee._table_rules                     # judged against these


def test_in_test_mode_every_reading_is_judged_against_the_interlock_table() -> None:
    # The disc runs; the lid's lower stop then reads open (stuck). Out of test mode
    # that reading is not one the referee judges; in test mode it is, at once.
    for testing in (False, True):
        clock, table, referee = bench()
        table.command("motor.disc", "on")
        if testing:
            referee.on_event({"kind": "service.mode", "on": True})
        table.stick("lid.lower", False)
        clock.run_until(clock.now())
        assert ("motor.interlock" in rules(referee)) is testing
        referee.on_event({"kind": "service.mode", "on": False})
        table.stick("lid.upper", True)      # out of test mode again: not judged
        clock.run_until(clock.now())
        assert rules(referee).count("motor.interlock") == int(testing)


def test_a_motor_judged_under_a_stop_long_gone_is_judged_again_under_a_new_one() -> None:
    # The disc turns on under a head jam's stop (judged then); the jam is cleared and
    # its stop forgotten. A new jam finds the disc still running: that is a breach of
    # its own, however the memory of the old stop is reused for the new one.
    clock, table, referee = bench()
    missed = 0
    for _ in range(20):
        referee.on_event({"kind": "fault", "id": "head.jam", "code": "E22", "where": "a"})
        clock.run_until(clock.now())
        table.command("motor.disc", True)       # on under the stop: judged at once
        referee.on_event({"kind": "fault.cleared", "id": "head.jam", "where": "a"})
        clock.run_until(clock.now() + 1.0)
        before = rules(referee).count("motor.after_stop")
        referee.on_event({"kind": "fault", "id": "head.jam", "code": "E22", "where": "b"})
        clock.run_until(clock.now())
        missed += rules(referee).count("motor.after_stop") == before    # not judged
        referee.on_event({"kind": "fault.cleared", "id": "head.jam", "where": "b"})
        table.command("motor.disc", False)
        clock.run_until(clock.now() + 1.0)
    assert missed == 0


def test_the_motors_running_under_an_open_lid_are_named_in_the_tables_order() -> None:
    # Not in a set's order, which changes with the process's hash seed: a report with
    # several breaches in one instant reads the same from run to run.
    clock, table, referee = bench()
    feeding = ["motor.disc", "motor.ring", *[f"motor.side.{n}.conveyor" for n in range(4)]]
    for motor in feeding:
        table.command(motor, True)
    open_lid(clock, table)
    named = [v["detail"].split()[0] for v in referee.violations]
    assert named == [m for m in referee.motors if m in feeding]
