"""A broker that stays down is one line in the log, not one a second."""

from __future__ import annotations

import asyncio

from venue.desk.config import parse
from venue.desk.serve import free_port
from venue.desk.tables.fleet import Fleet
from venue.desk.tables.link import BrokerLink
from venue.desk.tables.store import Store


def test_a_broker_down_is_told_once():
    lines: list[str] = []

    async def run() -> None:
        config = parse({"broker": {"url": f"mqtt://127.0.0.1:{free_port()}"}}, "t.toml")
        link = BrokerLink(config.broker, Fleet(), Store(), log=lines.append)
        task = asyncio.create_task(link.run())
        await asyncio.sleep(2.5)            # three tries, one second apart
        link.stop()
        await asyncio.wait_for(task, 5)
    asyncio.run(run())
    assert len(lines) == 1 and "broker mqtt://127.0.0.1:" in lines[0]
