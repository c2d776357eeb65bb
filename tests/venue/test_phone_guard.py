"""The phone console's gate, without a browser: who is served, which Host, which
language, and the config that keeps it inside the venue."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import aiohttp
import pytest

from mjtable_core.config import check_phone_listen, load_config
from mjtable_core.schema import Invalid
from tests.venue.own_loop import run_in_own_thread
from venue.agent.phone import guard
from venue.agent.phone.server import PhoneConsole


@pytest.mark.parametrize("listen", ["8.8.8.8:8470", "0.0.0.0:8470", "[::]:8470",
                                    "phone:8470", "192.168.1.31:99999"])
def test_a_console_outside_the_venue_or_malformed_is_refused(listen: str) -> None:
    with pytest.raises(Invalid):
        check_phone_listen(listen)


def test_lan_and_loopback_addresses_are_accepted() -> None:
    for listen in ("127.0.0.1:8470", "192.168.1.31:8470", "10.0.0.7:80", "[fd00::7]:8470"):
        check_phone_listen(listen)
    assert load_config().venue.phone_listen.startswith("127.0.0.1:")


def test_trusted_networks_hosts_origins_and_languages() -> None:
    lan = guard.networks("192.168.1.0/24, ::1/128")
    assert guard.trusted("192.168.1.40", lan) and guard.trusted("::1", lan)
    assert guard.trusted("::ffff:192.168.1.40", lan)
    assert not guard.trusted("192.168.2.40", lan) and not guard.trusted("", lan)
    assert guard.good_host("192.168.1.31:8470") and guard.good_host("[::1]:8470")
    assert guard.good_host("localhost:8470")
    assert not guard.good_host("evil.example:8470")        # DNS rebinding
    assert guard.good_host("t7.venue.lan", "http://t7.venue.lan:8470/")
    assert guard.same_origin(None, None, "192.168.1.31:8470")
    assert guard.same_origin("http://192.168.1.31:8470", "same-origin", "192.168.1.31:8470")
    assert not guard.same_origin("http://192.168.1.31:9999", None, "192.168.1.31:8470")
    assert not guard.same_origin(None, "same-site", "192.168.1.31:8470")
    assert not guard.csrf_ok("abc", None) and not guard.csrf_ok("abc", "abd")
    assert guard.choose_language(None, "zh-CN,zh;q=0.9,en;q=0.8", "en") == "zh_CN"
    assert guard.choose_language(None, "en-US,en;q=0.9,zh;q=0.8", "zh_CN") == "en"
    assert guard.choose_language(None, "fr-FR, zh-TW;q=0.5", "en") == "zh_CN"
    assert guard.choose_language("en", "zh-CN", "zh_CN") == "en"      # the reader's pick
    assert guard.choose_language(None, None, "zh_CN") == "zh_CN"


async def fetch(console: PhoneConsole, path: str, **headers: str) -> tuple[int, str]:
    host, port = console.address or ("", 0)
    async with aiohttp.ClientSession() as session, session.get(
            f"http://{host}:{port}{path}", headers=headers) as reply:
        return reply.status, await reply.text()


def test_an_address_outside_the_trusted_networks_sees_nothing(tmp_path: Path) -> None:
    base = load_config()
    config = dataclasses.replace(base, venue=dataclasses.replace(
        base.venue, phone_networks="10.0.0.0/8"))

    async def run() -> None:
        outside = PhoneConsole(config, tmp_path / "no-daemon.sock", "127.0.0.1:0")
        inside = PhoneConsole(base, tmp_path / "no-daemon.sock", "127.0.0.1:0")
        await outside.start()
        await inside.start()
        try:
            for path in ("/", "/api/view", "/static/phone.js"):
                status, text = await fetch(outside, path)
                assert status == 403 and "venue's own network" in text
            status, text = await fetch(inside, "/", **{"Accept-Language": "zh-CN"})
            assert status == 200 and "手机控制台" in text
            status, _text = await fetch(inside, "/", Host="evil.example")
            assert status == 421
            status, text = await fetch(inside, "/api/view")
            assert status == 200 and '"online": false' in text
        finally:
            await outside.close()
            await inside.close()

    run_in_own_thread(run)


def test_the_agent_refuses_a_public_phone_address_in_one_line(capsys) -> None:
    from mjtable.cli import main

    assert main(["agent", "--phone", "8.8.8.8:8470", "--broker", "mqtt://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "venue's own network" in err[0]
