"""Protocol 3 between the host and the board's firmware (board/) in the simulator:
versions, the interlock table and stops the board makes by itself."""

from __future__ import annotations

import pytest

import hal.backends.ioboard
import hal.protocol
from firmware.controller import compose_table
from hal.armed import StopReason, StopReport, StopSpec
from hal.backends.ioboard import IoBoardHal
from hal.interlocks import interlock_table
from hal.protocol import (
    CHANNELS,
    VERSION,
    Decoder,
    Frame,
    Msg,
    Reason,
    decode_interlock,
    decode_stopped,
    decode_welcome,
    encode_arm,
    encode_hello,
    encode_outputs,
    encode_signal,
    interlock_hash,
)
from mjtable_core.clock import VirtualClock
from mjtable_core.config import Config, load_config
from mjtable_core.signals import LID_UP
from simulator.harness.run import simulate_ioboard
from simulator.physics.table import SimTable
from simulator.rigs.ioboard_emulator import IoBoardEmulator

from ..conftest import CONFIGS, quick
from .test_ioboard import _RecordingPort

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def short() -> Config:
    return quick(load_config(CONFIGS["144"]), play_time_s=2.0)


class _Wire:
    url = "test://wire"

    def __init__(self) -> None:
        self.sent = b""

    def read(self) -> bytes:
        return b""

    def write(self, data: bytes) -> None:
        self.sent += data

    def close(self) -> None:
        pass


def _board(config: Config) -> tuple[VirtualClock, SimTable, _Wire, IoBoardEmulator]:
    clock = VirtualClock()
    table = SimTable(config, clock, seed=1)
    wire = _Wire()
    return clock, table, wire, IoBoardEmulator(table, clock, wire, heartbeat_limit_s=3.0)


def _frames(wire: _Wire, msg: Msg) -> list[bytes]:
    return [f.payload for f in Decoder().feed(wire.sent) if f.type == msg]


def test_a_v5_host_meeting_a_v3_board_stops_with_e81_and_the_reflash_message(short):
    assert VERSION == 5
    report = simulate_ioboard(short, 1, board_version=3)
    assert not report["completed"] and report["cycles_completed"] == 0
    (fault,) = report["faults"]
    assert (fault["id"], fault["code"]) == ("link.version", "E81")
    assert fault["evidence"]["board_version"] == 3
    assert "reflash the board" in report["error"]
    assert report["motors_off_at_end"]


def test_a_v3_host_meeting_a_v5_board_stops_with_e81_and_the_reflash_message(
        short, monkeypatch):
    # The host as protocol 3 was: it says 3 and reads WELCOME's version first.
    monkeypatch.setattr(hal.backends.ioboard, "VERSION", 3)
    monkeypatch.setattr(hal.protocol, "VERSION", 3)
    report = simulate_ioboard(short, 1)
    assert not report["completed"] and report["cycles_completed"] == 0
    (fault,) = report["faults"]
    assert (fault["id"], fault["code"]) == ("link.version", "E81")
    assert fault["evidence"] == {"port": fault["evidence"]["port"], "board_version": 5,
                                 "host_version": 3}
    assert "reflash the board" in report["error"]


def test_a_board_greeted_in_another_version_moves_nothing(short):
    clock, table, wire, board = _board(short)
    board._hello(encode_hello(3))
    board._on_bytes(Frame(0, Msg.SET, encode_signal("motor.disc", True)).encode())
    clock.run_until(1.0)
    (welcome,) = _frames(wire, Msg.WELCOME)
    assert welcome[0] == VERSION
    assert table.values["motor.disc"] is False
    assert not _frames(wire, Msg.ACK)           # its link never started
    board.close()


def test_the_welcome_echoes_the_hash_of_the_interlock_table(short):
    _clock, table, wire, board = _board(short)
    rules = interlock_table(table.signals)
    assert len(rules) == 4 * 30                 # 16 motors, 10 under the lid, 4 plates
    board._hello(encode_hello(VERSION, rules))
    (welcome,) = _frames(wire, Msg.WELCOME)
    assert decode_welcome(welcome).interlock_hash == interlock_hash(rules) != interlock_hash(b"")
    board.close()


