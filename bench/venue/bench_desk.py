"""The venue's dashboard in headless Chromium with a synthetic fleet.

Every table's retained topics are on the broker; each table then sends its status
once a second (the agents' heartbeat rate, unchanged content: the page still gets
each as a tile event). Measured:

- **paint**: from the start of the page's navigation to the frame in which every
  tile is in the grid (`performance.now()` in that frame), over `--loads` loads;
- **update**: from just before a table's status is published (a hand starts or
  ends, so the tile's colour changes) to the moment the page's tile has it, read by
  a MutationObserver in the page (both stamps on this machine's wall clock), over
  `--updates` changes, one every 50 ms, on top of the heartbeat traffic.

    python -m bench.venue.bench_desk [--tables 100] [--loads 8] [--updates 200]
                               [--broker mosquitto|amqtt] [--json]

Goals (issue): every tile painted within 1 s of load, a tile updated within 250 ms
of its MQTT message, median and p95.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from bench.helpers import children
from bench.helpers.browser import launch, leaves_loopback, why_no_browser
from bench.helpers.desk_thread import DeskThread
from bench.helpers.venue_brokers import VENUE_PASSWORD, VENUE_USER, Mosquitto, mosquitto_missing

WATCH = """
window.__changes = [];
new MutationObserver((records) => {
  const at = performance.timeOrigin + performance.now();
  for (const r of records) {
    if (r.type === 'attributes' && r.target.dataset && r.target.dataset.table) {
      window.__changes.push([r.target.dataset.table, r.target.dataset.state, at]);
    }
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-state']});
"""

# From the page's first instant: the frame in which the grid holds every tile (the
# next animation frame after they are in the DOM is the one that paints them).
PAINTED = """
window.__painted = null;
const __tiles = %d;
new MutationObserver((records, observer) => {
  const grid = document.getElementById('grid');
  if (grid && grid.children.length >= __tiles) {
    observer.disconnect();
    requestAnimationFrame(() => { window.__painted = performance.now(); });
  }
}).observe(document, {subtree: true, childList: true});
"""

TIMINGS = """JSON.stringify([
  ...performance.getEntriesByType('resource').map(
    e => [e.name.split('/').pop(), Math.round(e.startTime), Math.round(e.responseEnd)]),
  ['dcl', Math.round(performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd)],
  ['painted', Math.round(window.__painted)]])"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 1),
            "p95": round(percentile(values, 0.95), 1), "max": round(max(values), 1),
            "n": len(values)}


class Fleet:
    """The synthetic tables: one MQTT client publishing for all of them."""

    def __init__(self, url: str, tables: list[str], user: str | None = None,
                 password: str | None = None) -> None:
        host, port = url.removeprefix("mqtt://").rsplit(":", 1)
        self.tables = tables
        self.playing = dict.fromkeys(tables, False)
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-fleet")
        if user:
            self.client.username_pw_set(user, password)
        self.client.connect(host, int(port))
        self.client.loop_start()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def status(self, table: str) -> bytes:
        return json.dumps({"table": table, "state": "idle", "hand_in_play":
                           self.playing[table], "display": "--", "wall": time.time()}).encode()

    def publish(self, table: str, leaf: str, raw: bytes, qos: int = 0,
                retain: bool = False) -> Any:
        return self.client.publish(f"mjt/v1/{table}/{leaf}", raw, qos=qos, retain=retain)

    def birth(self) -> None:
        for table in self.tables:
            self.publish(table, "info", json.dumps(
                {"table": table, "console_url": f"http://127.0.0.1:9/{table}",
                 "model": "bench", "variant": "mcr"}).encode(), 1, True)
            self.publish(table, "faults", b'{"active": []}', 1, True)
            self.publish(table, "status", self.status(table), 1, True)
            self.publish(table, "avail", b"online", 1, True).wait_for_publish(10)

    def heartbeat(self) -> None:
        """Each table's status once a second, spread over the second."""
        def beat() -> None:
            gap = 1.0 / len(self.tables)
            while not self._stop.is_set():
                for table in self.tables:
                    if self._stop.wait(gap):
                        return
                    with self.lock:
                        self.publish(table, "status", self.status(table), retain=True)
        self._beat = threading.Thread(target=beat, daemon=True)
        self._beat.start()

    def flip(self, table: str) -> tuple[str, float]:
        """A hand starts or ends at `table`: the state the tile must turn to, and when
        the message left."""
        with self.lock:
            self.playing[table] = not self.playing[table]
            raw = self.status(table)
            sent = time.time()
            self.publish(table, "status", raw, retain=True)
        return ("playing" if self.playing[table] else "idle"), sent

    def close(self) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(5)
        self.client.loop_stop()
        self.client.disconnect()


def measure(tables: int, loads: int, updates: int, broker: str,
            verbose: bool = False) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    names = [f"t{n:03d}" for n in range(1, tables + 1)]
    work = Path(tempfile.mkdtemp(prefix="bench-desk-"))
    mosquitto = None
    if broker == "mosquitto":
        mosquitto = Mosquitto(work / "mosquitto", names).start()
        desk = DeskThread({"broker": {"username": VENUE_USER, "password": VENUE_PASSWORD}},
                          broker_url=mosquitto.url)
    else:
        desk = DeskThread()
    desk.start()
    fleet = None
    driver = sync_playwright().start()
    context = None
    try:
        desk.connected()
        fleet = Fleet(desk.broker_url, names, VENUE_USER if mosquitto else None,
                      VENUE_PASSWORD if mosquitto else None)
        fleet.birth()
        deadline = time.monotonic() + 30
        while desk.call(lambda: sum(t.online for t in desk.fleet.tables.values())) < tables:
            assert time.monotonic() < deadline, "the venue did not hear every table"
            time.sleep(0.05)
        fleet.heartbeat()
        context = launch(driver, work / "profile")
        desk.login(context)         # the pages are behind the staff login
        # Watched, not intercepted: interception would add a round trip through this
        # process to every request the page makes, and that is not the page's time.
        outside: list[str] = []
        context.on("request", lambda request: outside.append(request.url)
                   if leaves_loopback(request.url) else None)
        paints, responses = [], []
        for _ in range(loads):
            page = context.new_page()
            page.add_init_script(PAINTED % tables)
            page.goto(desk.url)
            page.wait_for_function("window.__painted !== null")
            paints.append(page.evaluate("window.__painted"))
            responses.append(page.evaluate(
                "performance.getEntriesByType('navigation')[0].responseEnd"))
            if verbose:
                print(page.evaluate(TIMINGS), file=sys.stderr)
            page.close()
        page = context.new_page()
        page.add_init_script(WATCH)
        page.goto(desk.url)
        page.wait_for_selector("#live.on")
        rng = random.Random(7)
        sent: list[tuple[str, str, float]] = []
        for _ in range(updates):
            table = rng.choice(names)
            state, at = fleet.flip(table)
            sent.append((table, state, at * 1000.0))
            time.sleep(0.05)
        time.sleep(1.0)
        changes = page.evaluate("window.__changes")
        latencies, missed = [], 0
        for table, state, at in sent:
            seen = [c[2] for c in changes if c[0] == table and c[1] == state and c[2] >= at]
            if seen:
                latencies.append(min(seen) - at)
            else:
                missed += 1
        return {"tables": tables, "broker": broker, "paint_ms": summary(paints),
                "page_received_ms": summary(responses),
                "update_ms": summary(latencies) if latencies else None, "missed": missed,
                "outside_requests": len(outside)}
    finally:
        if context is not None:
            context.close()
        driver.stop()
        if fleet is not None:
            fleet.close()
        desk.stop()
        if mosquitto is not None:
            mosquitto.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--loads", type=int, default=8)
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--broker", choices=("mosquitto", "amqtt"), default=None,
                        help="default: mosquitto where installed, else the embedded amqtt")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true",
                        help="each load's resource timings on stderr")
    args = parser.parse_args(argv)
    children.install()
    reason = why_no_browser()
    if reason:
        print(f"bench_desk: {reason}", file=sys.stderr)
        return 2
    broker = args.broker or ("amqtt" if mosquitto_missing() else "mosquitto")
    result = measure(args.tables, args.loads, args.updates, broker, args.verbose)
    if args.json:
        print(json.dumps(result))
        return 0
    paint, update = result["paint_ms"], result["update_ms"] or {}
    print(f"{result['tables']} tables on {broker}, each sending its status once a second")
    print(f"every tile painted after load: median {paint['median']} ms, p95 {paint['p95']} ms"
          f" (max {paint['max']}, {paint['n']} loads; goal < 1000 ms)")
    print(f"  of which the page's HTML received: median "
          f"{result['page_received_ms']['median']} ms")
    print(f"tile updated after its MQTT message: median {update.get('median')} ms, "
          f"p95 {update.get('p95')} ms (max {update.get('max')}, {update.get('n')} updates, "
          f"{result['missed']} missed; goal < 250 ms)")
    print(f"requests beyond loopback: {result['outside_requests']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
