"""Home Assistant MQTT discovery: what a venue's Home Assistant reads when it starts
(retained configs) and the values its templates give. On a real Mosquitto inside the
agent's test (tests/venue/test_agent_mosquitto.py), to share its daemon and agent."""

from __future__ import annotations

import json

import jinja2

from bench.helpers.venue_brokers import VENUE_PASSWORD, VENUE_USER, Mosquitto
from bench.helpers.venue_tables import wait_for
from firmware.i18n import language
from mjtable_core import words
from tests.venue.watch import Watcher
from venue import homeassistant
from venue.wire import Topics

TOPICS = [("mjt/v1/#", 1), ("homeassistant/#", 1)]


def render(template: str, payload: bytes) -> str:
    # Home Assistant renders value templates with Jinja2, the payload as value_json.
    return jinja2.Environment().from_string(template).render(value_json=json.loads(payload))


def check_home_assistant(broker: Mosquitto, watcher: Watcher) -> None:
    """What a Home Assistant starting now finds: every config retained, each template
    giving the table's value from the retained topics. Called by the agent's test on
    Mosquitto (tests/venue/test_agent_mosquitto.py), whose table has discovery on."""
    wait_for(lambda: all(watcher.on(f"mjt/v1/t1/{topic}")
                         for topic in ("status", "usage", "faults")), 10, "the first state")
    ha = Watcher(broker.port, VENUE_USER, VENUE_PASSWORD, topic=TOPICS)
    try:
        configs = wait_for(lambda: len(ha.retained("homeassistant/")) == len(
            homeassistant.ENTITIES) and ha.retained("homeassistant/"), 10, "every config")
        wait_for(lambda: {"mjt/v1/t1/status", "mjt/v1/t1/usage", "mjt/v1/t1/faults"} <= set(
            ha.retained("mjt/v1/t1/")), 10, "the retained state")
        retained = ha.retained("mjt/v1/t1/")
    finally:
        ha.close()
    assert {json.loads(c)["unique_id"] for c in configs.values()} == {
        f"mjtable_t1_{k}" for k in homeassistant.ENTITIES}
    values = {}
    for topic, raw in configs.items():
        config = json.loads(raw)
        assert topic.endswith(f"/t1/{config['unique_id'].removeprefix('mjtable_t1_')}/config")
        assert config["availability_topic"] == "mjt/v1/t1/avail"
        assert config["device"]["identifiers"] == ["mjtable_t1"]
        assert not any(k.startswith("command") for k in config), "read-only only"
        values[config["unique_id"]] = render(config["value_template"],
                                             retained[config["state_topic"]])
    status = json.loads(retained["mjt/v1/t1/status"])
    usage = json.loads(retained["mjt/v1/t1/usage"])
    faults = json.loads(retained["mjt/v1/t1/faults"])
    with language("en"):        # the agent's [venue] language here: English
        assert values["mjtable_t1_state"] == words.state(status["state"])
    assert values["mjtable_t1_hands"] == str(usage["hands"])
    assert values["mjtable_t1_problem"] == ("ON" if faults["active"] else "OFF")
    assert values["mjtable_t1_fault"] == (" ".join(f["code"] for f in faults["active"])
                                          or "no faults")
    assert values["mjtable_t1_estop"] == "OFF"


def test_a_fault_shows_with_its_code_in_the_templates() -> None:
    topics = Topics("t1")
    configs = dict(homeassistant.configs(topics, "t1", "homeassistant",
                                         homeassistant.device("t1", "m", "1", None), "en"))
    faults = json.dumps({"table": "t1", "active": [{"code": "W90", "id": "timing.drift"},
                                                   {"code": "E12", "id": "lid.jam"}]}).encode()
    fault = configs["homeassistant/sensor/t1/fault/config"]
    assert render(fault["value_template"], faults) == "W90 E12"
    assert json.loads(render(fault["json_attributes_template"], faults))["active"][1][
        "code"] == "E12"
    problem = configs["homeassistant/binary_sensor/t1/problem/config"]
    assert render(problem["value_template"], faults) == "ON"


def test_state_values_are_in_the_venues_language() -> None:
    # Before: Home Assistant showed "play", "fault" and "OK" on a Chinese venue's screens.
    topics = Topics("t1")
    configs = dict(homeassistant.configs(topics, "t1", "homeassistant",
                                         homeassistant.device("t1", "m", "1", None), "zh_CN"))
    state = configs["homeassistant/sensor/t1/state/config"]["value_template"]
    fault = configs["homeassistant/sensor/t1/fault/config"]["value_template"]
    assert render(state, b'{"state": "fault"}') == "故障"
    assert render(state, b'{"state": "something_new"}') == "something_new"
    assert render(fault, b'{"active": []}') == "没有故障"
    assert render(fault, b'{"active": [{"code": "E12"}]}') == "E12"


def test_entity_names_are_in_the_venues_language() -> None:
    configs = homeassistant.configs(Topics("t1"), "t1", "homeassistant",
                                    homeassistant.device("t1", "m", "1", None), "zh_CN")
    names = {topic.split("/")[3]: config["name"] for topic, config in configs}
    assert names["fault"] == "故障代码" and names["hands"] == "局数"


def test_a_table_id_outside_home_assistants_letters_gets_no_discovery() -> None:
    assert homeassistant.usable("t-1_B") and not homeassistant.usable("桌1")
    assert not homeassistant.usable("t/1")


def test_a_console_url_that_is_not_http_is_left_out_of_the_device() -> None:
    """Home Assistant refuses a discovery config whose device has a configuration_url
    that is not a web address: a careless `console_url = "t1.local:8470"` lost every
    entity of the table. The venue's dashboard links only http(s) too."""
    assert "configuration_url" not in homeassistant.device("t1", "m", "1", "t1.local:8470")
    assert "configuration_url" not in homeassistant.device("t1", "m", "1",
                                                           "javascript:alert(1)")
    assert homeassistant.device("t1", "m", "1", "http://10.0.0.7:8470/")[
        "configuration_url"] == "http://10.0.0.7:8470/"
