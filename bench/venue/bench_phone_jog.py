"""Hold-to-run jog from the phone console in headless Chromium, against a simulated
daemon at real speed: release → motor off, and a killed tab → motor off.

    python -m bench.venue.bench_phone_jog [--presses 20] [--kills 5]

Two clocks of "off": the daemon's `service.jog` event (sent as the motor is
switched off) and its `signals` stream (sampled every 0.1 s, so up to 0.1 s later).
No request is intercepted here, unlike in the tests: this is the page as a phone
runs it. The table (daemon and console) runs in a child process, as on a table it runs
apart from the browser; only the watcher of the daemon's streams is here.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import time
from typing import Any

from firmware.machines.maintenance import HOLD_S
from tests.browser.phone_rig import TOKEN, TableProcess
from tests.browser.test_phone import PHONE, renderers

CHROMIUM = "/usr/bin/chromium"


def figures(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"n": len(values), "median_ms": round(statistics.median(values) * 1000, 1),
            "p95_ms": round(p95 * 1000, 1), "max_ms": round(ordered[-1] * 1000, 1)}


def ready(context: Any, rig: Any) -> Any:
    page = context.new_page()
    page.set_viewport_size(PHONE)
    page.goto(rig.url)
    page.locator("#lamps li").first.wait_for()
    if not page.locator("#tools").is_visible():     # the context's session goes on
        page.fill("#name", "li")
        page.fill("#token", TOKEN)
        page.click("#login button[type=submit]")
        page.locator("#tools").wait_for(state="visible")
    if not rig.test_mode():
        page.click("#tm-on")
        while not rig.test_mode():
            if page.locator("#tm-force").is_visible():
                page.click("#tm-force")
            page.wait_for_timeout(50)
    page.select_option("#motor", "dice")
    button = page.locator("#jog-buttons button").first
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    return page


def press(page: Any, rig: Any) -> float:
    pressed = time.monotonic()
    page.mouse.down()
    rig.watcher.wait(lambda: rig.watcher.signal_at("motor.dice", True, pressed),
                     idle=lambda: page.wait_for_timeout(5))
    return pressed


def off_times(rig: Any, pressed: float, since: float) -> tuple[float, float, str]:
    ended = rig.watcher.wait(lambda: rig.watcher.events("service.jog", pressed), 10)
    signal_off = rig.watcher.wait(
        lambda: rig.watcher.signal_at("motor.dice", False, since), 10)
    event_at = next(t for t, m in rig.watcher.seen if t >= pressed and m.get("stream") ==
                    "event" and m["event"].get("kind") == "service.jog")
    return event_at - since, signal_off - since, ended[0]["stopped"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--kills", type=int, default=5)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    rig: Any = TableProcess()
    report: dict[str, Any] = {"hold_cap_s": HOLD_S}
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=["--no-sandbox", "--disable-gpu"])
            context = browser.new_context()
            page = ready(context, rig)
            event, sampled, why = [], [], set()
            for _ in range(args.presses):
                pressed = press(page, rig)
                page.wait_for_timeout(300)
                released = time.monotonic()
                page.mouse.up()
                page.wait_for_timeout(10)
                e, s, stopped = off_times(rig, pressed, released)
                event.append(e)
                sampled.append(s)
                why.add(stopped)
                page.wait_for_timeout(100)
            report["release"] = {"event": figures(event), "signals": figures(sampled),
                                 "stopped": sorted(why)}
            page.close()
            event, sampled, why = [], [], set()
            for _ in range(args.kills):
                rig.log_everyone_out()
                context = browser.new_context()     # the only page: its renderers die
                page = ready(context, rig)
                mine = renderers()
                assert mine, "no renderer to kill"
                pressed = press(page, rig)
                page.wait_for_timeout(200)
                killed = time.monotonic()
                for pid in mine:
                    os.kill(pid, signal.SIGKILL)
                e, s, stopped = off_times(rig, pressed, killed)
                event.append(e)
                sampled.append(s)
                why.add(stopped)
                with contextlib.suppress(Exception):    # a dead tab closes with an error
                    context.close()
            report["killed_tab"] = {"event": figures(event), "signals": figures(sampled),
                                    "stopped": sorted(why)}
            browser.close()
    finally:
        rig.close()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
