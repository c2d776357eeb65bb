"""Crafted requests against the desk's login and booking API, and the incidents of a
fault that flaps (venue/desk/: web/login.py, web/booking.py, accounts/staff.py,
faults/incidents.py)."""

from __future__ import annotations

import threading
import time
from typing import Any

from aiohttp.test_utils import TestClient
from argon2.exceptions import VerifyMismatchError

from tests.venue.test_desk_login import logged, login, run
from venue.desk.accounts.sessions import Sessions
from venue.desk.accounts.staff import Cost, LoginRefused, Staff
from venue.desk.faults.incidents import Incidents
from venue.desk.office import Office
from venue.desk.sections import NotifySection, StaffSection


async def csrf(client: TestClient) -> str:
    return (await (await client.get("/api/session")).json())["csrf"]


def test_json_nested_too_deep_is_a_bad_request_not_a_server_error() -> None:
    async def test(client: TestClient, app: Any) -> None:
        await login(client)
        answer = await client.post("/api/tables/t1/enable", data=b"[" * 100_000,
                                   headers={"Content-Type": "application/json",
                                            "X-CSRF-Token": await csrf(client)})
        assert answer.status == 400
        assert logged(app, "booking.bad_request")
    run(test)


def test_a_table_or_booking_id_with_a_trailing_newline_is_refused() -> None:
    async def test(client: TestClient, app: Any) -> None:
        await login(client)
        token = await csrf(client)
        for path, body in (("/api/tables/t1%0A/enable", {"for_s": 60, "booking_id": "B-1"}),
                           ("/api/tables/t1/enable", {"for_s": 60, "booking_id": "B-1\n"})):
            answer = await client.post(path, json=body, headers={"X-CSRF-Token": token})
            assert answer.status == 400, path
        assert len(logged(app, "booking.bad_request")) == 2
    run(test)


def slow_staff(failures: int) -> tuple[Staff, list[int]]:
    section = StaffSection(lockout_failures=failures)
    staff = Staff(Office(echo=False), section, Cost(memory_kib=64, passes=1))
    staff.add("li", "counter-password-1")
    tried: list[int] = []

    class Slow:
        """argon2id's tens of milliseconds, widened; every password wrong."""

        def verify(self, stored: str, password: str) -> bool:
            tried.append(1)
            time.sleep(0.2)
            raise VerifyMismatchError()
    staff.hasher = Slow()           # type: ignore[assignment]
    return staff, tried


