"""The referee on its own: each rule caught from the physical table, with no firmware.

The table is driven by hand, as a faulty controller would drive it; the referee must
see every breach, and none where the table is driven right.
"""

from __future__ import annotations

from typing import Any

from firmware.clock import VirtualClock
from firmware.config import Config, load_config
from simulator.referee import RULES, Referee
from simulator.table import SimTable
from simulator.watchdog import STALL_BOUND_S, StallWatchdog


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


def fault(fault_id: str) -> dict[str, Any]:
    return {"kind": "fault", "id": fault_id}


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
    referee.on_event({"kind": "rehome"})
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


def test_after_an_estop_until_the_resume() -> None:
    clock, table, referee = bench()
    referee.on_event({"kind": "estop"})
    clock.run_until(1.0)
    table.command("motor.side.1.plate", True)
    assert rules(referee) == ["motor.after_stop"]


class _Ctl:
    """Just what the watchdog reads of a controller."""

    def __init__(self, state: str) -> None:
        self.estopped = False
        self.refeed_hold = None
        self.faults: list[Any] = []
        self.cycle = type("C", (), {"state": state, "number": 2})()


def test_a_stuck_table_is_a_stall_and_says_what_it_shows() -> None:
    from simulator.players import SimPlayers

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
    from simulator.players import SimPlayers

    clock, table, _ = bench()
    players = SimPlayers(table, clock, table.config)
    players.phase = "playing"
    ctl = _Ctl("play")
    dog = StallWatchdog(clock, table, players, lambda: ctl)  # type: ignore[arg-type,return-value]
    clock.run_until(3 * STALL_BOUND_S)
    assert dog.stalls == []
