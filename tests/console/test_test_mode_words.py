"""Test mode and the e-stop are named as such everywhere a person reads the table's
state (events, the log, diagnose evidence, `test-mode off`): never 故障 / "fault"."""

from __future__ import annotations

from firmware.console import render
from firmware.console.view import log_line
from firmware.diagnosis.guided import diagnose
from firmware.i18n import language
from firmware.machines.maintenance import mechanism_tests
from tests.console.test_maintenance import run_until, table


def _rows(events: list[dict], kind: str) -> list[dict]:
    return [{"seq": i, **e} for i, e in enumerate(events) if e["kind"] == kind]


def test_entering_test_mode_logs_the_phase_as_test_mode_not_fault() -> None:
    bench, service, events = table()
    service.power_on()
    run_until(bench, lambda: bench.controller.build.state == "staged")
    service.enter("li")
    phase = _rows(events, "phase")[-1]
    halted = _rows(events, "halted")[-1]
    assert phase["state"] == "fault" and phase["held_by"] == "test_mode"
    with language("zh_CN"):
        lines = [render.log_line(phase), render.log_line(halted), log_line(phase) or ""]
    assert all("测试模式" in line and "故障" not in line for line in lines), lines
    assert "test mode" not in lines[1] and "held_by" not in lines[1]


def test_the_e_stop_logs_its_own_name() -> None:
    bench, service, events = table()
    service.power_on()
    run_until(bench, lambda: bench.controller.build.state == "staged")
    bench.controller.estop("li")
    with language("zh_CN"):
        line = render.log_line(_rows(events, "phase")[-1])
    assert "急停" in line and "故障" not in line


def test_diagnose_evidence_in_test_mode_says_test_mode() -> None:
    bench, service, _ = table()
    service.power_on()
    run_until(bench, lambda: bench.controller.build.state == "staged")
    service.enter("li")
    with language("zh_CN"):
        result = diagnose(bench.controller, "中心不降")
        assert result is not None
        lines = render.diagnosis_lines(result)
    assert result["evidence"]["lid"] == "test_mode"
    assert "    中心升降：测试模式" in lines, lines


def test_test_mode_off_names_what_still_holds_the_table() -> None:
    with language("zh_CN"):
        estop = render.testmode_lines({"test_mode": False, "cycle": "fault",
                                       "held_by": "estop"})
        refeed = render.testmode_lines({"test_mode": False, "cycle": "play",
                                        "held_by": None, "refeed_hold": True})
    assert "急停" in estop[0] and "故障" not in estop[0]
    assert "--refed" in refeed[1]


def test_simulated_players_keep_their_hands_off_the_keys_in_test_mode() -> None:
    # A lift key pressed by a player in test mode starts the next test by itself.
    bench, service, events = table(4)
    service.power_on()
    bench.players.start()
    run_until(bench, lambda: bench.controller.cycle.state == "play", 400)
    service.enter("li", force=True)
    results: list[dict] = []
    bench.table.kill_motor("motor.side.2.head")        # one test fails: display 4F
    service.test("all", "li", results.append)
    run_until(bench, lambda: len(results) == len(mechanism_tests()), 200)
    start = len(events)
    bench.clock.run_until(bench.clock.now() + 600)
    assert [e for e in events[start:] if e["kind"] in ("key", "service.test.started")] == []


def test_test_mode_on_says_the_cycle_is_in_test_mode_not_fault(tmp_path) -> None:
    # Before: `console --json test-mode on` answered "cycle": "fault".
    from tests.console.conftest import TOKEN, raw, start_daemon
    from tests.console.test_hold_api import ask

    running, stop = start_daemon(tmp_path / "state", players=False)
    try:
        with raw(running) as sock:
            assert ask(sock, 1, "login", auth={"name": "li", "token": TOKEN})["ok"]
            on = ask(sock, 2, "testmode", {"on": True, "force": True})["result"]
            assert (on["test_mode"], on["cycle"], on["held_by"]) == (True, "test_mode",
                                                                      "test_mode")
            off = ask(sock, 3, "testmode", {"on": False})["result"]
            assert off["cycle"] != "fault" or off["held_by"] is not None
    finally:
        stop()
