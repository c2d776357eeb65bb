"""Incidents and their notifications: debounce, escalation, acknowledgement, language.

Apprise sends for real, to a JSON webhook stub on 127.0.0.1; the desk's wall clock is
the test's, so ten seconds of debounce take no time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bench.helpers.webhook_stub import WebhookStub
from venue.desk.faults.incidents import Incidents
from venue.desk.faults.notify import Notifier
from venue.desk.office import Office
from venue.desk.sections import NotifySection

FAULT = {"table": "t7", "code": "E12", "id": "lid.sensor_conflict", "where": "lid",
         "active": True, "summary": "both lid sensors are active at once"}


class Wall:
    def __init__(self) -> None:
        self.now = 1_764_600_000.0

    def __call__(self) -> float:
        return self.now


def run(test: Callable[[WebhookStub], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        stub = await WebhookStub().start()
        try:
            return await test(stub)
        finally:
            await stub.stop()
    return asyncio.run(main())


def notifier(stub: WebhookStub, lang: str = "en", **section: Any
             ) -> tuple[Notifier, Incidents, Office, Wall]:
    wall = Wall()
    office = Office(wall=wall, echo=False)
    config = NotifySection(urls=[stub.url], **section)
    incidents = Incidents(office, config)
    return Notifier(incidents, office, config, lang, wall=wall), incidents, office, wall


async def settle(notify: Notifier, stub: WebhookStub, expect: int) -> list[dict[str, Any]]:
    notify.page_due()
    await notify.drain()
    return await stub.wait(expect, 0.3 if expect == 0 else 5.0)


def test_a_fault_cleared_within_the_debounce_pages_nobody(loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, incidents, office, wall = notifier(stub, debounce_s=10.0)
        notify.fault("t7", FAULT)
        notify.faults("t7", [FAULT])
        wall.now += 3.0
        assert await settle(notify, stub, 0) == []
        notify.faults("t7", [])                 # cleared at the table after 3 s
        for _second in range(12):
            wall.now += 1.0
            assert await settle(notify, stub, 0) == []
        (cleared,) = office.rows("incident.cleared")
        assert cleared["detail"]["paged"] is False
        assert incidents.listed()[0]["paged"] is None
    run(test)


def test_a_fault_that_lasts_is_paged_once_in_the_venues_language(loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, _incidents, office, wall = notifier(stub, lang="zh_CN", debounce_s=10.0)
        notify.fault("t7", FAULT)
        notify.faults("t7", [FAULT])
        wall.now += 9.0
        assert await settle(notify, stub, 0) == []
        wall.now += 1.5
        (body,) = await settle(notify, stub, 1)
        assert "t7" in body["title"] and "E12" in body["title"]
        assert "麻将机" in body["title"] and "故障" in body["title"]
        notify.fault("t7", FAULT)               # the same fault again: the same incident
        notify.faults("t7", [FAULT])
        wall.now += 30
        assert len(await settle(notify, stub, 0)) == 1
        assert [r["detail"]["page"] for r in office.rows("incident.paged")] == ["opened"]
    run(test)


def test_without_debounce_the_page_goes_at_once(loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, *_rest = notifier(stub, debounce_s=0.0)
        notify.fault("t7", FAULT)
        (body,) = await settle(notify, stub, 1)
        assert body["title"] == "Table t7: fault E12 (#1)"
        assert FAULT["summary"] in body["message"]
    run(test)


def test_an_unacknowledged_incident_escalates_once_and_an_acknowledged_one_never(
        loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, incidents, _office, wall = notifier(stub, debounce_s=0.0,
                                                    escalate_after_min=5.0)
        notify.fault("t7", FAULT)
        notify.fault("t8", {**FAULT, "code": "E13"})
        assert len(await settle(notify, stub, 2)) == 2
        t8 = next(i["id"] for i in incidents.listed() if i["table_id"] == "t8")
        assert incidents.acknowledge(t8, "王姐", wall.now)
        wall.now += 4 * 60
        assert len(await settle(notify, stub, 0)) == 2
        wall.now += 61
        bodies = await settle(notify, stub, 3)
        assert len(bodies) == 3 and bodies[2]["title"].startswith("Still not acknowledged")
        assert "t7" in bodies[2]["title"]
        wall.now += 3600
        assert len(await settle(notify, stub, 0)) == 3
    run(test)


def test_an_information_event_opens_no_incident(loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, incidents, *_rest = notifier(stub, debounce_s=0.0)
        notify.fault("t7", {**FAULT, "active": False})
        assert await settle(notify, stub, 0) == [] and incidents.listed() == []
    run(test)


def test_a_notification_server_that_fails_is_logged(loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, _incidents, office, _wall = notifier(stub, debounce_s=0.0)
        notify.section = NotifySection(urls=["json://127.0.0.1:9/nothing-listens"],
                                       send_timeout_s=2.0)
        notify.fault("t7", FAULT)
        await settle(notify, stub, 0)
        assert [r["detail"]["incident"] for r in office.rows("incident.send_failed")] == [1]
    run(test)


@pytest.mark.parametrize("url", ["http://example.com/hook", "slack://x/y/z", "nonsense"])
def test_a_url_apprise_should_not_use_is_a_config_error(url: str) -> None:
    from mjtable_core.schema import ConfigError
    from venue.desk.config import parse

    with pytest.raises(ConfigError, match=r"venue.toml: \[notify\] urls: .*wecombot://"):
        parse({"notify": {"urls": [url]}}, "venue.toml")


def test_pages_carry_the_severity_apprise_understands(loopback_only) -> None:
    # Before: every page went out as Apprise's `info`, a note in WeCom, DingTalk or Bark.
    async def test(stub: WebhookStub) -> None:
        notify, *_rest = notifier(stub, debounce_s=0.0)
        notify.fault("t7", FAULT)
        (error,) = await settle(notify, stub, 1)
        notify.fault("t8", {**FAULT, "table": "t8", "code": "W90", "id": "timing.drift"})
        (warning,) = (await settle(notify, stub, 2))[1:]
        assert (error["type"], warning["type"]) == ("failure", "warning")
    run(test)


def test_an_e_stop_pages_after_the_debounce_and_clears_when_released(loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, incidents, _office, wall = notifier(stub, debounce_s=10.0)
        notify.status("t3", {"estopped": True})
        wall.now += 5.0
        assert await settle(notify, stub, 0) == []
        notify.status("t3", {"estopped": True})     # the status again: the same incident
        notify.faults("t3", [])                     # no fault listed: it stays open
        wall.now += 6.0
        (body,) = await settle(notify, stub, 1)
        assert body["type"] == "failure" and "E-STOP" in body["title"]
        assert "e-stop" in body["message"]
        notify.status("t3", {"estopped": False})
        assert incidents.listed()[0]["cleared"] is not None
    run(test)


def test_a_table_offline_longer_than_the_set_time_pages(loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, _incidents, _office, wall = notifier(stub, debounce_s=10.0,
                                                     offline_after_min=2.0)
        notify.avail("t4", False)
        notify.avail("t5", False)
        wall.now += 60.0
        notify.avail("t5", True)                    # back within the time: nobody paged
        wall.now += 59.0
        assert await settle(notify, stub, 0) == []
        wall.now += 2.0
        (body,) = await settle(notify, stub, 1)
        assert "t4" in body["title"] and body["type"] == "warning"
        assert "offline" in body["message"]
        wall.now += 60.0                            # paged once, not every tick
        assert len(await settle(notify, stub, 0)) == 1
    run(test)


def test_offline_tables_page_nobody_when_the_time_is_zero(loopback_only) -> None:
    async def test(stub: WebhookStub) -> None:
        notify, incidents, _office, wall = notifier(stub, offline_after_min=0.0)
        notify.avail("t4", False)
        wall.now += 86400.0
        assert await settle(notify, stub, 0) == [] and incidents.listed() == []
    run(test)
