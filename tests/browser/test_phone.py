"""The phone console in headless Chromium at a phone's size, against a simulated
daemon at real speed: one column with no horizontal scroll, login, test mode and
hold-to-run jog (releasing stops the motor, seen in the daemon's signals), a killed
tab stopped by the daemon's own cap, and no way to move a motor without a login."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from firmware.machines.maintenance import HOLD_S
from tests.browser.conftest import WAIT_MS, Guarded, leaves_loopback
from tests.browser.phone_rig import TOKEN, TableProcess

PHONE = {"width": 390, "height": 844}
PAGE_BUDGET = 100 * 1024
SAMPLE_S = 0.1          # the daemon samples its signals this often (firmware/api/server.py)


@pytest.fixture
def browser(chromium: Any) -> Iterator[Guarded]:
    """A fresh page (no cookies) whose requests are watched, not intercepted: a
    hold's keeps must not wait for this process to answer a route (under load that
    alone outlasts the daemon's cap). Any request beyond loopback fails the test."""
    outside: list[str] = []

    def note(request: Any) -> None:
        if leaves_loopback(request.url):
            outside.append(request.url)

    chromium.clear_cookies()
    chromium.on("request", note)
    page = chromium.new_page()
    guarded = Guarded(page, outside)
    try:
        yield guarded
    finally:
        with contextlib.suppress(Exception):
            guarded.page.close()
        chromium.remove_listener("request", note)
    assert not outside, f"requests left loopback: {outside}"


@pytest.fixture(scope="module")
def rig() -> Iterator[TableProcess]:
    table = TableProcess()
    try:
        yield table
    finally:
        table.close()


@pytest.fixture(autouse=True)
def logged_out(rig: TableProcess) -> Iterator[None]:
    """Each test's technician logs out after it (a table takes four at once)."""
    yield
    rig.log_everyone_out()


def phone_page(browser: Any, rig: TableProcess, lang: str = "en") -> Any:
    """The console at a phone's size; Chinese as a reader picks it (the 中文 button)."""
    page = browser.page
    page.set_viewport_size(PHONE)
    page.goto(rig.url)
    page.locator("#lamps li").first.wait_for(timeout=WAIT_MS)
    if page.locator("html").get_attribute("lang") != lang.replace("_", "-"):
        with page.expect_navigation():
            page.click(f"[data-lang={lang}]")
        page.locator("#lamps li").first.wait_for(timeout=WAIT_MS)
    return page


def log_in(page: Any) -> str:
    """Log in as li; the session's CSRF token from the reply."""
    page.fill("#name", "li")
    page.fill("#token", TOKEN)
    with page.expect_response("**/api/login") as reply:
        page.click("#login button[type=submit]")
    assert reply.value.status == 200
    page.locator("#tools").wait_for(state="visible", timeout=WAIT_MS)
    return reply.value.json()["csrf"]


def enter_test_mode(page: Any, rig: TableProcess, said: str = "test mode") -> None:
    page.click("#tm-on")
    deadline = time.monotonic() + 60
    while not rig.test_mode():
        assert time.monotonic() < deadline, page.locator("#message").inner_text()
        if page.locator("#tm-force").is_visible():     # a set was being built
            with contextlib.suppress(Exception):    # gone as the view refreshed
                page.click("#tm-force", timeout=1000)
        page.wait_for_timeout(50)
    page.locator("#state", has_text=said).wait_for(timeout=WAIT_MS)


def press_jog(page: Any, rig: TableProcess, motor: str = "dice") -> float:
    """Press and keep the jog button down until the daemon's signals show the motor."""
    page.select_option("#motor", motor)
    button = page.locator("#jog-buttons button").first
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    pressed = time.monotonic()
    page.mouse.down()
    try:
        rig.watcher.wait(lambda: rig.watcher.signal_at("motor.dice", True, pressed),
                         idle=pump(page))
    except AssertionError:
        raise AssertionError(page.locator("#jog-state").inner_text()) from None
    return pressed


def pump(page: Any) -> Any:
    """Wait a little inside Playwright, which serves the routed requests meanwhile."""
    return lambda: page.wait_for_timeout(10)


