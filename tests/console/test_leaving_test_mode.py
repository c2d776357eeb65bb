"""Leaving test mode puts the table back as it found it, or says what it cannot."""

from __future__ import annotations

import pytest

from firmware.machines.maintenance import MaintenanceRefused, mechanism_tests
from tests.console.test_maintenance import run_until, table


def staged(seed: int = 5, in_play: bool = False) -> tuple:
    """A table powered on with its next set staged (`in_play`: a hand in play too)."""
    bench, service, events = table(seed)
    ctl = bench.controller
    service.power_on()
    if in_play:
        bench.players.start()
        run_until(bench, lambda: ctl.cycle.state == "play" and ctl.build.state == "staged",
                  400)
    else:
        run_until(bench, lambda: ctl.build.state == "staged")
    return bench, service, events


def test_tests_that_move_tiles_mid_build_hold_the_set_for_a_refeed_not_e51() -> None:
    # test-mode on --force mid-build, the belts and heads tested, test-mode off: the
    # set's counts no longer match what lies in belts and heads. Resumed from them,
    # the next set was built over leftover tiles: E51 with counts 36/36/36/36.
    bench, service, events = table(1)
    ctl = bench.controller
    service.power_on()
    bench.players.start()
    run_until(bench, lambda: ctl.build.state == "staged")
    run_until(bench, lambda: ctl.build.state == "building"
              and sum(s.counted for s in ctl.sides) > 40, 400)
    service.enter("li", force=True)
    for name in ("conveyor.0", "conveyor.1", "conveyor.2", "conveyor.3", "head.0",
                 "head.1", "head.2", "head.3"):
        service.test(name, "li")
        run_until(bench, lambda: service.running is None, 30)
    service.leave("li")
    hold = ctl.refeed_hold
    assert hold is not None and hold.id == "build.interrupted"
    assert hold.evidence["moved"][:2] == ["conveyor.0", "conveyor.1"]
    assert bench.hal.read("display") == "rF"
    bench.table.refeed()                    # the operator empties belts, heads, tracks
    ctl.clear_fault(hold, "li", refed=True)
    start = len(events)
    bench.clock.run_until(bench.clock.now() + 1500, until=lambda: sum(
        e["kind"] == "build.staged" for e in events[start:]) >= 3)
    assert [e["id"] for e in events[start:] if e["kind"] == "fault"] == []
    assert sum(e["kind"] == "build.staged" for e in events[start:]) >= 3


def test_tests_without_a_part_built_set_resume_without_a_hold() -> None:
    bench, service, _ = staged()
    ctl = bench.controller
    service.test("conveyor.1", "li")
    run_until(bench, lambda: service.running is None, 30)
    service.leave("li")
    assert ctl.refeed_hold is None and ctl.build.state == "staged"


def test_a_plate_jog_under_a_staged_set_is_refused_and_the_next_hand_is_right() -> None:
    # jog plate.1 fwd 1 in test mode left the plate off home under the staged wall
    # (the way home, one more turn, lifts that wall); fwd 5, a whole turn, lifted it at
    # once: either way the next hand was built over it (E51). Refused, with why.
    bench, service, events = staged(3, in_play=True)
    ctl = bench.controller
    service.enter("li")
    for seconds in (1.0, 5.0):
        with pytest.raises(MaintenanceRefused, match=r"jog plate\.1 refused: its track holds "
                           r"stacks of the next set"):
            service.jog("plate.1", "fwd", seconds, "li")
    assert bench.hal.read("side.1.plate_home") and not ctl.hal.read("motor.side.1.plate")
    service.leave("li")
    next_hands_are_right(bench, events, playing=True)


def next_hands_are_right(bench, events, hands: int = 2, playing: bool = False) -> None:
    """The players play on: `hands` more hands dealt, no fault raised meanwhile."""
    if not playing:
        bench.players.start()
    start, played = len(events), bench.players.hands_played
    bench.clock.run_until(bench.clock.now() + 1500, until=lambda: bench.players.hands_played
                          >= played + hands or any(e["kind"] == "fault" for e in events[start:]))
    assert [e["id"] for e in events[start:] if e["kind"] == "fault"] == []
    assert bench.players.hands_played >= played + hands


def test_a_plate_test_under_a_staged_set_leaves_the_next_hand_right() -> None:
    # The commonest state of a table (the next set staged): `test plate.1`, test-mode
    # off. One turn lifted side 1's staged wall onto the table; the next hand raised
    # E51 build.extra_tiles (counts 36/36) instead of being dealt. The plate is not
    # turned now: the result says why and when it can be tested.
    bench, service, events = staged(3)
    ctl = bench.controller
    results: list[dict] = []
    service.test("plate.1", "li", results.append)
    run_until(bench, lambda: service.running is None, 30)
    assert [r["result"] for r in results] == ["-"]
    assert "not tested: its track holds stacks of the next set" in results[0]["detail"]
    assert "E31" in results[0]["detail"]
    assert bench.hal.read("display") == "3-" and bench.hal.read("side.1.plate_home")
    service.leave("li")
    assert ctl.refeed_hold is None
    next_hands_are_right(bench, events)


