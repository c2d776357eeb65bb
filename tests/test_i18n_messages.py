"""The messages last left in English: scenario and `[pins]` checks, the config's cross
checks, a plug-in not installed, the HAL's errors, the deal chain's breaks, and the
"why" a fault or an event carries. Chinese when the language is zh_CN; the English and
the stored records (evidence, events) unchanged."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from firmware import i18n
from firmware.console import render
from firmware.faults.kinds import Fault
from firmware.i18n import language
from hal.backends import open_hal
from hal.backends.ioboard import LinkError, open_port
from hal.backends.rpigpio import RpiGpioHal
from hal.interface import HalError
from mjtable_core import plugins
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config, load_config
from mjtable_core.pins import PinMap, parse_pins
from mjtable_core.schema import ConfigError
from rules.chain import verify_history
from simulator.scenario import ScenarioError, parse_scenario
from tests.conftest import events_of, run_for
from tests.steps import fill_all, homed, raise_and_deal
from tests.test_safety import raise_with_conveyor_2_jogged, start_opening

ROOT = Path(__file__).resolve().parent.parent


def both(make, error: type[Exception] = ConfigError) -> tuple[str, str]:
    """The message of the `error` that `make()` raises, in English and in Chinese."""
    said = []
    for lang in ("en", "zh_CN"):
        with language(lang), pytest.raises(error) as exc:
            make()
        said.append(str(exc.value))
    return said[0], said[1]


# -- scenario files ---------------------------------------------------------------------


@pytest.mark.parametrize(("fault", "english", "chinese"), [
    ({"kind": "missing_tiles", "where": "table", "cycle": 1, "phase": "build", "count": 30},
     "[[fault]] #1 count: 30: from 1 to 20", "[[fault]] #1 count: 30：应为 1 到 20"),
    ({"kind": "tile_jam", "where": "lid", "cycle": 1, "phase": "build"},
     "does not fit tile_jam", "不适用于 tile_jam"),
    ({"kind": "tile_jam", "where": "side.1.head", "cycle": 1},
     "give exactly one of phase or at_s", "phase 和 at_s 只填一个"),
    ({"kind": "tile_jam", "where": "side.1.head", "cycle": 9, "phase": "build"},
     "cycle 9 is after the last cycle 3", "第 9 局在最后一局（第 3 局）之后"),
])
def test_a_scenario_check_reads_in_chinese(fault, english, chinese) -> None:
    raw = {"cycles": 3, "fault": [fault]}
    en, zh = both(lambda: parse_scenario(raw, "s.toml"), ScenarioError)
    assert english in en and chinese in zh
    assert zh.startswith("s.toml: [[fault]] #1 ")      # file, table and key stay as written


def test_a_scenario_config_that_is_nowhere_reads_in_chinese(tmp_path: Path) -> None:
    file = str(tmp_path / "s.toml")
    with language("zh_CN"), pytest.raises(ScenarioError) as exc:
        parse_scenario({"config": "nope.toml"}, file)
    assert "场景文件旁边没有这个文件，也没有同名的参考配置" in str(exc.value)


# -- [pins], the config's cross checks and plug-ins ---------------------------------------


@pytest.mark.parametrize(("pins", "english", "chinese"), [
    ({"lid.middle": 5}, "unknown signal", "没有这个信号（信号名见 docs/mechanics.md）"),
    ({"motor.lid": 5}, "the lid motor takes two lines", "中心升降电机要接两根线"),
    ({"display": 5}, "needs a driver chip", "数码管要接驱动芯片"),
    ({"motor.disc": 17, "motor.ring": 17}, "BCM line 17 is already used by motor.disc",
     "BCM 17 号线已经接了 motor.disc"),
    ({"motor.disc": {"pin": 17, "pull": "up"}}, "an output has no pull resistor",
     "输出线没有上下拉电阻"),
    ({"motor.disc": "17"}, "expected a BCM line", "应为 BCM 线号"),
])
def test_a_pins_check_reads_in_chinese(pins, english, chinese) -> None:
    en, zh = both(lambda: parse_pins(pins, "t.toml"))
    assert english in en and chinese in zh
    assert zh.startswith("t.toml: [pins] ")


@pytest.mark.parametrize(("name", "chinese"), [
    ("stacks_do_not_hold_the_set", "墩放不下一副 136 张的牌；应为 17"),
    ("dice_max_below_min", "小于 dice_min_spin_s"),
    ("debounce_hides_double_counts", "会被当成抖动放过"),
    ("drift_margin_makes_drift_impossible", "让 timing.drift 永远报不出来"),
    ("link_timeout_above_head_watchdog", "会被报成机构卡住"),
])
def test_a_config_cross_check_reads_in_chinese(name: str, chinese: str) -> None:
    path = ROOT / "tests" / "bad_configs" / f"{name}.toml"
    expected = path.read_text().splitlines()[0].removeprefix("# expect: ")
    en, zh = both(lambda: load_config(path))
    assert expected in en
    assert chinese in zh


def test_a_plug_in_not_installed_reads_in_chinese() -> None:
    en, zh = both(lambda: plugins.require(plugins.RULES_ENGINES, "nope", "t.toml", "rules",
                                          "engine"))
    assert "no rules engine 'nope' is installed (installed: " in en
    assert zh.startswith("t.toml: [rules] engine: 没有装规则引擎 'nope'（已装：")
    assert "'mjtable.rules_engines'" in zh          # the group is a name: never translated


# -- the HAL -------------------------------------------------------------------------------


def elsewhere(config: Config, backend: str) -> Config:
    return dataclasses.replace(config, hal=dataclasses.replace(config.hal, backend=backend))


def test_a_hal_backend_not_installed_reads_in_chinese(config: Config) -> None:
    en, zh = both(lambda: open_hal(elsewhere(config, "nope"), VirtualClock()), HalError)
    assert en.startswith("HAL backend 'nope' is not installed")
    assert zh.startswith("没有装硬件后端 'nope'") and 'backend = "sim"' in zh


def test_the_backend_the_table_runs_on_is_named_in_chinese(config: Config) -> None:
    with language("zh_CN"):
        opened = open_hal(config, VirtualClock(), seed=3)
    assert opened.description == "自带模拟器（种子 3，模拟玩家）"
    opened.hal.close()


def test_an_io_board_port_that_will_not_open_reads_in_chinese(tmp_path: Path) -> None:
    port = str(tmp_path / "ttyNONE")
    with language("zh_CN"), pytest.raises(LinkError) as exc:
        open_port(port, 115200, "t.toml")
    assert str(exc.value).startswith("t.toml: [ioboard] port：打不开接口板的端口")
    assert "dialout" in str(exc.value)
    assert exc.value.fault_id == "link.lost" and exc.value.evidence == {"port": port}


def test_gpio_on_a_board_that_is_no_pi_reads_in_chinese(config: Config) -> None:
    pi = load_config(ROOT / "config" / "table-pi.toml")
    en, zh = both(lambda: RpiGpioHal(pi.pins, pi.signals(), VirtualClock(), pi.source,
                                     model="Some PC"), HalError)
    assert "drives a Raspberry Pi's GPIO, but this board is 'Some PC'" in en
    assert "用的是树莓派的 GPIO，但这块板子是 'Some PC'" in zh
    # Pins missing for the table's signals: the config error inside, in Chinese too.
    with language("zh_CN"), pytest.raises(HalError) as exc:
        RpiGpioHal(PinMap(), config.signals(), VirtualClock(), "t.toml", model="Some PC")
    assert "信号没分配线" in str(exc.value)


# -- the chain of deal records ------------------------------------------------------------


def record(cycle: int, set_name: str, commitment: str, previous: str | None = None) -> dict:
    return {"table": {"cycle": cycle, "set": set_name}, "commitment": commitment,
            "previous_commitment": previous}


def test_a_broken_chain_reads_in_chinese() -> None:
    records = [(1, record(1, "A", "aa")), (2, record(2, "B", "bb", previous="xx"))]
    with language("en"):
        english = verify_history(records)
    with language("zh_CN"):
        chinese = verify_history(records)
    assert (english.ok, english.line) == (chinese.ok, chinese.line) == (False, 2)
    assert english.problem.startswith("line 2 (hand 2 set B) does not chain")
    assert chinese.problem.startswith("第 2 行（第 2 局 B 副）接不上前一条记录")
    with language("zh_CN"):
        assert verify_history([(1, None)]).problem == "第 1 行不是 JSON 记录"


def test_verify_deals_says_the_break_in_chinese(monkeypatch, capsys) -> None:
    from mjtable.cli import main

    before = i18n.current()
    monkeypatch.setenv("MJTABLE_LANG", "zh_CN")
    lines = "\n".join(json.dumps(r) for _line, r in [
        (1, record(1, "A", "aa")), (2, record(2, "B", "bb", previous="xx"))])
    monkeypatch.setattr("sys.stdin", io.StringIO(lines + "\n"))
    try:
        assert main(["verify-deals", "-"]) == 1
    finally:
        i18n.set_language(before)
    err = capsys.readouterr().err
    assert "第 2 行（第 2 局 B 副）接不上前一条记录" in err and "does not chain" not in err


# -- why: a fault's evidence and an event, as the technician reads them -------------------


def test_a_faults_why_is_stored_in_english_and_shown_in_chinese(rig) -> None:
    ctl, hal, clock = rig
    homed(rig)
    fill_all(rig)
    raise_and_deal(rig)
    with language("zh_CN"):
        hal.edge("key.dice.0", True)
        run_for(clock, 0.1)
        hal.edge("dice.spin", True)
        run_for(clock, 0.5)
        hal.edge("dice.spin", False)            # held while the motor still runs
        fault = ctl.faults[-1].as_dict()
    assert fault["id"] == "dice.stuck"
    # The record is data: the same in every language.
    assert fault["evidence"]["why"] == "tumbling stopped while the dice motor ran"
    with language("zh_CN"):
        lines = render.fault_lines([fault])
        logged = render.log_line({"seq": 1, "t": 2.0, "kind": "fault", **fault})
        evidence = render.evidence_lines(fault["evidence"])
    assert "    判断依据：骰子电机还在转，骰子却不翻滚了" in lines
    assert "why=骰子电机还在转，骰子却不翻滚了" in logged
    assert "    依据：骰子电机还在转，骰子却不翻滚了" in evidence
    with language("en"):
        assert "    seen: tumbling stopped while the dice motor ran" in render.fault_lines(
            [fault])


def test_the_supervisors_why_reads_in_chinese(rig) -> None:
    # A lid whose upper stop was reached unseen: declared degraded on evidence.
    ctl, hal, clock = rig
    events = events_of(ctl)
    start_opening(rig)
    run_for(clock, 3.5)                      # at the top; lid.upper is dead
    ctl.clear_fault(ctl.faults[-1], by="test")
    ctl.resume_after_fault()
    run_for(clock, 1.45)
    hal.edge("lid.lower", True)
    run_for(clock, 0.07)                     # a part-length travel's stop is confirmed
    degraded = ctl.faults[-1].as_dict()
    assert degraded["id"] == "sensor.degraded"
    assert degraded["evidence"]["why"] == ("the travel back took the whole learned time: "
                                           "the stop was reached unseen")
    with language("zh_CN"):
        lines = render.fault_lines([degraded])
        shown = [render.event_detail(e, {"t", "kind"}) for e in events
                 if e["kind"] == "fault"]
    assert "    判断依据：退回用了学到的全程时间：其实已到限位，只是没感应到" in lines
    assert any("why=退回用了学到的全程时间：其实已到限位，只是没感应到" in s for s in shown)


@pytest.mark.parametrize(("why", "chinese"), [
    ("the travel back was slow: the motor is slow, which is no evidence that the stop was "
     "reached", "退回得慢：是电机慢，不能说明已到限位"),
    ("the travel back was short: it was stopped, not the sensor",
     "退回用时短：是被挡住了，不是传感器坏"),
    ("a count at a full side whose conveyor is off",
     "输送带已停、这一口已满，计数光控却又计了一张"),
])
def test_an_events_why_reads_in_chinese_and_is_never_cut(why: str, chinese: str) -> None:
    event = {"t": 1.0, "kind": "sensor.trusted", "sensor": "lid.upper", "why": why}
    with language("zh_CN"):
        assert f"why={chinese}" in render.event_detail(event, {"t", "kind"})
    with language("en"):
        assert f"why={why}" in render.event_detail(event, {"t", "kind"})


def test_a_lost_links_reason_reads_in_chinese() -> None:
    fault = Fault("link.lost", "link", None, 1, 3.0,
                  {"port": "/dev/ttyUSB0", "reason": "board failsafe"}).as_dict()
    with language("zh_CN"):
        lines = render.fault_lines([fault])
    assert "    判断依据：接口板收不到主机的信号，已自行关掉全部输出" in lines
    assert fault["evidence"]["reason"] == "board failsafe"


# -- a jog's stop, as the console says it -----------------------------------------------


def test_why_a_jog_stopped_is_stored_as_before_and_shown_in_chinese() -> None:
    from tests.console.test_maintenance import lid_jogged_up, table

    bench, service, _events = table()
    done = lid_jogged_up(bench, service)
    service.jog("lid", "down", 5.0, "li", done.append)
    bench.controller.estop(by="li")
    assert [d["stopped"] for d in done] == ["reached lid.upper", "aborted: e-stop"]
    with language("zh_CN"):
        shown = [render.jog_lines(d)[0] for d in done]
    assert shown[0].endswith("到达 lid.upper") and shown[1].endswith("已中止：急停")
    with language("zh_CN"):
        assert render.jog_lines({**done[0], "stopped": "time up"})[0].endswith("时间到")


# -- whys with a name or a number inside ---------------------------------------------------


def test_a_build_held_by_a_technicians_jog_says_so_in_chinese(rig) -> None:
    held = raise_with_conveyor_2_jogged(rig, "li")
    assert [e["why"] for e in held] == ["conveyor.2 is held by jog (jog conveyor.2 by li)"]
    with language("zh_CN"):
        assert "why=conveyor.2 正被 jog 占用（jog conveyor.2 by li）" in render.event_detail(
            held[0], {"t", "kind"})


@pytest.mark.parametrize(("why", "chinese"), [
    ("idle for {idle:g} s", "{idle:g} 秒没有动静"),
    ("a request line took over {line:g} s", "一行请求拖了 {line:g} 秒以上"),
    ("it took nothing for {stall:g} s (stopped reading)",
     "对方 {stall:g} 秒没有接收任何数据（不再接收）"),
    ("it stopped reading (send queue full)", "对方不再接收（发送队列已满）"),
])
def test_why_the_api_dropped_a_client_reads_in_chinese(why: str, chinese: str) -> None:
    from firmware.api import server

    limits = {"idle": server.IDLE_S, "line": server.LINE_S, "stall": server.STALL_S}
    row = {"seq": 9, "t": 1.0, "kind": "api.client.dropped", "why": why.format(**limits)}
    with language("zh_CN"):
        assert "why=" + chinese.format(**limits) in render.log_line(row)
    with language("en"):
        assert "why=" + why.format(**limits) in render.log_line(row)


def test_the_daemons_log_says_a_faults_why_in_chinese() -> None:
    from firmware.console.view import log_line

    fault = Fault("sensor.degraded", "lid.upper", None, 2, 40.0, {
        "sensor": "lid.upper",
        "why": "the travel back took the whole learned time: the stop was reached unseen"})
    with language("zh_CN"):
        line = log_line({"t": 40.0, "kind": "fault", **fault.as_dict()})
    assert line is not None
    assert line.endswith("W91 sensor.degraded（lid.upper）: 更换那个传感器 "
                         "（判断依据：退回用了学到的全程时间：其实已到限位，只是没感应到）")


def test_a_mechanism_in_use_is_refused_in_chinese(rig) -> None:
    from firmware.machines.owner import Busy
    from firmware.why import in_use

    ctl, _hal, _clock = rig
    ctl.owner.acquire("jog", ["dice"], "jog dice by li")
    with pytest.raises(Busy) as exc:
        ctl.owner.acquire("diagnosis", ["dice"], "dice_check")
    assert str(exc.value) == "dice is in use by jog (jog dice by li)"
    with language("zh_CN"):
        assert in_use(exc.value) == "dice 正被 jog (jog dice by li) 占用"
