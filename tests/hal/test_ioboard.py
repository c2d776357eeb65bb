"""The firmware through the real serial path against the I/O-board emulator."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.state.journal import FILE_NAME as JOURNAL_NAME
from firmware.state.journal import FORMAT as JOURNAL_FORMAT
from hal.backends.ioboard import IoBoardHal
from hal.protocol import (
    VERSION,
    Decoder,
    Msg,
    decode_heartbeat,
    decode_welcome,
    encode_heartbeat,
    encode_hello,
)
from mjtable.cli import main
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config, load_config
from simulator.harness.run import simulate, simulate_ioboard
from simulator.physics.table import SimTable
from simulator.rigs.ioboard_emulator import IoBoardEmulator

from ..conftest import CONFIGS, quick

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def short() -> Config:
    return quick(load_config(CONFIGS["144"]), play_time_s=2.0)


def errors(report: dict) -> list[str]:
    """Faults that stop work; warnings (a late edge seen as timing.drift) may happen."""
    return [f["id"] for f in report["faults"] if f["code"].startswith("E")]


def test_two_hands_over_a_pty_match_the_in_process_simulator(short):
    # No random jitter in the machine: then the only difference left is the link.
    exact = dataclasses.replace(short, simulator=dataclasses.replace(
        short.simulator, timing_jitter=0.0, count_bounce=0.0))
    report = simulate_ioboard(exact, 2)
    assert report["completed"] and report["faults"] == []
    assert report["tiles_accounted"] and report["motors_off_at_end"]
    assert [h["tiles"] for h in report["handoffs"]] == [144, 144]
    assert report["link"]["port"].startswith("/dev/")
    # A frame costs no virtual time: the builds take exactly as long as in-process.
    assert report["build_times_s"] == simulate(exact, 2)["build_times_s"]


def test_one_hand_over_socket(short):
    report = simulate_ioboard(short, 1, transport="socket")
    assert report["completed"] and report["tiles_accounted"]
    assert report["link"]["port"].startswith("socket://127.0.0.1:")


def test_bit_errors_are_retransmitted_and_the_hand_completes(short):
    report = simulate_ioboard(short, 1, link_noise=2e-4)
    assert report["completed"] and errors(report) == [] and report["tiles_accounted"]
    link = report["link"]
    assert link["board"]["bits_flipped"] > 0
    assert link["host"]["bad_frames"] + link["board"]["frames_received"] > 0
    assert link["host"]["retransmits"] + link["board"]["retransmits"] > 0


def test_a_short_drop_is_ridden_out(short):
    report = simulate_ioboard(short, 1, link_drop=(20.0, 0.25))
    assert report["completed"] and errors(report) == []


def test_a_long_drop_turns_the_table_off_from_both_ends(short):
    limit = 0.5
    report = simulate_ioboard(short, 1, link_drop=(20.0, 5.0), heartbeat_limit_s=limit)
    assert not report["completed"]
    assert errors(report) == ["link.lost"]
    (fault,) = [f for f in report["faults"] if f["id"] == "link.lost"]
    assert fault["code"] == "E80"
    # The host notices within its link timeout and says RESUME; unanswered within
    # resume_within_s, the link is lost. The board holds within its heartbeat limit.
    link = short.ioboard
    assert 20.0 + link.resume_within_s < fault["sim_time_s"] <= (
        20.0 + link.link_timeout_s + link.resume_within_s + 0.01)
    board_off = report["link"]["board"]["failsafe_at_s"]
    assert board_off is not None and 20.0 < board_off <= 20.0 + limit + 0.01
    assert report["motors_safe_after_faults"] and report["motors_off_at_end"]
    assert report["tiles_accounted"]


def test_a_board_of_another_version_stops_with_link_version(short):
    report = simulate_ioboard(short, 1, board_version=VERSION + 1)
    assert not report["completed"] and report["cycles_completed"] == 0
    (fault,) = report["faults"]
    assert (fault["id"], fault["code"]) == ("link.version", "E81")
    assert fault["evidence"]["board_version"] == VERSION + 1
    assert "reflash" in report["error"]
    assert report["motors_off_at_end"]


def test_cli_simulate_hal_ioboard(tmp_path, capsys):
    text = CONFIGS["144"].read_text().replace("play_time_s = 300.0", "play_time_s = 2.0")
    assert "play_time_s = 2.0" in text
    path = tmp_path / "short.toml"
    path.write_text(text)
    code = main(["simulate", "--hal", "ioboard", "--cycles", "2", "--json",
                 "--config", str(path)])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["hal"] == "ioboard" and report["cycles_completed"] == 2
    assert report["tiles_accounted"] and errors(report) == []


def test_the_board_announces_its_own_heartbeat_limit(short):
    report = simulate_ioboard(short, 1, link_drop=(20.0, 3.0), heartbeat_limit_s=0.7)
    (fault,) = [f for f in report["faults"] if f["id"] == "link.lost"]
    assert fault["evidence"]["board_turns_outputs_off_after_s"] == 0.7
    assert 20.0 < report["link"]["board"]["failsafe_at_s"] <= 20.7 + 0.01


class _Wire:
    """A board port that keeps what the board writes."""

    url = "test://wire"

    def __init__(self) -> None:
        self.sent = b""

    def read(self) -> bytes:
        return b""

    def write(self, data: bytes) -> None:
        self.sent += data

    def close(self) -> None:
        pass


def test_a_hello_stops_the_motors_the_last_host_left_running(short):
    # A killed daemon leaves its motors on until the board's failsafe; the restarted
    # one must see inputs that no longer change under it, or it waits for a cam that
    # left home after WELCOME said it was home.
    clock = VirtualClock()
    table = SimTable(short, clock, seed=1)
    wire = _Wire()
    board = IoBoardEmulator(table, clock, wire, heartbeat_limit_s=3.0)
    table.command("motor.side.1.head", True)
    clock.run_until(0.3)
    board._hello(encode_hello())
    home = table.values["side.1.head_home"]
    clock.run_until(5.0)
    assert table.values["motor.side.1.head"] is False
    assert table.values["side.1.head_home"] == home
    (welcome,) = [f for f in Decoder().feed(wire.sent) if f.type == Msg.WELCOME]
    assert decode_welcome(welcome.payload).inputs["side.1.head_home"] == home
    board.close()


class _SilentPort:
    port = "test://silent"
    in_waiting = 0

    def read(self, size: int = 1) -> bytes:
        return b""

    def write(self, data: bytes) -> int:
        return len(data)

    def close(self) -> None:
        pass


def test_a_board_that_latched_its_failsafe_is_a_lost_link(short):
    # The host stalled past the board's limit: the board turned everything off and
    # ignores commands until the next HELLO. Its heartbeats say so; the host must not
    # go on driving motors that no longer turn (and later blame a jam).
    hal = IoBoardHal.from_config(short, VirtualClock(), port=_SilentPort())
    raised: list[tuple[str, dict]] = []
    hal.on_link_fault = lambda fault_id, evidence: raised.append((fault_id, evidence))
    hal.values["motor.side.2.plate"] = True
    hal._on_message(Msg.HEARTBEAT, encode_heartbeat(failsafe=False))
    assert raised == []
    hal._on_message(Msg.HEARTBEAT, encode_heartbeat(failsafe=True))
    hal._on_message(Msg.HEARTBEAT, encode_heartbeat(failsafe=True))
    assert [(f, e["reason"]) for f, e in raised] == [("link.lost", "board failsafe")]
    assert hal.values["motor.side.2.plate"] is False


def test_run_with_a_silent_board_waits_with_e80_shown_and_keeps_asking(tmp_path):
    # A host that boots during a link outage used to exit (or, restarted, never retry).
    # Now it starts with link.lost raised, keeps the journal it recovered, and says
    # HELLO until the board answers; a stop signal still stops it cleanly.
    with socket.create_server(("127.0.0.1", 0)) as silent:   # listens, never answers
        port = silent.getsockname()[1]
        config = tmp_path / "table.toml"
        text = (CONFIGS["144"]).read_text().replace('backend = "auto"', 'backend = "ioboard"')
        config.write_text(text + f'\n[ioboard]\nport = "socket://127.0.0.1:{port}"\n'
                                 'connect_timeout_s = 0.3\n')
        state = tmp_path / "state"
        state.mkdir()
        saved = {"clean": True, "cycle": 41, "format": JOURNAL_FORMAT}
        (state / JOURNAL_NAME).write_text(json.dumps(saved))
        daemon = subprocess.Popen(
            [sys.executable, "-m", "mjtable.cli", "--state-dir", str(state), "run",
             "--plain", "--config", str(config), "--socket", str(tmp_path / "api.sock")],
            cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            silent.settimeout(30)
            conn, _addr = silent.accept()
            lines = []
            for line in daemon.stdout:      # type: ignore[union-attr]
                lines.append(line)
                if "E80" in line:
                    break
            # Still asking: HELLOs keep coming after the fault was raised.
            conn.settimeout(5)
            hellos = Decoder()
            seen = []
            while sum(f.type == Msg.HELLO for f in seen) < 3:
                seen += hellos.feed(conn.recv(4096))
            assert daemon.poll() is None
            daemon.send_signal(signal.SIGTERM)
            rest, err = daemon.communicate(timeout=30)
            conn.close()
        finally:
            if daemon.poll() is None:
                daemon.kill()
                daemon.wait()
    assert daemon.returncode == 0, err
    assert any("waiting for the board" in line for line in lines), rest
    assert any("E80" in line for line in lines)
    journal = json.loads((state / JOURNAL_NAME).read_text())
    assert journal["cycle"] == 41, journal


def test_a_heartbeat_slower_than_the_board_allows_is_refused_at_the_handshake(short):
    # The board announces a 0.15 s failsafe; our 0.1 s heartbeat leaves no room for a
    # lost beat, so the daemon would start and then lose the board moments later.
    from hal.interface import HalError
    from simulator.rigs.ioboard_run import IoboardWiredTable

    bench = IoboardWiredTable(short, heartbeat_limit_s=0.15)
    with pytest.raises(HalError) as refused:
        bench.connect()
    bench.close(drain=False)
    error = refused.value
    assert f"{short.source}: [ioboard] heartbeat_s: 0.1 s is too slow" in str(error)
    assert "at most 0.075" in str(error)


def _ioboard_settings(tmp_path, settings: str):
    config = tmp_path / "venue.toml"
    config.write_text(CONFIGS["144"].read_text() + "\n[ioboard]\n" + settings)
    return config


# The commands that pick the ioboard backend themselves, whatever [hal] backend says.
IOBOARD_RIG = [["simulate", "--hal", "ioboard", "--cycles", "1"],
               ["fuzz", "--rig", "ioboard", "--count", "1", "--no-shrink"]]


@pytest.mark.parametrize("command", IOBOARD_RIG, ids=["simulate", "fuzz"])
def test_the_ioboard_rig_refuses_a_slow_heartbeat_without_a_traceback(
        tmp_path, capsys, command):
    # A heartbeat the board's failsafe would not wait for: the handshake refuses it,
    # and the command says so with the key, exit 2 (it was a traceback).
    config = _ioboard_settings(tmp_path, "heartbeat_s = 5.0\n")
    code = main(["--config", str(config), *command, *_out(command, tmp_path)])
    assert code == 2
    assert "[ioboard] heartbeat_s: 5.0 s is too slow" in capsys.readouterr().err


@pytest.mark.parametrize("command", IOBOARD_RIG, ids=["simulate", "fuzz"])
def test_the_ioboard_rig_checks_the_link_timeout(tmp_path, capsys, command):
    # The config says [hal] backend = "sim"; the command line picks the ioboard
    # backend, and with it the ioboard's rule: a link timeout above the motion watchdog.
    config = _ioboard_settings(tmp_path, "link_timeout_s = 20.0\n")
    code = main(["--config", str(config), *command, *_out(command, tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{config}: [ioboard] link_timeout_s: 20.0 is not below" in err


def _out(command: list[str], tmp_path) -> list[str]:
    return ["--out", str(tmp_path / "failures")] if command[0] == "fuzz" else []


def test_a_board_in_failsafe_keeps_saying_so_until_hello(short):
    # The link died on the board's side (the host fell silent, or never acknowledged):
    # every output off, and its heartbeats go on, flagged, so the host hears why.
    clock = VirtualClock()
    table = SimTable(short, clock, seed=1)
    wire = _Wire()
    board = IoBoardEmulator(table, clock, wire, heartbeat_limit_s=0.5, heartbeat_s=0.1)
    board._hello(encode_hello())
    clock.run_until(0.4)
    assert not board.failsafe
    clock.run_until(1.95)        # board ms are whole: at 2.0 a 16th beat is due
    assert board.failsafe and board.failsafe_at == pytest.approx(0.5)
    beats = [decode_heartbeat(f.payload) for f in Decoder().feed(wire.sent)
             if f.type == Msg.HEARTBEAT]
    assert beats[:5] == [False] * 5             # alive: 0.0 .. 0.4
    assert beats[5:] == [True] * 15             # latched: 0.5 .. 1.9, one each 0.1 s
    board._hello(encode_hello())                # a new host: the flag clears
    wire.sent = b""
    clock.run_until(2.35)
    beats = [f.payload for f in Decoder().feed(wire.sent) if f.type == Msg.HEARTBEAT]
    assert beats and all(p == encode_heartbeat(False, board.board.session) for p in beats)
    board.close()


def test_the_control_door_says_where_every_tile_is(short):
    from simulator.rigs.board_control import answer

    table = SimTable(short, VirtualClock(), seed=1)
    places = answer(table, None, {"do": "where"})["where"]
    assert sum(places.values()) == len(table.tiles)
    assert set(places) == {"disc A", "table B"} or set(places) == {"disc B", "table A"}
    assert answer(table, None, {"do": "nonsense"}) == {"error": "unknown request 'nonsense'"}


def test_a_set_on_an_input_channel_is_refused_with_an_error_frame(short):
    # Finding 11: a valid SET naming an input channel escaped LinkEnd.on_frame as a
    # KeyError and killed the board's loop. A board refuses it and goes on.
    from hal.protocol import Frame, decode_error, encode_signal

    clock = VirtualClock()
    table = SimTable(short, clock, seed=1)
    wire = _Wire()
    board = IoBoardEmulator(table, clock, wire, heartbeat_limit_s=3.0)
    board._hello(encode_hello())
    before = table.values["lid.upper"]
    board._on_bytes(Frame(0, Msg.SET, encode_signal("lid.upper", not before)).encode())
    board._on_bytes(Frame(1, Msg.SET, encode_signal("motor.disc", True)).encode())
    clock.run_until(0.1)
    assert table.values["lid.upper"] == before
    assert table.values["motor.disc"] is True          # the link goes on
    refused = [decode_error(f.payload) for f in Decoder().feed(wire.sent)
               if f.type == Msg.ERROR]
    assert refused == [(8, "SET lid.upper: an input")]
    board.close()



def test_a_tile_reader_reports_every_read_a_repeated_code_too(short):
    """A reader silent on a repeated code would tell "the same tile as the last one"
    while the walls are secret: the host passes every read on."""
    from hal.protocol import encode_input

    config = dataclasses.replace(short, table=dataclasses.replace(short.table,
                                                                  tile_reader=True))
    hal = IoBoardHal(config.ioboard, config.signals(), VirtualClock(), port=object())
    heard: list[tuple[str, object]] = []
    hal.listen(lambda name, value: heard.append((name, value)))
    for stamp, code in enumerate(["W1", "W1", "B2"]):
        hal._on_message(Msg.INPUT, encode_input("side.0.tile_id", code, stamp))
    hal._on_message(Msg.INPUT, encode_input("side.0.count", False, 3))   # no change
    assert heard == [("side.0.tile_id", "W1"), ("side.0.tile_id", "W1"),
                     ("side.0.tile_id", "B2")]


def test_a_second_host_cannot_open_the_boards_serial_device():
    """One daemon per table: the device is held exclusively (flock) by whoever opened it."""
    from hal.backends.ioboard import LinkError, open_port

    master, slave = os.openpty()
    device = os.ttyname(slave)
    first = open_port(device, 115200)
    try:
        with pytest.raises(LinkError, match="cannot open the I/O board's port"):
            open_port(device, 115200)
    finally:
        first.close()
        os.close(master)
        os.close(slave)


class _RecordingPort(_SilentPort):
    def __init__(self) -> None:
        self.sent = b""

    def write(self, data: bytes) -> int:
        self.sent += data
        return len(data)


def test_a_stop_over_a_noisy_cable_is_fenced_until_its_safe_gets_through(short):
    # SAFE waits its turn behind frames being retransmitted; SAFE_NOW goes ahead of it,
    # and again ahead of every resend while the SAFE is unacknowledged (at bit-error
    # rate 0.01 one SAFE_NOW alone was garbled as often as not).
    clock, port = VirtualClock(), _RecordingPort()
    hal = IoBoardHal.from_config(short, clock, port=port)
    hal.link.start()
    hal.write("motor.disc", True)
    hal.safe_state()
    clock.run_until(3 * short.ioboard.retransmit_s + 0.001)
    sent = [f.type for f in Decoder().feed(port.sent) if f.type != Msg.HEARTBEAT]
    assert sent[:3] == [Msg.SET, Msg.SAFE_NOW, Msg.SAFE]
    # Once, then ahead of each of the three resends of SET and SAFE (none acknowledged).
    assert sent[3:] == [Msg.SAFE_NOW, Msg.SET, Msg.SAFE] * 3
    hal.link.stop()


def test_the_outputs_the_interlock_stopped_are_told_with_the_edge_that_stopped_them(short):
    """The board reports its trips before the edge: by then the feed reads off, yet the
    lid must know it ran when its lower stop dropped (`cut_by`), on that edge only."""
    from hal.protocol import CHANNEL_OF, encode_input

    def trip(output: str, stamp: int) -> bytes:
        return (bytes((1, CHANNEL_OF[output], CHANNEL_OF["lid.lower"]))
                + stamp.to_bytes(4, "big") + b"\x00")

    hal = IoBoardHal(short.ioboard, short.signals(), VirtualClock(), port=object())
    assert hal.capabilities.interlocks
    hal.values["lid.lower"] = True
    hal.values["motor.disc"] = hal.values["motor.ring"] = True
    heard: list[tuple[object, bool, list[str]]] = []
    hal.listen(lambda name, value: heard.append(
        (value, hal.read("motor.disc"), hal.cut_by(name))))
    hal._on_message(Msg.INTERLOCK, trip("motor.disc", 40))
    hal._on_message(Msg.INTERLOCK, trip("motor.ring", 40))
    hal._on_message(Msg.INPUT, encode_input("lid.lower", False, 40))
    hal._on_message(Msg.INPUT, encode_input("lid.lower", True, 41))
    assert heard == [(False, False, ["motor.disc", "motor.ring"]), (True, False, [])]
    assert hal.cut_by("lid.lower") == []
