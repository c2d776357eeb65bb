"""The API contract against a running daemon on the simulator: methods, malformed
input, floods, and a client that stops reading."""

from __future__ import annotations

import json
import socket
import time

from firmware.api.client import Client, ClientError
from mjtable_core.signals import catalogue

from .conftest import TOKEN, Daemon, raw, replies


def test_socket_is_group_accessible_only(daemon: Daemon) -> None:
    assert daemon.socket.stat().st_mode & 0o777 == 0o660


def test_status_has_every_subsystem_signal_and_counter(daemon: Daemon) -> None:
    with Client(daemon.socket) as client:
        status = client.call("status")
    expected = set(catalogue(tile_reader=True, face_up_sensor=True))
    assert set(status["signals"]) == expected
    assert status["signals"]["lid.lower"]["kind"] == "sensor"
    assert {"cycle", "state", "build", "lid", "sides", "plates", "dice", "service",
            "counters", "lamps", "display", "estopped"} <= set(status)
    assert len(status["sides"]) == 4 and len(status["plates"]) == 4
    assert status["counters"]["clients"] >= 1


def test_info_config_walls_faults_log(daemon: Daemon) -> None:
    with Client(daemon.socket) as client:
        info = client.call("info")
        assert {"jog", "test", "clear", "estop", "log", "walls"} <= set(info["methods"])
        config = client.call("config")
        assert config["table"]["id"] and config["api"]["tcp"] is False
        walls = client.call("walls")
        assert "records" in walls
        faults = client.call("faults")
        assert all(f["active"] and f["diagnosis"]["remedy"] and f["ref"] >= 1
                   for f in faults["active"])
        assert len(faults["history"]) >= len(faults["active"])
        log = client.call("log", {"kind": "phase"})
        assert log["rows"] and all(r["kind"] == "phase" for r in log["rows"])


def test_diagnose_answers_with_a_verdict(daemon: Daemon) -> None:
    with Client(daemon.socket) as client:
        result = client.call("diagnose", {"symptom": "walls_not_rising"})
        assert result["symptom"] == "walls_not_rising"
        assert isinstance(result["verdict"], str) and "evidence" in result
        # What a technician says, in Chinese, is understood (walls: no check moves them).
        said = client.call("diagnose", {"symptom": "牌升不上来"})
        assert said["symptom"] == "walls_not_rising" and said["said"] == "牌升不上来"
        try:
            client.call("diagnose", {"symptom": "the table smells of smoke"})
        except ClientError as exc:
            # Refused with every symptom it could have been.
            assert exc.code == "not_found" and "lid_not_lowering" in str(exc)
        else:
            raise AssertionError("an unknown symptom must be refused")
        try:
            client.call("diagnose", {})
        except ClientError as exc:
            assert exc.code == "bad_request"
        else:
            raise AssertionError("a missing symptom must be refused")


def test_malformed_lines_get_errors_and_the_connection_goes_on(daemon: Daemon) -> None:
    with raw(daemon) as sock:
        sock.sendall(b"not json\n[1, 2]\n{\"method\": 5}\n{\"id\": 4, \"method\": \"nope\"}\n"
                     b"{\"id\": 5, \"method\": \"info\", \"params\": 3}\n\xff\xfe\n")
        got = replies(sock, 6)
        assert [r["ok"] for r in got] == [False] * 6
        assert {r["error"]["code"] for r in got} == {"bad_request"}
        by_id = {r["id"]: r for r in got}
        assert "unknown method 'nope'" in by_id[4]["error"]["message"]
        # A line over 64 KiB, sent in pieces, then a good request on the same connection.
        for _ in range(3):
            sock.sendall(b"x" * 40000)
        sock.sendall(b"\n{\"id\": 9, \"method\": \"info\"}\n")
        too_long, good = replies(sock, 2)
        assert too_long["error"]["code"] == "too_long"
        assert good["id"] == 9 and good["ok"]