def test_test_all_under_a_staged_set_skips_the_plates_and_runs_the_rest() -> None:
    bench, service, events = staged(3)
    results: list[dict] = []
    service.test("all", "li", results.append)
    run_until(bench, lambda: len(results) == len(mechanism_tests()), 120)
    by_name = {r["test"]: r["result"] for r in results}
    assert [n for n, r in by_name.items() if r == "-"] == [f"plate.{n}" for n in range(4)]
    assert [n for n, r in by_name.items() if r not in "-P"] == []
    assert [r["number"] for r in results] == list(range(1, 16))
    service.leave("li")
    next_hands_are_right(bench, events)


def test_a_plate_with_an_empty_track_is_tested_and_turns() -> None:
    # Test mode from power-on (both lift keys held) before any set is built: the
    # tracks are empty, the plates are tested as before.
    bench, service, _events = table(3)
    bench.table.values["key.lift.0"] = bench.table.values["key.lift.1"] = True
    service.power_on()
    bench.table.values["key.lift.0"] = bench.table.values["key.lift.1"] = False
    results: list[dict] = []
    service.test("plate.1", "li", results.append)
    run_until(bench, lambda: service.running is None, 30)
    assert [r["result"] for r in results] == ["P"]
    assert [e for e in results[0]["seen"] if e["seen"] == "side.1.plate_home"]


def test_an_e_stop_released_inside_test_mode_shows_test_mode_and_the_next_hand_is_right(
        ) -> None:
    # E-stop in the middle of a self-test, released: the display went blank while test
    # mode still held the table (t- is how the panel says so); then test-mode off.
    bench, service, events = staged(2, in_play=True)
    ctl = bench.controller
    service.enter("li")
    service.test("dice", "li")
    ctl.estop("li")
    assert bench.hal.read("display") == "ES" and service.running is None
    ctl.release_estop("li")
    assert not service.resume_if_clear()        # test mode still holds the table
    assert bench.hal.read("display") == "t-"
    service.leave("li")
    start, hands = len(events), bench.players.hands_played
    bench.clock.run_until(bench.clock.now() + 1500, until=lambda: bench.players.hands_played
                          >= hands + 2 or any(e["kind"] == "fault" for e in events[start:]))
    assert [e["id"] for e in events[start:] if e["kind"] == "fault"] == []
    assert bench.players.hands_played >= hands + 2


def test_a_lid_jogged_up_is_named_with_the_way_down_before_leaving_test_mode() -> None:
    # jog lid up in test mode, test-mode off: the next lift key raised E99
    # software.error (the lid machine asked to open a lid already open).
    bench, service, events = staged(5, in_play=True)
    service.enter("li")
    done: list[dict] = []
    service.jog("lid", "up", 5.0, "li", done.append)
    run_until(bench, lambda: bool(done), 10)
    with pytest.raises(MaintenanceRefused, match=r"jog lid down"):
        service.leave("li")
    assert service.test_mode
    done.clear()
    service.jog("lid", "down", 5.0, "li", done.append)
    run_until(bench, lambda: bool(done), 10)
    service.leave("li")
    start, hands = len(events), bench.players.hands_played
    bench.clock.run_until(bench.clock.now() + 1500, until=lambda: bench.players.hands_played
                          >= hands + 2 or any(e["kind"] == "fault" for e in events[start:]))
    assert [e["id"] for e in events[start:] if e["kind"] == "fault"] == []


def test_a_dice_key_that_cannot_leave_test_mode_says_why_on_the_panel() -> None:
    # Test mode that cannot be left (here the lid jogged up), then the panel's dice key
    # (leave test mode): the refusal escaped the loop as an exception instead of a
    # service.refused event.
    bench, service, events = staged(3, in_play=True)
    service.enter("li")
    done: list[dict] = []
    service.jog("lid", "up", 5.0, "li", done.append)
    run_until(bench, lambda: bool(done), 10)
    bench.table.press("key.dice.0")
    bench.clock.run_until(bench.clock.now() + 5)
    refused = [e for e in events if e["kind"] == "service.refused"]
    assert service.test_mode and refused and "jog lid down" in refused[-1]["reason"]
    assert not [e for e in events if e["kind"] == "fault"]


def test_a_lid_self_test_while_a_set_is_staged_leaves_the_next_hand_right() -> None:
    # `test lid` on a table at rest with the next set staged, test-mode off: the
    # simulated players took the test's lid rise for the hole opening and pushed the
    # raised walls into the hole during the next build (E51 build.extra_tiles).
    bench, service, events = staged(3)
    service.test("lid", "li")
    run_until(bench, lambda: service.running is None, 30)
    service.leave("li")
    bench.players.start()
    start = len(events)
    bench.clock.run_until(bench.clock.now() + 1500, until=lambda: bench.players.hands_played
                          >= 2 or any(e["kind"] == "fault" for e in events[start:]))
    assert [e["id"] for e in events[start:] if e["kind"] == "fault"] == []
    assert bench.players.hands_played >= 2