def test_the_board_stops_the_disc_when_the_lid_leaves_its_lower_stop(short):
    # The host is silent about it: the board's own interlock stops the feed.
    clock, table, wire, board = _board(short)
    board._hello(encode_hello(VERSION, interlock_table(table.signals)))
    assert table.values["lid.lower"] is True
    board._on_bytes(Frame(0, Msg.SET, encode_signal("motor.disc", True)).encode())
    assert table.values["motor.disc"] is True
    board._on_bytes(Frame(1, Msg.SET, encode_signal("motor.lid", LID_UP)).encode())
    clock.run_until(3.0)
    assert table.values["lid.lower"] is False and table.values["motor.disc"] is False
    # Nobody acknowledges here, so the report is sent again: one trip, many copies.
    (trip,) = {decode_interlock(p) for p in _frames(wire, Msg.INTERLOCK)}
    assert (trip.tripped, trip.output, trip.input) == (True, "motor.disc", "lid.lower")
    board.close()


def test_an_armed_head_stops_on_the_board_at_its_home_edge(short):
    clock, table, wire, board = _board(short)
    board._hello(encode_hello(VERSION, interlock_table(table.signals)))
    stops_at: list[float] = []
    table.heed(lambda name, value: name == "motor.side.1.head" and not value
               and stops_at.append(clock.now()))
    homes: list[float] = []
    table.heed(lambda name, value: name == "side.1.head_home" and value
               and homes.append(clock.now()))
    board._on_bytes(Frame(0, Msg.ARM, encode_arm(
        5, "motor.side.1.head", True, "side.1.head_home", True, edges=1,
        max_ms=2000)).encode())
    clock.run_until(2.5)
    (stopped,) = [decode_stopped(p) for p in set(_frames(wire, Msg.STOPPED))]
    assert (stopped.stop_id, stopped.reason, stopped.edges) == (5, Reason.EDGE, 1)
    # Edge to motor-off in board time: the same millisecond, the same instant.
    assert stops_at == homes[:1]
    assert stopped.board_ms == round(homes[0] * 1000)
    assert table.values["side.1.head_home"] is True
    board.close()


def test_a_board_that_did_not_take_the_interlock_table_stops_with_e81(short, monkeypatch):
    # Three bytes are no whole rule: the board keeps its old (empty) table and says so
    # by its hash; the host will not run a table whose interlocks the board lacks.
    monkeypatch.setattr(hal.backends.ioboard, "interlock_table", lambda signals: b"\x01\x02\x03")
    report = simulate_ioboard(short, 1)
    assert not report["completed"] and report["cycles_completed"] == 0
    (fault,) = report["faults"]
    assert (fault["id"], fault["code"]) == ("link.version", "E81")
    assert fault["evidence"]["board_hash"] == interlock_hash(b"")
    assert "interlock table" in report["error"] and "reflash" in report["error"]


def test_a_command_still_crossing_behind_a_stop_starts_nothing(short):
    # Link noise 0.001 with a head jam: an ARM sent just before the fault was garbled,
    # retransmitted, and crossed 1 ms after head.jam; the SAFE behind it was garbled
    # too, and the head ran 60 ms under the stop. The host now sends SAFE_NOW ahead of
    # the SAFE: until that SAFE comes, nothing sequenced before it starts an output.
    clock, table, wire, board = _board(short)
    board._hello(encode_hello(VERSION, interlock_table(table.signals)))
    board._on_bytes(Frame(0, Msg.SAFE_NOW, bytes((3,))).encode())     # ahead of SAFE #3
    board._on_bytes(Frame(0, Msg.ARM, encode_arm(
        5, "motor.side.1.head", True, "side.1.head_home", True, edges=1,
        max_ms=2000)).encode())
    board._on_bytes(Frame(1, Msg.SET, encode_signal("motor.disc", True)).encode())
    board._on_bytes(Frame(2, Msg.SET, encode_signal("display", "E23")).encode())
    assert table.values["motor.side.1.head"] is False and table.values["motor.disc"] is False
    reports = {(s.stop_id, s.reason) for s in map(decode_stopped, _frames(wire, Msg.STOPPED))}
    assert reports == {(5, Reason.CANCELLED)}                           # the host hears it
    board._on_bytes(Frame(3, Msg.SAFE, b"").encode())   # commands after it are current
    board._on_bytes(Frame(4, Msg.SET, encode_signal("motor.disc", True)).encode())
    assert table.values["motor.disc"] is True
    # Resent ahead of a SAFE the board already has (its ACK lost): it stops nothing.
    board._on_bytes(Frame(0, Msg.SAFE_NOW, bytes((3,))).encode())
    assert table.values["motor.disc"] is True
    clock.run_until(0.1)
    board.close()


