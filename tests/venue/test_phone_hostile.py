"""The phone console attacked from the venue's LAN at the HTTP level: bodies a page
never sends are a 400, never a crash; a device with no token cannot push a logged-in
technician out of the console."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import aiohttp
import pytest

from firmware.api.auth import Cost, Technicians
from firmware.api.server import ApiServer
from firmware.diagnosis.guided import SYMPTOMS
from mjtable_core.config import load_config
from tests.test_diagnosis import table_in_play
from tests.venue.own_loop import run_in_own_thread
from venue.agent.phone import sessions
from venue.agent.phone.server import PhoneConsole

TOKEN = "li-token-0123"
CHEAP = Cost(memory_kib=64, passes=1)
SYMPTOM = next(iter(SYMPTOMS))


@pytest.fixture
def short() -> Iterator[Path]:
    """A short folder: a Unix socket's path must fit in 108 bytes."""
    path = Path(tempfile.mkdtemp(prefix="ph-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


Scenario = Callable[[PhoneConsole, str], Awaitable[None]]


def against_a_table(state: Path, scenario: Scenario, table: list | None = None) -> None:
    """`scenario(console, url)` with the console before the daemon's API on a simulated
    table (its controller put in `table`), in a thread of its own (a browser test
    before may hold this thread's loop)."""
    technicians = Technicians(state / "technicians.json", CHEAP)
    for name in ("li", "wang", "zhao", "chen", "sun"):
        technicians.add(name, f"{name}-token-0123")

    async def run() -> None:
        ctl = table_in_play().ctl
        server = ApiServer(ctl, ctl.maintenance(), technicians, None)
        if table is not None:
            table.extend((ctl, server))
        await server.start_unix(state / "api.sock")
        console = PhoneConsole(load_config(), state / "api.sock", "127.0.0.1:0")
        await console.start()
        host, port = console.address or ("", 0)
        try:
            await scenario(console, f"http://{host}:{port}")
        finally:
            await console.close()
            await server.close()

    run_in_own_thread(run)


async def page(http: aiohttp.ClientSession, url: str) -> str:
    """The page's CSRF token (and its visitor cookie, kept in `http`)."""
    async with http.get(url + "/") as reply:
        text = await reply.text()
    return json.loads(re.search(r'id="boot">(.*?)</script>', text, re.S)[1])["csrf"]


def phone(address: str | None = None) -> aiohttp.ClientSession:
    """A phone's browser (from `address` on the loopback, when given)."""
    return aiohttp.ClientSession(
        cookie_jar=aiohttp.CookieJar(unsafe=True),
        connector=aiohttp.TCPConnector(local_addr=(address, 0)) if address else None)


def test_bodies_no_page_sends_are_refused_not_a_server_error(short: Path) -> None:
    answers: list[tuple[int, str]] = []

    async def scenario(_console: PhoneConsole, url: str) -> None:
        async with phone() as http:
            csrf = await page(http, url)
            headers = {"X-CSRF-Token": csrf}
            for path, kind, body in (
                    ("/api/lang", "application/json", "[" * 3000),        # nested deep
                    ("/api/jog/keep", "application/x-www-form-urlencoded",
                     "hold=%C2%B2"),                                       # "²", a digit
                    ("/api/score", "application/json", '{"seat": ' + "[" * 3000),
                    ("/api/lang", "application/json", " " * 100_000)):     # too big
                async with http.post(url + path, data=body.encode(),
                                     headers={**headers, "Content-Type": kind}) as reply:
                    answers.append((reply.status, await reply.text()))

    against_a_table(short, scenario)
    assert [status for status, _text in answers] == [400, 401, 400, 413], answers
    assert all(text.startswith("{") for _status, text in answers[:3])


@pytest.mark.parametrize("origin", ["null", "http://127.0.0.1.evil.example",
                                    "http://evil.example", "http://127.0.0.1:1"])
def test_a_post_from_another_origin_is_refused_even_with_the_token(short: Path,
                                                                   origin: str) -> None:
    answers: list[int] = []

    async def scenario(_console: PhoneConsole, url: str) -> None:
        async with phone() as http:
            csrf = await page(http, url)
            async with http.post(url + "/api/diagnose", json={"symptom": SYMPTOM},
                                 headers={"X-CSRF-Token": csrf, "Origin": origin}) as reply:
                answers.append(reply.status)

    against_a_table(short, scenario)
    assert answers == [403]


def test_a_device_without_a_token_cannot_push_a_technician_out(short: Path) -> None:
    """Four technicians logged in (the most a table takes), their pages quiet for a
    while (screens locked): a wrong guess from the LAN is refused and logs nobody
    out; only a technician who logs in takes the quietest one's place."""
    seen: list[tuple[int, list[str]]] = []

    async def scenario(console: PhoneConsole, url: str) -> None:
        phones = [phone() for _ in range(5)]
        try:
            for http, name in zip(phones, ("li", "wang", "zhao", "chen"), strict=False):
                csrf = await page(http, url)
                async with http.post(url + "/api/login", headers={"X-CSRF-Token": csrf},
                                     json={"name": name, "token": f"{name}-token-0123"}
                                     ) as reply:
                    assert reply.status == 200, await reply.text()
            for session in console.sessions._by_id.values():
                session.seen -= sessions.SILENT_S + 1            # every screen locked
            guesser = phones[4]
            csrf = await page(guesser, url)
            for name, token in (("li", "guess-0123456"), ("sun", "sun-token-0123")):
                async with guesser.post(url + "/api/login", headers={"X-CSRF-Token": csrf},
                                        json={"name": name, "token": token}) as reply:
                    seen.append((reply.status, sorted(
                        t["technician"] for t in console.sessions.technicians())))
        finally:
            for http in phones:
                await http.close()

    against_a_table(short, scenario)
    four = ["chen", "li", "wang", "zhao"]
    assert seen[0] == (403, four)                 # the wrong guess pushed nobody out
    assert seen[1][0] == 200 and len(seen[1][1]) == 4 and "sun" in seen[1][1]


def test_a_burst_of_open_reads_leaves_the_technicians_a_connection(short: Path) -> None:
    """A page with no login may ask for diagnosis and post a score: forty at once from
    one device must not take every connection the daemon allows the agent's uid
    (then the technician's login, and every reader's request, would be refused)."""
    answers: list[int] = []

    async def scenario(_console: PhoneConsole, url: str) -> None:
        async with phone() as http, phone() as technician:
            csrf = await page(http, url)
            own = await page(technician, url)

            async def diagnose() -> int:
                async with http.post(url + "/api/diagnose", headers={"X-CSRF-Token": csrf},
                                     json={"symptom": SYMPTOM}) as reply:
                    return reply.status

            async def login() -> int:
                async with technician.post(url + "/api/login",
                                           headers={"X-CSRF-Token": own},
                                           json={"name": "li", "token": TOKEN}) as reply:
                    return reply.status

            answers.extend(await asyncio.gather(*[diagnose() for _ in range(40)], login()))

    against_a_table(short, scenario)
    assert answers == [200] * 41, answers


def test_a_burst_of_guesses_leaves_the_technician_a_connection(short: Path) -> None:
    """Guesses posted at once each wait for the daemon's verdict on a connection of
    their own: a burst of them must not take every connection the agent's uid has."""
    answers: list[int] = []

    async def scenario(_console: PhoneConsole, url: str) -> None:
        # The technician's own phone: guesses from another lock that phone only
        # (venue/agent/phone/lockout.py).
        async with phone() as http, phone("127.0.0.2") as technician:
            csrf = await page(http, url)
            own = await page(technician, url)

            async def login(client: aiohttp.ClientSession, token: str, name: str) -> int:
                async with client.post(url + "/api/login", headers={"X-CSRF-Token": token},
                                       json={"name": name, "token": TOKEN}) as reply:
                    return reply.status

            answers.extend(await asyncio.gather(
                *[login(http, csrf, f"guess{n}") for n in range(18)],
                login(technician, own, "li")))

    against_a_table(short, scenario)
    assert answers[-1] == 200, answers
    assert 503 not in answers, answers


def test_a_device_opening_page_after_page_ends_only_its_own_sessions(short: Path) -> None:
    """A player's page (its score form half tapped in) keeps its session while another
    device on the LAN loads the page hundreds of times."""
    answers: list[int] = []

    async def scenario(_console: PhoneConsole, url: str) -> None:
        other = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with phone() as player, aiohttp.ClientSession(connector=other) as flood:
            csrf = await page(player, url)
            for _ in range(sessions.MAX_VISITORS + 10):
                async with flood.get(url + "/") as reply:   # no cookie kept: a new one
                    await reply.read()
            async with player.post(url + "/api/diagnose", headers={"X-CSRF-Token": csrf},
                                   json={"symptom": SYMPTOM}) as reply:
                answers.append(reply.status)

    against_a_table(short, scenario)
    assert answers == [200]


def test_a_technicians_stop_stops_only_the_jog_their_own_page_started(short: Path) -> None:
    """Two technicians at one table: li holds the dice motor; wang's page sends a stop
    with no jog of its own (a beacon after a post that did arrive, a crafted post).
    li's motor runs on and li's page still keeps it; li's own release stops it."""
    running: list[bool] = []

    async def scenario(console: PhoneConsole, url: str) -> None:
        ctl = console_table[0]
        async with phone() as li, phone() as wang:
            tokens = {}
            for http, name in ((li, "li"), (wang, "wang")):
                csrf = await page(http, url)
                async with http.post(url + "/api/login", headers={"X-CSRF-Token": csrf},
                                     json={"name": name, "token": f"{name}-token-0123"}
                                     ) as reply:
                    tokens[name] = (await reply.json())["csrf"]

            async def post(http: aiohttp.ClientSession, name: str, path: str,
                           body: dict) -> dict:
                async with http.post(url + path, headers={"X-CSRF-Token": tokens[name]},
                                     json=body) as reply:
                    answer = await reply.json()
                    assert reply.status == 200, answer
                    return answer

            await post(li, "li", "/api/testmode", {"on": True, "force": True})
            hold = (await post(li, "li", "/api/jog/start",
                               {"motor": "dice", "direction": "fwd"}))["hold"]
            running.append(bool(ctl.hal.read("motor.dice")))
            await post(wang, "wang", "/api/jog/stop", {})
            running.append(bool(ctl.hal.read("motor.dice")))
            await post(li, "li", "/api/jog/keep", {"hold": hold})
            await post(li, "li", "/api/jog/stop", {"hold": hold})
            running.append(bool(ctl.hal.read("motor.dice")))

    console_table: list = []
    against_a_table(short, scenario, console_table)
    assert running == [True, True, False]


def test_logins_at_once_never_let_in_more_technicians_than_a_table_takes(
        short: Path) -> None:
    """Three technicians in, two more log in at the same moment: one of them is told the
    table is full (each technician holds one of the daemon's few connections)."""
    answers: list[int] = []
    counted: list[int] = []

    async def scenario(console: PhoneConsole, url: str) -> None:
        phones = [phone() for _ in range(5)]
        try:
            tokens = [await page(http, url) for http in phones]

            async def login(n: int, name: str) -> int:
                async with phones[n].post(url + "/api/login",
                                          headers={"X-CSRF-Token": tokens[n]},
                                          json={"name": name, "token": f"{name}-token-0123"}
                                          ) as reply:
                    return reply.status

            for n, name in enumerate(("li", "wang", "zhao")):
                assert await login(n, name) == 200
            answers.extend(sorted(await asyncio.gather(login(3, "chen"), login(4, "sun"))))
            counted.append(len(console.sessions.technicians()))
        finally:
            for http in phones:
                await http.close()

    against_a_table(short, scenario)
    assert answers == [200, 409] and counted == [sessions.MAX_TECHNICIANS]


def test_logging_in_again_from_a_logged_in_page_closes_its_old_connection(
        short: Path) -> None:
    """A technician's page that logs in again (as another name, or the same): the old
    session's daemon connection is closed, not left open and logged in where nothing
    can reach or count it (the agent's uid has only 16)."""
    counted: list[int] = []

    async def scenario(console: PhoneConsole, url: str) -> None:
        server = table[1]
        async with phone() as http:
            csrf = await page(http, url)
            await asyncio.sleep(0.05)
            before = len(server.clients)
            for name in ("li", "wang", "li"):
                async with http.post(url + "/api/login", headers={"X-CSRF-Token": csrf},
                                     json={"name": name, "token": f"{name}-token-0123"}
                                     ) as reply:
                    assert reply.status == 200, await reply.text()
                    csrf = (await reply.json())["csrf"]
            await asyncio.sleep(0.1)
            counted.extend((before, len(server.clients)))

    table: list = []
    against_a_table(short, scenario, table)
    assert counted[1] == counted[0] + 1, counted
