"""The live view of `mjtable run`, rendered to text as a terminal shows it."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from rich.console import Console

from firmware.console.view import screen, snapshot
from firmware.i18n import language
from tests.test_diagnosis import table_in_play


def render(snap: dict, size: tuple[int, int], lang: str) -> list[str]:
    with language(lang):
        console = Console(width=size[0], height=size[1], record=True, color_system=None,
                          file=open("/dev/null", "w"))  # noqa: SIM115 - closed with the console
        console.print(screen(snap, 1.0, size))
        text = console.export_text()
    console.file.close()
    return text.rstrip("\n").splitlines()


@pytest.fixture(scope="module")
def table():
    return table_in_play()


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_live_view_fits_80x24_with_everything_below_the_walls(table, lang: str) -> None:
    lines = render(snapshot(table.ctl), (80, 24), lang)
    assert len(lines) <= 24 and max(cell_len(line) for line in lines) <= 80
    text = "\n".join(lines)
    expected = (("复位灯", "在打：", "显示屏：", "没有故障", "Ctrl-C 停机", "第 1 局")
                if lang == "zh_CN" else
                ("ready", "set in play:", "display:", "no faults", "Ctrl-C stops", "hand 1"))
    for shown in expected:
        assert shown in text, shown
    assert lines[-1].startswith("╰")          # the frame closes: nothing was cut


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_live_view_shows_a_fault_and_degrades_below_24_rows(lang: str) -> None:
    harness = table_in_play()
    for n in range(4):          # five faults of five causes (one cause is one fault)
        harness.ctl.fault("head.jam", f"side {n}", n, {})
    harness.ctl.fault("plate.stuck", "side 0", 0, {})
    snap = snapshot(harness.ctl)
    lines = render(snap, (80, 24), lang)
    text = "\n".join(lines)
    assert len(lines) <= 24 and "E20" in text
    assert ("另有 2 个故障" if lang == "zh_CN" else "and 2 more faults") in text
    small = render(snap, (60, 18), lang)
    assert len(small) <= 18 and max(cell_len(line) for line in small) <= 60


def test_test_mode_and_e_stop_have_their_own_names(table) -> None:
    harness = table_in_play()
    harness.ctl.maintenance().enter(by="li")
    text = "\n".join(render(snapshot(harness.ctl), (100, 40), "en"))
    assert "test mode" in text and " fault " not in text and "TEST MODE" in text
    harness.ctl.estop("li")
    text = "\n".join(render(snapshot(harness.ctl), (100, 40), "zh_CN"))
    assert "急停" in text and "故障 " not in text


def test_players_keep_off_the_keys_in_test_mode() -> None:
    harness = table_in_play()
    pressed: list[str] = []
    real_press = harness.table.press
    harness.table.press = lambda key, *a, **k: (pressed.append(key), real_press(key, *a, **k))
    service = harness.ctl.maintenance()
    service.enter(by="li")
    # Long enough for players' patience to run out several times over.
    harness.clock.run_until(harness.clock.now() + 600.0)
    assert pressed == [] and service.test_mode and service.running is None
    service.leave(by="li")
    harness.clock.run_until(harness.clock.now() + 600.0)
    assert pressed, "players take up the game again once test mode ends"


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_before_the_first_hand_the_picture_says_the_first_set_is_building(lang: str) -> None:
    # Before: "hand 0 · play" while the table built its first set.
    from firmware.console.render import table_plain
    sides = [{"state": "idle", "stacked": 0, "target": 36} for _ in range(4)]
    snap = {"table": "t1", "t": 3.0, "cycle": 0, "state": "play", "build": "building",
            "set_in_play": None, "set_building": "A", "lamps": {}, "sides": sides,
            "faults": [], "display": ""}
    with language(lang):
        said = table_plain(snap)
    title = render(snapshot_of(snap), (80, 24), lang)[0]
    first = "理第一副牌" if lang == "zh_CN" else "building the first set"
    assert first in said and first in title, (said, title)
    assert "play" not in title and "打牌" not in title


def snapshot_of(status: dict) -> dict:
    from firmware.console.view import snap_from_status
    return snap_from_status(status)