def test_a_build_stop_fences_only_the_outputs_it_names(short):
    # Link noise 0.01 with a head jam: the build's stop went out as SETs (no fence), a
    # conveyor's SET sent just before head.jam was resent after it and ran the
    # conveyor on. A scope's stop now names its outputs in SAFE_NOW and SAFE.
    _clock, table, _wire, board = _board(short)
    board._hello(encode_hello(VERSION, interlock_table(table.signals)))
    board._on_bytes(Frame(0, Msg.SET, encode_signal("motor.disc", True)).encode())
    build = encode_outputs(("motor.disc", "motor.side.1.conveyor"))
    board._on_bytes(Frame(0, Msg.SAFE_NOW, bytes((4,)) + build).encode())  # ahead of #4
    assert table.values["motor.disc"] is False
    board._on_bytes(Frame(1, Msg.SET, encode_signal("motor.side.1.conveyor", True)).encode())
    board._on_bytes(Frame(2, Msg.ARM, encode_arm(
        5, "motor.side.1.plate", True, "side.1.plate_home", True, edges=1,
        max_ms=4000)).encode())
    board._on_bytes(Frame(3, Msg.SET, encode_signal("motor.disc", True)).encode())
    # What it names starts no more; the plate, outside the build, turns.
    assert table.values["motor.side.1.conveyor"] is False
    assert table.values["motor.disc"] is False
    assert table.values["motor.side.1.plate"] is True
    board._on_bytes(Frame(4, Msg.SAFE, build).encode())
    assert table.values["motor.side.1.plate"] is True
    board._on_bytes(Frame(5, Msg.SET, encode_signal("motor.disc", True)).encode())
    assert table.values["motor.disc"] is True
    board.close()


def test_a_build_fault_on_the_board_goes_out_fenced(short):
    # The controller's build-scoped stop (head.jam) reaches the board as SAFE_NOW and
    # SAFE naming the build's motors, not as SETs a stale frame could overtake.
    clock, port = VirtualClock(), _RecordingPort()
    hal = IoBoardHal.from_config(short, clock, port=port)
    hal.link.start()
    ctl = compose_table(short, hal, clock, consumers=False)
    hal.write("motor.side.0.conveyor", True)
    port.sent = b""
    ctl.fault("head.jam", "side.0.head", 0, {})
    frames = [f for f in Decoder().feed(port.sent) if f.type != Msg.HEARTBEAT]
    fence = next(f for f in frames if f.type == Msg.SAFE_NOW)
    safe = next(f for f in frames if f.type == Msg.SAFE)
    build = {"motor.disc", "motor.ring"} | {
        f"motor.side.{n}.{part}" for n in range(4) for part in ("conveyor", "head")}
    assert {CHANNELS[ch] for ch in fence.payload[1:]} == build
    assert fence.payload[0] == safe.seq and safe.payload == fence.payload[1:]
    assert frames.index(fence) < frames.index(safe)
    assert hal.read("motor.side.0.conveyor") is False
    hal.link.stop()