def post(rig: TableProcess, path: str, body: dict, cookie: str = "", csrf: str = "") -> int:
    request = urllib.request.Request(rig.url.rstrip("/") + path, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"}, method="POST")
    if cookie:
        request.add_header("Cookie", f"mjt_s={cookie}")
    if csrf:
        request.add_header("X-CSRF-Token", csrf)
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status
    except urllib.error.HTTPError as refused:
        return refused.code


def session_cookie(browser: Any) -> str:
    return next(c["value"] for c in browser.page.context.cookies() if c["name"] == "mjt_s")


def test_the_page_fits_a_phone_in_both_languages_under_100_kb(browser, rig) -> None:
    page = browser.page
    sizes: dict[str, int] = {}
    page.on("response", lambda r: sizes.__setitem__(r.url, len(r.body()))
            if r.request.method == "GET" and "/api/" not in r.url else None)
    for lang, heading in (("en", "active faults"), ("zh_CN", "故障")):
        phone_page(browser, rig, lang)
        assert heading in page.locator("body").inner_text()
        fits = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert fits[0] <= fits[1] == PHONE["width"], fits
        # Every target a thumb presses is at least 44 px each way.
        small = page.evaluate("""() => [...document.querySelectorAll('button, select, input')]
            .filter(e => e.offsetParent !== null)
            .map(e => [e.id || e.textContent, e.getBoundingClientRect()])
            .filter(([, r]) => r.width < 44 || r.height < 44).map(([n]) => n)""")
        assert small == []
    assert sum(sizes.values()) < PAGE_BUDGET, sizes
    # The pick is remembered (a cookie) until the reader picks again.
    page.goto(rig.url)
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    phone_page(browser, rig, "en")


def test_a_view_asked_for_before_the_login_does_not_log_the_page_out(browser, rig) -> None:
    """The page polls the table's view; one asked for before the login that arrives
    after it (a slow phone link, a loaded host) says nobody is logged in. It must not
    hide the tools the login just showed (it did: the login form came back)."""
    page = phone_page(browser, rig)
    held: list[tuple[Any, Any]] = []
    asked = [0]

    def hold_one(route: Any) -> None:
        asked[0] += 1
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))     # answered now: nobody logged in

    def wait_for_views(count: int) -> None:
        deadline = time.monotonic() + 30
        while asked[0] < count:
            assert time.monotonic() < deadline, "the page asked for no view"
            page.wait_for_timeout(50)

    page.route("**/api/view", hold_one)
    wait_for_views(1)
    log_in(page)
    route, stale = held[0]
    route.fulfill(response=stale)
    # The next poll comes a poll period after the stale view was answered: shown by then.
    wait_for_views(asked[0] + 1)
    page.unroute("**/api/view")
    assert page.locator("#tools").is_visible()
    assert page.locator("#login").is_hidden()


def test_login_test_mode_hold_to_jog_and_a_self_test(browser, rig) -> None:
    page = phone_page(browser, rig)
    log_in(page)
    enter_test_mode(page, rig)
    pressed = press_jog(page, rig)
    page.wait_for_timeout(3000 * HOLD_S)    # past the daemon's cap: the page's keeps carry it
    assert rig.watcher.events("service.jog", pressed) == []
    assert rig.watcher.signal_at("motor.dice", False, pressed) is None
    released = time.monotonic()
    page.mouse.up()
    off = rig.watcher.wait(lambda: rig.watcher.signal_at("motor.dice", False, released),
                           idle=pump(page))
    (ended,) = rig.watcher.wait(lambda: rig.watcher.events("service.jog", pressed))
    assert ended["stopped"] == "released" and ended["by"] == "li"
    assert off - released < HOLD_S      # the release stopped it, not the cap
    page.locator("#jog-state", has_text="stopped").wait_for(timeout=WAIT_MS)
    # A self-test from the phone: the dice's, its result as the display says it.
    page.select_option("#mechanism", "dice")
    page.click("#run-test")
    page.locator("#message", has_text="15P").wait_for(timeout=15000)


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rpartition(")")[2].split()[1])


def renderers() -> set[int]:
    """Chromium's renderer processes started by this process (never another's), by
    their command line (a zygote child's is one string)."""
    found = set()
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if b"chromium" not in line or b"--type=renderer" not in line or (
                    b"--top-chrome-webui" in line):
                continue
            pid = ancestor = int(entry.name)
            for _ in range(12):
                ancestor = _parent(ancestor)
                if ancestor in (0, 1, me):
                    break
            if ancestor == me:
                found.add(pid)
    return found


