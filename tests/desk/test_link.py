"""The venue on a real broker: hand records kept once and acknowledged with a command
the table's own check accepts (venue/desk/tables/link.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from bench.helpers.desk_thread import DeskThread
from firmware.service.signed import Refused, Verifier, load_keys
from venue.desk.tables.link import ACK_EVERY_S, new_key


class Table:
    """A table's side of the broker, as its agent speaks it (no daemon)."""

    def __init__(self, url: str, table: str = "t1") -> None:
        host, port = url.removeprefix("mqtt://").rsplit(":", 1)
        self.table = table
        self.commands: list[dict] = []
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"tbl-{table}")
        self.client.on_message = self._command
        self.client.connect(host, int(port))
        self.client.subscribe(f"mjt/v1/{table}/cmd", qos=1)
        self.client.loop_start()

    def _command(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        self.commands.append(json.loads(message.payload))

    def send(self, leaf: str, value: object, retain: bool = False) -> None:
        raw = value if isinstance(value, bytes) else json.dumps(value).encode()
        self.client.publish(f"mjt/v1/{self.table}/{leaf}", raw, qos=1,
                            retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def record(seq: int) -> dict:
    now = time.time()
    # Started today, even in the first minutes after midnight (a hand that started
    # yesterday is yesterday's: the tile counts today's).
    local = time.localtime(now)
    start = now - min(300.0, local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec)
    return {"table": "t1", "boot": 2, "seq": seq, "cycle": seq, "start": start,
            "end": now, "duration_s": now - start, "booking_id": None, "variant": "mcr",
            "ended": "played"}


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[DeskThread, str]]:
    public = new_key(tmp_path / "venue.key")
    desk = DeskThread({"broker": {"key_file": str(tmp_path / "venue.key"),
                                  "key_id": "venue-1"}}).start()
    desk.connected()
    try:
        yield desk, public
    finally:
        desk.stop()


def test_records_are_kept_once_and_acknowledged_up_to_the_first_gap(venue):
    desk, public = venue
    table = Table(desk.broker_url)
    try:
        table.send("avail", b"online", retain=True)
        table.send("usage", {"hands": 5, "acked": 0}, retain=True)
        for seq in (1, 2, 3, 2, 5):         # 2 sent twice, 4 lost on the way
            table.send("event/hand", record(seq))

        def acks_heard() -> list[dict]:
            return [c for c in table.commands if c["cmd"]["name"] == "usage_ack"]
        # Acks are gathered every ACK_EVERY_S: a loaded host may ack 1 or 2 first.
        deadline = time.monotonic() + 30
        while not any(a["cmd"]["args"] == {"seq": 3} for a in acks_heard()):
            assert time.monotonic() < deadline, acks_heard()
            time.sleep(0.02)
        time.sleep(ACK_EVERY_S + 0.2)           # and never past the gap at 4
        last = acks_heard()[-1]
        assert last["cmd"]["args"] == {"seq": 3}
        # The table's own check (firmware/service/signed.py) takes it.
        verifier = Verifier("t1", load_keys({"venue-1": public}), time.time, 300.0)
        assert verifier.check(last).name == "usage_ack"
        with pytest.raises(Refused):
            verifier.check(last)                # and not twice
        tile = desk.call(desk.fleet.tile, "t1")
        assert tile["hands_today"] == 4
        assert len(desk.store.records("2000-01-01", "2100-01-01")) == 4
    finally:
        table.close()