def test_a_late_stopped_for_an_earlier_arming_leaves_the_new_motion_running(short):
    # The board stops a head at home and says so: INPUT (home), then STOPPED. The host
    # heard the home edge and armed the next tile's turn before STOPPED arrived, which
    # marked the head off while it turned: the next arming's own STOPPED ends it.
    clock, port = VirtualClock(), _RecordingPort()
    hal = IoBoardHal.from_config(short, clock, port=port)
    hal.link.start()
    reports: list[StopReport] = []
    turn = StopSpec("motor.side.0.head", True, "side.0.head_home", True, edges=1, max_s=1.0)
    hal.arm(turn, reports.append)
    hal.arm(turn, reports.append)       # the next tile's turn: stop 1

    def stopped(seq: int, stop_id: int) -> None:
        payload = bytes((stop_id, Reason.EDGE)) + (100 * seq).to_bytes(4, "big") + bytes((
            CHANNELS.index("motor.side.0.head"), CHANNELS.index("side.0.head_home"), 1, 1))
        hal._on_frame(Frame(seq, Msg.STOPPED, payload))

    stopped(0, 0)
    assert [r.reason for r in reports] == [StopReason.EDGE]
    assert hal.read("motor.side.0.head") is True        # still turning, on stop 1
    stopped(1, 1)
    assert hal.read("motor.side.0.head") is False
    assert len(reports) == 2
    hal.link.stop()


def test_a_command_a_stop_made_stale_is_resent_harmless(short):
    # The fence holds only if SAFE_NOW gets through before the stale frame, and at
    # bit-error rate 0.01 most frames of its size are garbled: a head still ran on
    # after head.jam in 1 run of 90. A stale start waiting for its resend now goes
    # out as its stop instead (same number: the board never took the first one).
    clock, port = VirtualClock(), _RecordingPort()
    hal = IoBoardHal.from_config(short, clock, port=port)
    hal.link.start()
    hal.arm(StopSpec("motor.side.2.head", True, "side.2.head_home", True, edges=1),
            lambda report: None)
    hal.write("motor.side.2.conveyor", True)
    hal.write("motor.lid", LID_UP)
    hal.safe_state(["motor.side.2.head", "motor.side.2.conveyor"])
    port.sent = b""
    clock.run_until(short.ioboard.retransmit_s + 0.001)   # one go-back-N resend
    resent = [f for f in Decoder().feed(port.sent) if f.type not in (
        Msg.HEARTBEAT, Msg.SAFE_NOW)]
    assert [(f.seq, f.type) for f in resent] == [
        (0, Msg.CANCEL), (1, Msg.SET), (2, Msg.SET), (3, Msg.SAFE)]
    assert resent[0].payload == b"\x00"                  # the ARM's stop id
    assert resent[1].payload == encode_signal("motor.side.2.conveyor", False)
    assert resent[2].payload == encode_signal("motor.lid", LID_UP)   # not the scope's
    hal.link.stop()


def test_a_safe_ahead_of_a_gap_stops_at_once(short):
    # Link noise 0.01, the link dying under a head jam: the SAFE crossed whole, but a
    # frame before it was garbled and every SAFE_NOW too, so the board held the SAFE
    # back and the disc ran until its failsafe, past the referee's grace. Turning off
    # needs nothing before it: a whole SAFE ahead of a gap stops what it names now.
    _clock, table, _wire, board = _board(short)
    board._hello(encode_hello(VERSION, interlock_table(table.signals)))
    board._on_bytes(Frame(0, Msg.SET, encode_signal("motor.disc", True)).encode())
    board._on_bytes(Frame(1, Msg.SET, encode_signal("motor.lid", LID_UP)).encode())
    assert table.values["motor.disc"] is True
    # #2, an ARM of a head, is garbled; #3, the build's SAFE, crosses whole.
    build = encode_outputs(("motor.disc", "motor.side.1.head"))
    board._on_bytes(Frame(3, Msg.SAFE, build).encode())
    assert table.values["motor.disc"] is False
    assert table.values["motor.lid"] == LID_UP          # not named: runs on
    board._on_bytes(Frame(2, Msg.ARM, encode_arm(
        5, "motor.side.1.head", True, "side.1.head_home", True, edges=1)).encode())
    assert table.values["motor.side.1.head"] is False   # stale: fenced
    board._on_bytes(Frame(3, Msg.SAFE, build).encode())
    board._on_bytes(Frame(4, Msg.SET, encode_signal("motor.disc", True)).encode())
    assert table.values["motor.disc"] is True           # after the SAFE: current
    board.close()
