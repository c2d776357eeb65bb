"""Home Assistant MQTT discovery: one table as a device of read-only entities.

With `[venue] ha_discovery` on, the agent publishes a retained config for each entity
under `{ha_prefix}/{component}/{table}/{entity}/config`; Home Assistant reads them
whenever it (re)starts and shows the table's state, its faults and its hands from the
topics the agent already publishes (`status`, `faults`, `usage`), offline with `avail`.
Nothing here can command the table: only sensors, never a button or a switch.
"""

from __future__ import annotations

import json
import re
from typing import Any

from firmware.i18n import N_, _, language
from mjtable_core import words
from venue.wire import OFFLINE, ONLINE, Topics

# Home Assistant's node and object ids, and one MQTT topic level of Mosquitto's ACL
# pattern `%u`: a table id outside these letters gets no discovery.
NODE_ID = re.compile(r"^[A-Za-z0-9_-]+$")

# entity: (component, name, topic attribute, value template, extra config)
ENTITIES: dict[str, tuple[str, str, str, str, dict[str, Any]]] = {
    "state": ("sensor", N_("state"), "status", "{{ value_json.state }}", {}),
    "display": ("sensor", N_("display"), "status", "{{ value_json.display }}", {}),
    "fault": ("sensor", N_("fault code"), "faults",
              "{{ value_json.active | map(attribute='code') | join(' ') "
              "if value_json.active else 'OK' }}",
              {"json_attributes_topic": "faults",
               "json_attributes_template": "{{ {'active': value_json.active} | tojson }}"}),
    "problem": ("binary_sensor", N_("fault"), "faults",
                "{{ 'ON' if value_json.active else 'OFF' }}", {"device_class": "problem"}),
    "estop": ("binary_sensor", N_("e-stop"), "status",
              "{{ 'ON' if value_json.estopped else 'OFF' }}", {"device_class": "safety"}),
    "hand_in_play": ("binary_sensor", N_("hand in play"), "status",
                     "{{ 'ON' if value_json.hand_in_play else 'OFF' }}",
                     {"device_class": "running"}),
    "hands": ("sensor", N_("hands"), "usage", "{{ value_json.hands }}",
              {"state_class": "total_increasing"}),
    "play_time": ("sensor", N_("play time"), "usage", "{{ value_json.play_s | round(0) }}",
                  {"device_class": "duration", "unit_of_measurement": "s",
                   "state_class": "total_increasing"}),
}


def usable(table: str) -> bool:
    return bool(NODE_ID.match(table))


def discovery(topics: Topics, table: str, prefix: str, birth: dict[str, Any],
              lang: str | None) -> list[tuple[str, dict[str, Any]]] | None:
    """Every retained config of a table from its birth message (None: the table id
    cannot name Home Assistant's entities). The agent and the demo both publish these."""
    if not usable(table):
        return None
    found = device(table, birth["model"], birth["firmware"], birth["console_url"])
    return configs(topics, table, prefix, found, lang)


def configs(topics: Topics, table: str, prefix: str, device: dict[str, Any],
            lang: str | None) -> list[tuple[str, dict[str, Any]]]:
    """(topic, retained config) of every entity of `table`."""
    out = []
    with language(lang):
        # Home Assistant shows a sensor's value as it is: the table's state and "no
        # faults" in the table's language, by these maps (ids stay in the payloads).
        states = json.dumps({key: words.state(key) for key in words.STATES},
                            ensure_ascii=False)
        none = json.dumps(_("no faults"), ensure_ascii=False)
        said = {"state": "{{ " + states + ".get(value_json.state, value_json.state) }}",
                "fault": "{{ value_json.active | map(attribute='code') | join(' ') "
                         "if value_json.active else " + none + " }}"}
        for key, (component, name, state, template, extra) in ENTITIES.items():
            template = said.get(key, template)
            config: dict[str, Any] = {
                "name": _(name), "unique_id": f"mjtable_{table}_{key}",
                "state_topic": getattr(topics, state), "value_template": template,
                "availability_topic": topics.avail,
                "payload_available": ONLINE.decode(), "payload_not_available": OFFLINE.decode(),
                "device": device, "origin": {"name": "mjtable"},
            }
            for field, value in extra.items():
                config[field] = getattr(topics, value) if field.endswith("_topic") else value
            out.append((f"{prefix}/{component}/{table}/{key}/config", config))
    return out


def device(table: str, model: str, firmware: str, console_url: str | None) -> dict[str, Any]:
    found: dict[str, Any] = {"identifiers": [f"mjtable_{table}"], "name": f"mjtable {table}",
                             "manufacturer": "mjtable", "model": model, "sw_version": firmware}
    # Home Assistant refuses the whole config for a configuration_url that is not a
    # web address: every entity of the table would be lost.
    if console_url and console_url.lower().startswith(("http://", "https://")):
        found["configuration_url"] = console_url
    return found
