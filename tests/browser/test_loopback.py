"""The browser tests' guard: a request beyond loopback is stopped and reported."""

from __future__ import annotations

from bench.helpers.browser import leaves_loopback
from bench.helpers.desk_thread import DeskThread


def test_the_guard_tells_loopback_from_the_world():
    assert not leaves_loopback("http://127.0.0.1:8780/events")
    assert not leaves_loopback("http://localhost/x")
    assert not leaves_loopback("data:,")
    assert leaves_loopback("https://cdn.example.com/lib.js")
    assert leaves_loopback("http://192.168.1.20:8781/")


def test_a_request_beyond_loopback_is_stopped_and_reported(browser):
    desk = DeskThread(broker=False).start()
    try:
        page = browser.page
        desk.login(page)
        page.goto(desk.url)
        assert browser.outside == []            # the dashboard itself asks nothing outside
        page.evaluate("fetch('http://192.0.2.7/beacon').catch(() => null)")
        page.wait_for_timeout(200)
        assert browser.outside == ["http://192.0.2.7/beacon"]
        browser.outside.clear()                 # caught: this test does not fail for it
    finally:
        desk.stop()
