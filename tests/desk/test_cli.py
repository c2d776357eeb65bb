"""`mjtable venue` from the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import paho.mqtt.client as mqtt
import pytest

from mjtable.cli import main


def watched(port: int, login: tuple[str, str] | None, want: int = 4) -> int:
    """How many `avail` messages a watcher gets (waiting for `want` of them, not a fixed
    time: a loaded host delivers late); -1 when refused."""
    got: list[str] = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"watch-{login}")
    if login:
        client.username_pw_set(*login)
    client.on_message = lambda c, u, m: got.append(m.topic)
    connected: list[object] = []
    client.on_connect = lambda c, u, f, code, p: connected.append(code)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        deadline = time.monotonic() + 60
        while not connected and time.monotonic() < deadline:
            time.sleep(0.02)
        if not connected or connected[0].is_failure:
            return -1
        client.subscribe("mjt/v1/+/avail")
        # A watcher publishes nothing: the broker drops it.
        client.publish("mjt/v1/t01/avail", b"offline", qos=1, retain=True)
        while len(got) < want and time.monotonic() < deadline:
            time.sleep(0.02)
        return len(got)
    finally:
        client.loop_stop()
        client.disconnect()


@pytest.mark.parametrize(("args", "words"), [
    (["--listen", "nowhere"], "[desk] listen"),
    (["--broker", "http://x"], "[broker] url"),
    (["--demo", "501"], "at most 500"),
])
def test_bad_arguments_are_one_clear_line(capsys, args, words):
    assert main(["venue", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_a_bad_config_file_is_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "venue.toml"
    bad.write_text("[desk]\nlisen = '1'\n")
    assert main(["venue", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "venue.toml: [desk] lisen: unknown option" in err and len(err.splitlines()) == 1


def test_a_bad_key_file_is_one_clear_line(tmp_path, capsys):
    key = tmp_path / "venue.key"
    key.write_text("not a key")
    config = tmp_path / "venue.toml"
    config.write_text(f"[broker]\nkey_file = '{key}'\n")
    assert main(["venue", "--config", str(config), "--state-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a base64 Ed25519 private key" in err and len(err.strip().splitlines()) == 1


def logged_in(url: str, name: str, password: str) -> urllib.request.OpenerDirector:
    """A client with cookies, through the login form as a browser goes."""
    import http.cookiejar
    import re
    import urllib.parse

    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with opener.open(url + "login", timeout=5) as page:
        token = re.search(r'name="csrf" value="([^"]+)"', page.read().decode()).group(1)
    form = urllib.parse.urlencode({"name": name, "password": password, "csrf": token})
    opener.open(url + "login", data=form.encode(), timeout=10).close()
    return opener


def test_the_demo_prints_its_addresses_first_and_shows_its_tables(tmp_path):
    env = {**os.environ, "MJTABLE_LANG": "en"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mjtable.cli", "venue", "--demo", "4", "--listen",
         "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        first, second = proc.stdout.readline(), proc.stdout.readline()
        assert first.startswith("mjtable venue: dashboard http://127.0.0.1:")
        assert second.startswith("mjtable venue: broker mqtt://127.0.0.1:")
        third = proc.stdout.readline()
        assert third.startswith("mjtable venue: log in as demo, password ")
        url = first.split()[-1]
        browser = logged_in(url, "demo", third.split()[-1])
        deadline = time.monotonic() + 60      # four tables start beside a loaded suite
        while True:
            with browser.open(url + "api/tables", timeout=30) as response:
                tiles = json.load(response)["tiles"]
            if len(tiles) == 4 and all(t["state"] != "offline" for t in tiles):
                break
            assert time.monotonic() < deadline, tiles
            time.sleep(0.1)
        assert [t["id"] for t in tiles] == ["t01", "t02", "t03", "t04"]
        assert "(watch as demo, password demo: read only)" in second
        port = int(second.split()[3].rsplit(":", 1)[1])
        assert watched(port, ("demo", "demo")) >= 4         # every table's retained avail
        assert watched(port, None) == -1                    # no anonymous users
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()             # never left running after the test
            proc.wait(10)
            raise
    assert code == 0


def test_a_state_directory_it_cannot_write_is_one_clear_line(tmp_path, capsys):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert main(["venue", "--state-dir", str(blocked / "state")]) == 2
    err = capsys.readouterr().err
    assert "cannot keep records in" in err and len(err.strip().splitlines()) == 1