def test_a_killed_tab_is_stopped_by_the_daemon_within_its_cap(browser, rig) -> None:
    page = phone_page(browser, rig)
    log_in(page)
    enter_test_mode(page, rig)
    pressed = press_jog(page, rig)
    # The browser's renderers are killed (this test's tab is the only page): no
    # pagehide, no beacon, no more keeps.
    mine = renderers()
    assert mine, "no renderer to kill"
    killed = time.monotonic()
    for pid in mine:
        os.kill(pid, signal.SIGKILL)
    off = rig.watcher.wait(lambda: rig.watcher.signal_at("motor.dice", False, killed))
    (ended,) = rig.watcher.wait(lambda: rig.watcher.events("service.jog", pressed))
    assert ended["stopped"] == "hold lost"
    # Within the cap, plus a keep in flight and the signal stream's sampling period.
    assert off - killed < HOLD_S + 0.1 + SAMPLE_S + 0.3, off - killed
    with contextlib.suppress(Exception):    # a dead tab closes with an error
        page.close()


def test_leaving_the_page_stops_the_motor(browser, rig) -> None:
    stops = []
    for _attempt in range(3):
        page = phone_page(browser, rig)
        if not page.locator("#tools").is_visible():
            log_in(page)
        if not rig.test_mode():
            enter_test_mode(page, rig)
        pressed = press_jog(page, rig)
        page.goto("about:blank")        # pagehide: the page says stop as it goes
        (ended,) = rig.watcher.wait(
            lambda since=pressed: rig.watcher.events("service.jog", since), idle=pump(page))
        stops.append(ended["stopped"])
        if ended["stopped"] == "released":
            break
        # A host that stalls the beacon past the daemon's 0.5 s cap: the cap stopped the
        # motor ("hold lost"); the release is tried again, and must win once.
    assert stops[-1] == "released", stops


