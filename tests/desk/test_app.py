"""The venue's pages and API over HTTP (venue/desk/web/app.py and its parts)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from venue.desk.config import parse
from venue.desk.tables.fleet import Fleet
from venue.desk.tables.store import Store, day_of
from venue.desk.web.app import STATIC, make_app

PAGE_BUDGET = 100 * 1024


def fleet_of(count: int) -> Fleet:
    fleet = Fleet()
    for n in range(1, count + 1):
        fleet.feed(f"mjt/v1/t{n}/avail", b"online")
        fleet.feed(f"mjt/v1/t{n}/info", json.dumps(
            {"console_url": f"http://10.0.0.{n}:8781/", "model": "s4", "variant": "mcr"}
        ).encode())
        fleet.feed(f"mjt/v1/t{n}/status", json.dumps(
            {"state": "idle", "hand_in_play": n % 3 == 0, "display": "88"}).encode())
    return fleet


def with_client(fleet: Fleet, test: Callable[[TestClient], Awaitable[Any]],
                store: Store | None = None, raw: dict | None = None) -> Any:
    async def run() -> Any:
        app = make_app(parse(raw or {}, "test.toml"), fleet, store)
        async with TestClient(TestServer(app)) as client:
            log_in(app, client)         # every page is behind the staff login
            return await test(client)
    return asyncio.run(run())


def log_in(app: Any, client: TestClient) -> None:
    from venue.desk.accounts.sessions import COOKIE
    from venue.desk.web.login import SESSIONS

    session_id, _session = app[SESSIONS].open("staff-test")
    client.session.cookie_jar.update_cookies({COOKIE: session_id})


def get(path: str, **headers: str) -> Callable[[TestClient], Awaitable[tuple[int, str, Any]]]:
    async def test(client: TestClient) -> tuple[int, str, Any]:
        response = await client.get(path, headers=headers)
        return response.status, await response.text(), response
    return test


def test_the_page_carries_every_tile_for_the_first_paint():
    status, html, _ = with_client(fleet_of(12), get("/"))
    assert status == 200
    snapshot = json.loads(re.search(r'id="snapshot">(.*?)</script>', html).group(1))
    assert [t["id"] for t in snapshot["tiles"]] == [f"t{n}" for n in range(1, 13)]
    assert {t["state"] for t in snapshot["tiles"]} == {"idle", "playing"}


def test_page_weight_with_a_hundred_tables_is_under_100_kb():
    async def weigh(client: TestClient) -> dict[str, int]:
        page = await client.get("/")
        html = await page.read()
        sizes = {"/": len(html)}
        for asset in re.findall(rb'(?:src|href)="(/static/[^"]+)"', html):
            response = await client.get(asset.decode())
            assert response.status == 200, asset
            sizes[asset.decode()] = len(await response.read())
        return sizes
    sizes = with_client(fleet_of(100), weigh)
    assert {"/static/desk.js", "/static/desk.css"} <= sizes.keys()
    assert sum(sizes.values()) < PAGE_BUDGET, sizes


def test_nothing_on_the_page_or_in_its_assets_comes_from_outside():
    _status, html, _ = with_client(fleet_of(3), get("/"))
    assets = "".join(path.read_text(encoding="utf-8") for path in STATIC.iterdir())
    for text in (html, assets):
        found = re.findall(r"""(?:src|href|url\()\s*=?\s*["']?(?:https?:)?//""", text)
        assert not found
        assert "@import" not in text


def test_the_page_speaks_the_browsers_language():
    _status, html, response = with_client(
        fleet_of(1), get("/", **{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}))
    assert '<html lang="zh-CN">' in html
    assert '离线 <b data-count="offline">' in html
    assert "连接中…" in html and "connecting…" not in html
    assert response.headers["Content-Language"] == "zh-CN"


def test_english_when_the_browser_asks_for_a_language_we_do_not_have():
    _status, html, _ = with_client(fleet_of(1), get("/", **{"Accept-Language": "fr-FR,de"}))
    assert '<html lang="en">' in html


def test_a_picked_language_is_remembered_over_the_browsers():
    async def pick(client: TestClient) -> tuple[str, str, str]:
        picked = await client.get("/?lang=zh_CN", headers={"Accept-Language": "en"})
        cookie = picked.cookies["lang"]
        later = await client.get("/usage", headers={"Accept-Language": "en"})
        return cookie.value, cookie["samesite"], await later.text()
    value, samesite, html = with_client(fleet_of(1), pick)
    assert (value, samesite) == ("zh_CN", "Lax")
    assert '<html lang="zh-CN">' in html


def test_the_stream_sends_every_tile_then_each_change():
    fleet = fleet_of(3)

    async def stream(client: TestClient) -> list[tuple[str, Any]]:
        response = await client.get("/events")
        assert response.headers["Content-Type"] == "text/event-stream"
        events = []

        async def read_event() -> None:
            name, data = "", ""
            while True:
                line = (await response.content.readline()).decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif not line and name:
                    events.append((name, json.loads(data) if data else None))
                    return
        await asyncio.wait_for(read_event(), 5)
        fleet.feed("mjt/v1/t2/faults", b'{"active": [{"code": "E20"}]}')
        await asyncio.wait_for(read_event(), 5)
        response.close()
        return events
    events = with_client(fleet, stream)
    assert events[0][0] == "tiles" and len(events[0][1]["tiles"]) == 3
    assert events[1][0] == "tile"
    assert (events[1][1]["id"], events[1][1]["state"], events[1][1]["fault"]) == (
        "t2", "fault", "E20")


def test_usage_csv_for_billing():
    store = Store()
    now = time.time()
    store.add("t1", {"boot": 1, "seq": 1, "start": now, "duration_s": 3600.0,
                     "booking_id": "B-1"})
    day = day_of(now)
    status, text, response = with_client(Fleet(), get(f"/api/usage.csv?from={day}&to={day}"),
                                         store)
    assert status == 200
    assert response.headers["Content-Type"].startswith("text/csv")
    assert f'filename="usage-{day}-{day}.csv"' in response.headers["Content-Disposition"]
    assert text.lstrip("\ufeff").splitlines() == [
        "day,table,hands,play_s,play_h,bookings,price_per_hour,amount",
        f"{day},t1,1,3600.0,1.000,1,0.00,0.00"]
    status, html, _ = with_client(Fleet(), get("/usage"), store)
    assert status == 200 and "<td>t1</td>" in html


@pytest.mark.parametrize("query", ["from=yesterday", "from=2026-03-02&to=2026-03-01",
                                   "from=2020-01-01&to=2026-01-01"])
def test_a_bad_range_is_one_clear_line(query):
    status, text, _ = with_client(Fleet(), get(f"/api/usage.csv?{query}"))
    assert status == 400
    assert len(text.strip().splitlines()) == 1


def test_parts_add_their_own_routes():
    from aiohttp import web

    def extra(app: web.Application) -> None:
        async def hello(request: web.Request) -> web.Response:
            return web.Response(text="hello")
        app.router.add_get("/hello", hello)

    async def run() -> int:
        app = make_app(parse({}, "t.toml"), Fleet(), parts=[extra])
        async with TestClient(TestServer(app)) as client:
            return (await client.get("/hello")).status, (await client.get("/")).status
    assert asyncio.run(run()) == (200, 404)


def test_a_table_naming_itself_like_markup_cannot_break_the_page():
    fleet = fleet_of(1)
    evil = "<!--<script>"        # a topic level holds no "/"
    fleet.feed(f"mjt/v1/{evil}/avail", b"online")
    fleet.feed("mjt/v1/t1/faults", json.dumps(
        {"active": [{"code": "E20", "summary": "<!--<script>x</script>"}]}).encode())
    _status, html, _ = with_client(fleet, get("/"))
    block = re.search(r'id="snapshot">(.*?)</script>', html).group(1)
    assert "<" not in block
    assert {t["id"] for t in json.loads(block)["tiles"]} == {"t1", evil}