def test_a_flood_is_answered_and_others_are_not_blocked(daemon: Daemon) -> None:
    with raw(daemon) as flood, Client(daemon.socket, timeout=5) as other:
        flood.sendall(b"".join(b'{"id": %d, "method": "info"}\n' % i for i in range(2000)))
        started = time.monotonic()
        other.call("status")
        assert time.monotonic() - started < 2.0
        got = replies(flood, 2000)
        assert sorted(r["id"] for r in got) == list(range(2000))
        assert all(r["ok"] for r in got)


def test_a_client_that_stops_reading_is_dropped(daemon: Daemon) -> None:
    stuck = raw(daemon)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.sendall(b'{"id": 1, "method": "subscribe"}\n')
    # Big replies the client never reads: its queue fills and the daemon drops it.
    request = b'{"id": 2, "method": "status"}\n' * 15
    deadline = time.monotonic() + 30
    with Client(daemon.socket, timeout=5) as other:
        dropped = False
        while time.monotonic() < deadline and not dropped:
            try:
                stuck.sendall(request)
            except OSError:
                dropped = True
            started = time.monotonic()
            other.call("info")
            assert time.monotonic() - started < 2.0, "a stuck client blocked another"
            dropped = dropped or any(r["kind"] == "api.client.dropped"
                                     for r in daemon.rows("api.client"))
            time.sleep(0.05)
    assert dropped
    stuck.close()


def test_subscribe_streams_events_signals_and_status(daemon: Daemon) -> None:
    with raw(daemon) as sock:
        sock.sendall(b'{"id": 1, "method": "subscribe"}\n')
        first = replies(sock, 1)[0]
        assert first["ok"] and "signals" in first["result"]["status"]
        # Make sure something happens even while the players sit over a hand.
        sock.sendall(b'{"id": 2, "method": "jog", "params": {"motor": "dice", '
                     b'"direction": "fwd", "seconds": 2}, '
                     b'"auth": {"name": "li", "token": "%s"}}\n' % TOKEN.encode())
        streams: set[str] = set()
        deadline = time.monotonic() + 15
        buf = b""
        while time.monotonic() < deadline and not {"event", "signals", "status"} <= streams:
            buf += sock.recv(65536)
            *lines, buf = buf.split(b"\n")
            streams |= {json.loads(line).get("stream", "reply") for line in lines if line}
        assert {"event", "signals", "status"} <= streams


def test_the_blocking_client_follows_the_streams_it_subscribed_to(daemon: Daemon) -> None:
    with Client(daemon.socket, technician=("li", TOKEN)) as client:
        reply = client.call("subscribe", {"streams": ["signals", "events"]})
        assert "signals" in reply["status"]
        client.call("jog", {"motor": "dice", "direction": "fwd", "seconds": 2})
        seen = set()
        for message in client.streams():
            seen.add(message["stream"])
            if seen >= {"event", "signals"}:
                break
    assert seen >= {"event", "signals"}


def test_clear_is_refused_while_the_case_reads_open(tmp_path) -> None:
    # Finding 9 (issue 11): a case.opened fault is not cleared while case_open still
    # reads open; the API answers "refused" with what to do, and the fault stays.
    from .conftest import start_daemon

    daemon, stop = start_daemon(tmp_path)
    try:
        table = daemon.ctl.hal.hal.table
        daemon.call(lambda: table.stick("case_open", True))
        time.sleep(0.2)
        assert daemon.call(lambda: [f.id for f in daemon.ctl.faults if f.active]) == [
            "case.opened"]
        with Client(daemon.socket, technician=("li", TOKEN)) as client:
            try:
                client.call("clear", {"fault": "case.opened"})
            except ClientError as exc:
                assert "case_open still reads open" in str(exc)
            else:
                raise AssertionError("cleared while the case reads open")
        assert daemon.call(lambda: [f.id for f in daemon.ctl.faults if f.active]) == [
            "case.opened"]
    finally:
        stop()


def test_the_clients_method_names_are_the_daemons(daemon: Daemon) -> None:
    # Every method the daemon registers has its constant in the one client, and no
    # constant names a method the daemon does not have.
    from firmware.api.client import METHODS

    with Client(daemon.socket) as client:
        assert set(client.call("info")["methods"]) == METHODS