class Elsewhere(BaseHTTPRequestHandler):
    """Another origin on loopback whose page tries to jog the table's motor."""

    target = ""

    def do_GET(self) -> None:
        jog = self.target + "api/jog/start"
        body = f"""<!doctype html><title>elsewhere</title>
<iframe name="sink"></iframe>
<form id="f" method="post" action="{jog}" target="sink">
<input name="motor" value="dice"><input name="direction" value="fwd"></form>
<script>
document.getElementById("f").submit();
fetch("{jog}", {{method: "POST", credentials: "include", mode: "no-cors",
  headers: {{"Content-Type": "text/plain"}},
  body: JSON.stringify({{motor: "dice", direction: "fwd"}})}});
fetch("{jog}", {{method: "POST", credentials: "include",
  headers: {{"Content-Type": "application/json", "X-CSRF-Token": "guess"}},
  body: JSON.stringify({{motor: "dice", direction: "fwd"}})}})
  .then(r => document.title = "answered " + r.status, () => document.title = "blocked");
</script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_no_motion_without_a_login(browser, rig) -> None:
    started = time.monotonic()
    # Crafted requests: no cookie, a visitor's cookie and token, a guessed hold.
    assert post(rig, "/api/jog/start", {"motor": "dice", "direction": "fwd"}) == 401
    page = phone_page(browser, rig)
    visitor = session_cookie(browser)
    csrf = page.evaluate("() => JSON.parse(document.getElementById('boot').textContent).csrf")
    for path, body in (("/api/jog/start", {"motor": "dice", "direction": "fwd"}),
                       ("/api/jog/keep", {"hold": 1}), ("/api/test", {"mechanism": "dice"}),
                       ("/api/testmode", {"on": True, "force": True})):
        assert post(rig, path, body, visitor, csrf) == 401, path
    # Logged in, but another origin's page posts with the browser's cookie (127.0.0.1
    # on another port is the same site: SameSite alone would let the cookie go).
    csrf = log_in(page)
    Elsewhere.target = rig.url
    other = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        attacker = page.context.new_page()
        attacker.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        attacker.wait_for_function("document.title !== 'elsewhere'", timeout=WAIT_MS)
        attacker.wait_for_timeout(500)
        attacker.close()
    finally:
        other.shutdown()
    # A cookie and token taken from a session that logged out open nothing.
    cookie = session_cookie(browser)
    assert post(rig, "/api/jog/keep", {"hold": 0}, cookie, csrf) != 401   # still good
    page.click("#logout")
    page.locator("#login").wait_for(state="visible", timeout=WAIT_MS)
    assert post(rig, "/api/jog/start", {"motor": "dice", "direction": "fwd"},
                cookie, csrf) == 401
    assert rig.watcher.events("service.jog.started", started) == []
    assert rig.watcher.signal_at("motor.dice", True, started) is None


def test_screenshots_of_the_phone_console_for_the_docs(browser, rig, shots) -> None:
    """docs/img/phone-en.png and phone-zh_CN.png (with MJTABLE_SCREENSHOTS=1), with a
    fault and a technician."""
    rig.fault("dice.stuck", "dice")
    for lang, code in (("en", "E70"), ("zh_CN", "E70")):
        page = phone_page(browser, rig, lang)
        page.locator(".fault h3", has_text=code).wait_for(timeout=WAIT_MS)
        assert page.locator(".fault li").count() >= 2       # cause and remedy
        page.select_option("#symptom", "dice_not_spinning")
        page.click("#diagnose")
        page.locator("#verdict li").first.wait_for(timeout=WAIT_MS)
        page.screenshot(path=str(shots / f"phone-{lang}.png"), full_page=True)
        assert (shots / f"phone-{lang}.png").stat().st_size > 10_000


def test_a_hand_tapped_in_is_scored_and_the_answer_shown_in_chinese(browser, rig) -> None:
    """The score form: the docs' example hand, a tile per tap (one tapped wrongly and
    tapped away), its chow, the winning tile, 自摸; the daemon's answer on the page."""
    page = phone_page(browser, rig, "zh_CN")
    rig.hand_ended()
    form = page.locator("#score")
    assert "给刚结束的这局记分" in form.inner_text()

    def tap(*codes: str) -> None:
        for code in codes:
            form.locator(f"#sc-keys [data-tile={code}]").click()

    tap("W1", "W1", "W1", "B2", "B3", "B4", "J1", "J1", "J1", "F2", "W9")
    form.locator("#sc-concealed [data-tile=W9]").click()       # a slip, tapped away
    page.click("#sc-add")                                       # a chow, from 上家
    tap("T1", "T2", "T3")
    form.locator(".meld select").nth(2).select_option("T2")
    form.locator("[data-part=win_tile]").click()
    tap("F2")
    page.check("#sc-self_drawn")
    assert form.locator("#sc-concealed [data-tile]").count() == 10
    page.click("#sc-send")
    answer = page.locator("#sc-answer")
    answer.locator("p").first.wait_for(timeout=WAIT_MS)
    said = answer.inner_text()
    assert said.startswith("和牌："), said
    assert "下一把庄家：" in said and "付分：" in said, said
    # A second result for the same hand: the daemon's refusal, in Chinese.
    page.click("#sc-send")
    page.wait_for_function("() => document.querySelector('#sc-answer.warn')")
    assert "记分 被拒" in answer.inner_text() and "已经报过分" in answer.inner_text()


def test_a_chinese_technician_reads_no_latin_word_on_the_phone(browser, rig) -> None:
    # The phone page as a Chinese technician walks it: the display, the lamps, a fault
    # card, guided diagnosis, the login, test mode, a self-test and the jog's motors.
    # Before: the motors were `lid`, `head.1`…, the dealer lamps 庄家灯 0…3, and the
    # remedies named signals (`lid.lower`).
    from tests.console.zh_sweep import latin_words

    rig.fault("dice.stuck", "dice")
    page = phone_page(browser, rig, "zh_CN")
    page.locator(".fault h3", has_text="E70").wait_for(timeout=WAIT_MS)
    page.select_option("#symptom", "dice_not_spinning")
    page.click("#diagnose")
    page.locator("#verdict li").first.wait_for(timeout=WAIT_MS)
    log_in(page)
    enter_test_mode(page, rig, "测试模式")
    page.select_option("#mechanism", index=0)
    page.click("#run-test")
    page.locator("#message", has_text="1P").or_(page.locator("#message", has_text="1F")
                                                 ).wait_for(timeout=WAIT_MS)
    text = page.evaluate("""() => document.body.innerText + "\\n" +
        [...document.querySelectorAll('option')].map((o) => o.textContent).join("\\n")""")
    table = rig.config.table.id if hasattr(rig, "config") else "table-1"
    found = latin_words(text, (table, "li", "mjtable", "English"))
    assert found == [], [line for line in text.splitlines()
                         if latin_words(line, (table, "li", "mjtable", "English"))]