def test_guesses_sent_at_once_are_counted_before_they_are_checked() -> None:
    # Before: every guess that started before the count reached the limit was checked
    # (the lock was read before argon2, the count written after), so a burst of
    # parallel logins tried many passwords for each lockout.
    staff, tried = slow_staff(3)
    answers: list[str] = []

    def guess() -> None:
        try:
            staff.verify("li", "wrong-password-0")
        except LoginRefused as refused:
            answers.append(refused.why)
    threads = [threading.Thread(target=guess) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(tried) <= 3
    assert len(answers) == 8 and staff.locked("li")


def test_a_new_password_ends_the_sessions_of_the_old_one() -> None:
    office = Office(echo=False)
    section = StaffSection()
    staff = Staff(office, section, Cost(memory_kib=64, passes=1))
    sessions = Sessions(office, section)
    staff.add("li", "counter-password-1")
    old, _session = sessions.open("li")
    staff.add("li", "counter-password-2")      # the owner resets a leaked password
    assert sessions.find(old) == (None, False)


def test_a_fault_that_flaps_every_two_seconds_is_one_incident_and_one_page() -> None:
    # Before: each flap was a new incident cleared before its debounce ran out, so a
    # table faulting again and again paged nobody; with debounce 0, every flap paged.
    for debounce in (10.0, 0.0):
        incidents = Incidents(Office(echo=False), NotifySection(debounce_s=debounce,
                                                                escalate_after_min=0))
        fault = {"id": "timing.drift", "where": "lift", "code": "E31"}
        pages = []
        now = 1000.0
        for _flap in range(15):             # 30 s of a fault on 1.5 s, off 0.5 s
            incidents.active("t1", [fault], now)
            pages += incidents.due(now)
            now += 1.5
            pages += incidents.due(now)
            incidents.active("t1", [], now)
            now += 0.5
        assert len(pages) == 1, debounce
        assert len(incidents.listed()) == 1, debounce


def test_pages_stuck_on_a_hanging_webhook_do_not_hold_up_staff_logins() -> None:
    # Before: pages ran on asyncio's default executor, the one argon2id logins use: a
    # burst of incidents to a hung chat server took every worker for send_timeout_s
    # and nobody could log in to acknowledge them.
    import asyncio

    from venue.desk.faults.notify import Notifier

    async def main() -> float:
        release = threading.Event()

        def hung(urls: list[str], title: str, body: str, timeout_s: float,
                 notify_type: str = "info") -> bool:
            release.wait(5.0)
            return False
        office = Office(echo=False)
        section = NotifySection(urls=["json://127.0.0.1:9/"], debounce_s=0.0)
        notify = Notifier(Incidents(office, section), office, section, "en", send=hung)
        for table in range(40):             # a power blip: every table faults at once
            notify.fault(f"t{table}", {"id": "power.lost", "where": "main"})
        notify.page_due()
        await asyncio.sleep(0.05)
        started = time.monotonic()
        await asyncio.wait_for(asyncio.to_thread(lambda: None), 3.0)   # a login's turn
        took = time.monotonic() - started
        release.set()
        await notify.drain()
        assert len(notify.sent) == 40          # every page still went (and was logged)
        return took
    assert asyncio.run(main()) < 0.5


def test_the_page_after_login_is_never_another_site() -> None:
    # Browsers drop tabs and newlines from a URL: "/\t/evil.example" is
    # "//evil.example", another site. Before: it passed the check for "//".
    import re

    async def test(client: TestClient, app: Any) -> None:
        for target in ("/\t/evil.example", "/\n/evil.example", "/ /evil.example",
                       "//evil.example", "https://evil.example"):
            form = await client.get("/login")
            token = re.search(r'name="csrf" value="([^"]+)"', await form.text()).group(1)
            answer = await client.post("/login", data={
                "name": "li", "password": "counter-password-1", "csrf": token,
                "next": target}, allow_redirects=False)
            assert answer.status == 303 and answer.headers["Location"] == "/", repr(target)
    run(test)


def test_only_the_table_a_command_was_for_can_answer_it() -> None:
    # Before: the answer was matched by command id alone; a table that could read
    # another's commands (a broker with looser ACLs) could say "accepted" for it,
    # and the mini-program was told a table was open that never opened.
    import asyncio

    from aiohttp.test_utils import TestServer

    from tests.venue.test_desk_login import CONFIG
    from tests.venue.watch import VenueKey
    from venue.desk.config import parse
    from venue.desk.tables.fleet import Fleet
    from venue.desk.web.app import make_app
    from venue.desk.web.login import OFFICE, STAFF
    from venue.signing import sign

    class Impostor:
        def __init__(self, fleet: Fleet) -> None:
            self.fleet, self.key = fleet, VenueKey()

        async def command(self, table: str, name: str, args: dict[str, Any],
                          valid_s: float = 60.0) -> dict[str, Any]:
            now = time.time()
            envelope = sign(self.key.private, {"id": "c1", "table": table, "name": name,
                                               "args": args, "key": "venue-1",
                                               "issued": now, "expires": now + valid_s})
            self.fleet.feed("mjt/v1/t2/cmd/ack", b'{"id": "c1", "accepted": true, '
                            b'"result": {"open": true, "left_s": 60}}')
            return envelope

    async def main() -> int:
        fleet = Fleet()
        fleet.feed("mjt/v1/t1/avail", b"online")
        app = make_app(parse({**CONFIG, "booking": {"ack_wait_s": 0.5}}, "venue.toml"),
                       fleet, link=Impostor(fleet))
        app[OFFICE].echo = False
        app[STAFF].add("li", "counter-password-1")
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            await login(client)
            answer = await client.post("/api/tables/t1/enable",
                                       json={"for_s": 60, "booking_id": "B-1"},
                                       headers={"X-CSRF-Token": await csrf(client)})
            return answer.status
    assert asyncio.run(main()) == 202


def test_a_state_directory_the_venue_cannot_use_is_one_line_for_staff_commands(
        tmp_path, monkeypatch, capsys) -> None:
    # Before: SQLite's own error (the records file is a folder, the disk is
    # read-only, the file is not a database) came out as a traceback.
    import io

    from mjtable.cli import main

    (tmp_path / "venue.sqlite").write_bytes(b"not a database, " * 64)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = main(["venue", "--state-dir", str(tmp_path), "staff", "list"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "venue.sqlite" in err, err



def test_a_second_venue_on_the_same_records_stops_with_one_line(tmp_path, capsys) -> None:
    # Before: both ran, on one file and one broker client id, each taking the
    # broker session from the other every second.
    import asyncio

    from mjtable.cli import main
    from venue.desk.config import parse
    from venue.desk.serve import Desk

    first = Desk(parse({}, "venue.toml"), state_dir=str(tmp_path))
    try:
        code = main(["venue", "--state-dir", str(tmp_path), "--listen", "127.0.0.1:0",
                     "--broker", "mqtt://127.0.0.1:9"])
    finally:
        asyncio.run(first.close())
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "already" in err, err


def test_a_price_that_is_not_one_is_refused_and_said_on_the_usage_page() -> None:
    # -1, 1e309 (infinity), "abc", NaN: the price stays as it was, and the page says why
    # instead of quietly showing the old price as if it had been saved.
    from venue.desk.web.usage import PRICE, price

    async def tried(client: TestClient, app: Any) -> None:
        from venue.desk.accounts.sessions import CSRF_FIELD
        from venue.desk.web.login import OFFICE
        await login(client)
        token = await csrf(client)
        ok = await client.post("/usage/price", data={CSRF_FIELD: token, PRICE: "38.5",
                                                     "back": "/usage"})
        assert ok.status == 200 and 'role="alert"' not in await ok.text()
        for bad in ("-1", "1e309", "abc", "nan", "100001"):
            answer = await client.post("/usage/price", data={
                CSRF_FIELD: token, PRICE: bad, "back": "/usage?from=2026-01-01&to=2026-01-02"})
            text = await answer.text()
            assert answer.status == 200 and 'role="alert"' in text, bad
            assert "2026-01-01" in str(answer.url), answer.url
            assert price(app[OFFICE]) == 38.5, bad
    run(tried)
