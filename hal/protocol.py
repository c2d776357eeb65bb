"""The I/O-board wire protocol: frames, CRC, messages and channel numbers.

Pure data in, data out: no I/O, no clock. The host backend (`hal/backends/ioboard.py`)
and the board emulator (`simulator/rigs/ioboard_emulator.py`) share this module, so both
ends of the link speak exactly the same bytes. The specification is docs/protocol.md;
keep the two in step.

Frame on the wire (HDLC-style: a FLAG byte on each side, the rest byte-stuffed)::

    FLAG  stuffed(LEN  SEQ  TYPE  PAYLOAD[LEN]  CRC_HI  CRC_LO)  FLAG

CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor; check value
over b"123456789" = 0x29B1) over LEN, SEQ, TYPE and PAYLOAD, before stuffing. Inside
a frame FLAG (0x7E) is sent as ESC 0x5E and ESC (0x7D) as ESC 0x5D, so a FLAG always
ends a frame: a bit error costs that one frame, never the ones after it (a length
byte alone would make the receiver wait for bytes that belong to later frames).
"""

from __future__ import annotations

import binascii
import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import IntEnum

from mjtable_core.geometry import REFERENCE
from mjtable_core.signals import LID_DOWN, LID_OFF, LID_UP, Kind, Value, catalogue

VERSION = 5          # 2: INPUT carries the board's time; 3: armed stops, interlocks;
#                      4: SAFE and SAFE_NOW name the outputs they stop (a scope's stop);
#                      5: RESUME and RECORD (a silent host carries on from the record)
FLAG = 0x7E         # starts and ends every frame
ESC = 0x7D          # the next byte is xor 0x20
HEADER = 3          # LEN SEQ TYPE
TRAILER = 2         # CRC
MAX_PAYLOAD = 255   # LEN is one byte
MAX_BODY = HEADER + MAX_PAYLOAD + TRAILER
SEQ_MOD = 256
WINDOW = 8          # frames a sender may have unacknowledged (go-back-N)


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF; crc16(b"123456789") == 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


class Msg(IntEnum):
    """Message types. Sequenced ones are acknowledged and retransmitted."""

    HELLO = 0x01       # host → board: protocol version; (re)starts the link
    WELCOME = 0x02     # board → host: version, heartbeat limit, every input's value
    ACK = 0x03         # either way: the next sequence number the sender expects
    HEARTBEAT = 0x04   # either way: "I am alive"; board adds its failsafe flag
    RESUME = 0x05      # host → board: the same host back after a silence (its session)
    SET = 0x10         # host → board, sequenced: drive one output channel
    SAFE = 0x11        # host → board, sequenced: the outputs named (none: every output)
    #                    to their safe values
    ARM = 0x12         # host → board, sequenced: run an output until an input stops it
    CANCEL = 0x13      # host → board, sequenced: end an armed stop, output safe
    SAFE_NOW = 0x14    # host → board, ahead of a SAFE: the outputs it names safe at once,
    #                    none of them started until that SAFE (commands behind it are stale)
    INPUT = 0x20       # board → host, sequenced: one input changed, and when
    STOPPED = 0x21     # board → host, sequenced: an armed stop ended, when and why
    INTERLOCK = 0x22   # board → host, sequenced: an interlock refused or tripped an output
    RECORD = 0x23      # board → host, sequenced: what happened while the host was silent
    ERROR = 0x30       # board → host: a well-formed frame the board refuses, and why


SEQUENCED = frozenset({Msg.SET, Msg.SAFE, Msg.ARM, Msg.CANCEL, Msg.INPUT, Msg.STOPPED,
                       Msg.INTERLOCK, Msg.RECORD})

# Channel numbers are the wire's names for the table's signals. Append only: a board
# flashed with this table must keep meaning the same signal by the same number.
_GENERAL = ("motor.lid", "motor.disc", "motor.ring", "motor.dice", "lamp.ready",
            "lamp.building", "buzzer", "display", "lid.upper", "lid.lower", "dice.spin",
            "key.lift.0", "key.lift.1", "reset", "case_open")
_PER_SIDE = ("lamp.dealer.{n}", "key.dice.{n}", "motor.side.{n}.conveyor",
             "motor.side.{n}.head", "motor.side.{n}.plate", "side.{n}.full",
             "side.{n}.count", "side.{n}.head_home", "side.{n}.plate_home",
             "side.{n}.face_up", "side.{n}.tile_id")
# Protocol 1 numbers the channels of the reference four-mouth table.
CHANNELS: tuple[str, ...] = _GENERAL + tuple(p.format(n=n) for n in REFERENCE.sides
                                             for p in _PER_SIDE) + ("case_open_nc",)
CHANNEL_OF: Mapping[str, int] = {name: i for i, name in enumerate(CHANNELS)}
_KINDS = {s.name: s.kind for s in catalogue(tile_reader=True, face_up_sensor=True,
                                            case_contacts=2).values()}
_LID_CODES = {LID_OFF: 0, LID_UP: 1, LID_DOWN: 2}
_LID_NAMES = {v: k for k, v in _LID_CODES.items()}


class ProtocolError(ValueError):
    """Bytes that are not a valid message; the receiver drops them."""


@dataclass(frozen=True)
class Frame:
    seq: int
    type: int
    payload: bytes = b""

    def encode(self) -> bytes:
        if len(self.payload) > MAX_PAYLOAD:
            raise ProtocolError(f"payload of {len(self.payload)} bytes, at most {MAX_PAYLOAD}")
        body = bytes((len(self.payload), self.seq % SEQ_MOD, self.type)) + self.payload
        return bytes((FLAG,)) + _stuff(body + crc16(body).to_bytes(2, "big")) + bytes((FLAG,))


def _stuff(data: bytes) -> bytes:
    return data.replace(b"\x7d", b"\x7d\x5d").replace(b"\x7e", b"\x7d\x5e")


def _unstuff(data: bytes) -> bytes | None:
    out = bytearray()
    escaped = False
    for byte in data:
        if escaped:
            if byte not in (0x5D, 0x5E):
                return None
            out.append(byte ^ 0x20)
            escaped = False
        elif byte == ESC:
            escaped = True
        else:
            out.append(byte)
    return None if escaped else bytes(out)


class Decoder:
    """Turns a byte stream into frames; anything that fails its checks is dropped.

    Bytes between two FLAGs are one frame candidate: it is delivered only when it
    unstuffs cleanly, its LEN matches and its CRC is right. Bytes before the first
    FLAG are skipped (we joined mid-frame).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._synced = False
        self.bad_frames = 0        # candidates that failed unstuffing, LEN or CRC
        self.skipped_bytes = 0     # bytes before the first FLAG or in an overlong run

    def feed(self, data: bytes) -> Iterator[Frame]:
        for chunk_end, part in _split_keep(data):
            if not self._synced:
                self.skipped_bytes += len(part)
                if chunk_end:
                    self._synced = True
                continue
            self._buf += part
            if len(self._buf) > 2 * MAX_BODY:       # no FLAG for too long: garbage
                self.skipped_bytes += len(self._buf)
                self._buf.clear()
                self._synced = False
                continue
            if not chunk_end:
                continue
            candidate = bytes(self._buf)
            self._buf.clear()
            if candidate:
                frame = self._parse(candidate)
                if frame is None:
                    self.bad_frames += 1
                else:
                    yield frame

    @staticmethod
    def _parse(stuffed: bytes) -> Frame | None:
        body = _unstuff(stuffed)
        if body is None or len(body) < HEADER + TRAILER:
            return None
        if body[0] != len(body) - HEADER - TRAILER:
            return None
        if crc16(body[:-TRAILER]) != int.from_bytes(body[-TRAILER:], "big"):
            return None
        return Frame(seq=body[1], type=body[2], payload=body[HEADER:-TRAILER])


def _split_keep(data: bytes) -> Iterator[tuple[bool, bytes]]:
    """(ends at a FLAG, bytes before it) for each piece of `data`."""
    start = 0
    while True:
        at = data.find(FLAG, start)
        if at < 0:
            if start < len(data):
                yield False, data[start:]
            return
        yield True, data[start:at]
        start = at + 1


# -- values and messages --------------------------------------------------------------

def encode_value(name: str, value: Value) -> bytes:
    kind = _KINDS[name]
    if kind is Kind.LID_MOTOR:
        return bytes((_LID_CODES[str(value)],))
    if kind in (Kind.DISPLAY, Kind.READER):
        return ("" if value is None else str(value)).encode()
    return b"\x01" if value else b"\x00"


def decode_value(name: str, data: bytes) -> Value:
    kind = _KINDS[name]
    if kind is Kind.LID_MOTOR:
        if len(data) != 1 or data[0] not in _LID_NAMES:
            raise ProtocolError(f"{name}: bad lid command {data!r}")
        return _LID_NAMES[data[0]]
    if kind is Kind.DISPLAY:
        return data.decode(errors="replace")
    if kind is Kind.READER:
        return data.decode(errors="replace") or None
    if data not in (b"\x00", b"\x01"):
        raise ProtocolError(f"{name}: bad on/off value {data!r}")
    return data == b"\x01"


def channel_name(channel: int) -> str:
    if not 0 <= channel < len(CHANNELS):
        raise ProtocolError(f"unknown channel {channel}")
    return CHANNELS[channel]


def encode_outputs(names: Iterable[str]) -> bytes:
    """Payload of SAFE (and the tail of SAFE_NOW): the channels a scope's stop turns
    off; empty says every output."""
    return bytes(CHANNEL_OF[name] for name in names)


def encode_signal(name: str, value: Value) -> bytes:
    """Payload of SET (and the end of INPUT): channel, then the value."""
    return bytes((CHANNEL_OF[name],)) + encode_value(name, value)


def decode_signal(payload: bytes) -> tuple[str, Value]:
    if not payload:
        raise ProtocolError("empty signal payload")
    name = channel_name(payload[0])
    return name, decode_value(name, payload[1:])


def encode_input(name: str, value: Value, board_ms: int) -> bytes:
    """Payload of INPUT: the board's clock in ms (u32 BE, wrapping) when the input
    changed, then channel and value. The board reads its pins in real time; the host
    sees the change only when the frame gets through, later after a retransmission."""
    return (board_ms % 2**32).to_bytes(4, "big") + encode_signal(name, value)


def decode_input(payload: bytes) -> tuple[str, Value, int]:
    if len(payload) < 5:
        raise ProtocolError(f"INPUT of {len(payload)} bytes, expected at least 5")
    name, value = decode_signal(payload[4:])
    return name, value, int.from_bytes(payload[:4], "big")


def encode_hello(version: int = VERSION, interlocks: bytes = b"") -> bytes:
    """HELLO: the version byte, then (protocol 3) the interlock table. A host first
    sends the version alone: a board of another version answers that, and says its
    own version instead of dropping a HELLO longer than it knows."""
    return bytes((version,)) + interlocks


def decode_hello(payload: bytes) -> int:
    if not payload:
        raise ProtocolError("empty HELLO")
    return payload[0]


@dataclass(frozen=True)
class Welcome:
    version: int
    heartbeat_limit_s: float
    inputs: dict[str, Value]
    interlock_hash: int = 0


def encode_welcome(heartbeat_limit_s: float, inputs: Mapping[str, Value],
                   version: int = VERSION, interlock_hash: int = 0xFFFF) -> bytes:
    out = bytearray(struct.pack(">BH", version, round(heartbeat_limit_s * 1000)))
    if version >= 3:
        out += struct.pack(">H", interlock_hash)
    for name, value in inputs.items():
        data = encode_value(name, value)
        out += bytes((CHANNEL_OF[name], len(data))) + data
    return bytes(out)


def decode_welcome(payload: bytes) -> Welcome:
    """Version first: a board of another version may lay out the rest differently."""
    if len(payload) < 1:
        raise ProtocolError("empty WELCOME")
    version = payload[0]
    if version != VERSION:
        return Welcome(version, 0.0, {})
    if len(payload) < 5:
        raise ProtocolError("WELCOME too short")
    limit_ms, interlock_hash = struct.unpack(">HH", payload[1:5])
    inputs: dict[str, Value] = {}
    i = 5
    while i < len(payload):
        if i + 2 > len(payload):
            raise ProtocolError("WELCOME cut inside an input")
        name, size = channel_name(payload[i]), payload[i + 1]
        if i + 2 + size > len(payload):
            raise ProtocolError("WELCOME cut inside a value")
        inputs[name] = decode_value(name, payload[i + 2:i + 2 + size])
        i += 2 + size
    return Welcome(version, limit_ms / 1000, inputs, interlock_hash)


def encode_ack(next_expected: int) -> bytes:
    return bytes((next_expected % SEQ_MOD,))


def decode_ack(payload: bytes) -> int:
    if len(payload) != 1:
        raise ProtocolError(f"ACK of {len(payload)} bytes, expected 1")
    return payload[0]


FAILSAFE_FLAG = 0x01


def encode_heartbeat(failsafe: bool = False, session: int | None = None) -> bytes:
    """Flags; from a board (protocol 5) its session after them."""
    flags = bytes((FAILSAFE_FLAG if failsafe else 0,))
    return flags if session is None else flags + struct.pack(">H", session & 0xFFFF)


def decode_heartbeat(payload: bytes) -> bool:
    """True when the board reports its failsafe latched (every output off)."""
    if len(payload) not in (1, 3):
        raise ProtocolError(f"HEARTBEAT of {len(payload)} bytes, expected 1 or 3")
    return bool(payload[0] & FAILSAFE_FLAG)


def heartbeat_session(payload: bytes) -> int | None:
    """The board's session (its power-up) a board's HEARTBEAT names, if it does."""
    return struct.unpack(">H", payload[1:3])[0] if len(payload) == 3 else None


def encode_error(channel: int, reason: str) -> bytes:
    """Payload of ERROR: the channel the refused frame named (0xFF: none), and why."""
    return bytes((channel & 0xFF,)) + reason.encode()[:200]


def decode_error(payload: bytes) -> tuple[int, str]:
    if not payload:
        raise ProtocolError("empty ERROR payload")
    return payload[0], payload[1:].decode(errors="replace")


# -- protocol 3: armed stops and interlocks --------------------------------------------

class Reason(IntEnum):
    """Why an armed stop ended (STOPPED)."""

    EDGE = 0          # the input reached its level (edges counted, held confirm_ms)
    MAX_TIME = 1      # max_ms passed first
    INTERLOCK = 2     # an interlock refused the start or stopped the output
    CANCELLED = 3     # the host cancelled it, set the output, or made everything safe


ANY_VALUE = 0xFF    # an interlock rule on every value of an output but its safe one


def encode_rule(output: str, input_name: str, level: Value, output_value: Value = None) -> bytes:
    """One interlock rule: `output` (at `output_value`, None: any running value) may
    run only while `input_name` reads `level`."""
    value = ANY_VALUE if output_value is None else encode_value(output, output_value)[0]
    return bytes((CHANNEL_OF[output], value, CHANNEL_OF[input_name],
                  encode_value(input_name, level)[0]))


def interlock_hash(table: bytes) -> int:
    """What the board echoes in WELCOME for the table it installed."""
    return crc16(table)


def encode_arm(stop_id: int, output: str, value: Value, input_name: str, level: Value, *,
               edges: int = 0, blank_ms: int = 0, confirm_ms: int = 0,
               max_ms: int = 0) -> bytes:
    """Payload of ARM: run `output` at `value`; stop it when `input_name` reaches `level`
    (on the `edges`-th arrival there, 0: the level alone; edges within `blank_ms` of the
    start do not count), held for `confirm_ms`; give up after `max_ms` (0: never)."""
    return (bytes((stop_id & 0xFF, CHANNEL_OF[output], encode_value(output, value)[0],
                   CHANNEL_OF[input_name], encode_value(input_name, level)[0], edges))
            + struct.pack(">HHI", blank_ms, confirm_ms, max_ms))


@dataclass(frozen=True)
class Stopped:
    stop_id: int
    reason: Reason
    board_ms: int
    output: str
    input: str
    input_value: int
    edges: int
    inputs: dict[str, int]


def decode_stopped(payload: bytes) -> Stopped:
    if len(payload) < 10 or (len(payload) - 10) % 2:
        raise ProtocolError(f"STOPPED of {len(payload)} bytes")
    inputs = {channel_name(payload[i]): payload[i + 1] for i in range(10, len(payload), 2)}
    return Stopped(payload[0], Reason(payload[1]), int.from_bytes(payload[2:6], "big"),
                   channel_name(payload[6]), channel_name(payload[7]), payload[8],
                   payload[9], inputs)


@dataclass(frozen=True)
class Trip:
    tripped: bool       # False: a SET or ARM refused; True: a running output stopped
    output: str
    input: str
    board_ms: int
    input_value: int


def decode_interlock(payload: bytes) -> Trip:
    if len(payload) != 8:
        raise ProtocolError(f"INTERLOCK of {len(payload)} bytes, expected 8")
    return Trip(bool(payload[0]), channel_name(payload[1]), channel_name(payload[2]),
                int.from_bytes(payload[3:7], "big"), payload[7])


# RECORD's flags.
RECORD_LAST = 0x01       # the record's last part
RECORD_FRESH = 0x02      # another session than the one named (the board restarted)
RECORD_OVERFLOW = 0x04   # more happened than the board could keep: it proves nothing


def encode_resume(session: int, interlocks: bytes = b"", version: int = VERSION) -> bytes:
    """RESUME: version, the board's session the host knew (from its last RECORD), then
    the interlock table as in HELLO."""
    return bytes((version,)) + struct.pack(">H", session & 0xFFFF) + interlocks


@dataclass(frozen=True)
class RecordPart:
    """One RECORD: the board's session, flags, and its entries: (sequence number on
    the silent link, type, payload) for what was (or would have been) sent — a SET
    entry (`at_ms`, channel, value, as INPUT) is an output the board itself drove at
    its hold — and the ids of the armed stops the board still runs (the last part)."""

    session: int
    flags: int
    entries: tuple[tuple[int, int, bytes], ...]
    running: tuple[int, ...]

    @property
    def last(self) -> bool:
        return bool(self.flags & RECORD_LAST)


def decode_record(payload: bytes) -> RecordPart:
    if len(payload) < 4:
        raise ProtocolError(f"RECORD of {len(payload)} bytes, expected at least 4")
    session, flags, seq = struct.unpack(">HBB", payload[:4])
    entries: list[tuple[int, int, bytes]] = []
    running: list[int] = []
    i = 4
    while i < len(payload):
        if i + 2 > len(payload) or i + 2 + payload[i + 1] > len(payload):
            raise ProtocolError("RECORD cut inside an entry")
        msg, data = payload[i], payload[i + 2:i + 2 + payload[i + 1]]
        i += 2 + payload[i + 1]
        if msg == Msg.ARM:
            if len(data) != 1:
                raise ProtocolError("RECORD: a running stop is one byte")
            running.append(data[0])
            continue
        if msg not in (Msg.INPUT, Msg.STOPPED, Msg.INTERLOCK, Msg.SET):
            raise ProtocolError(f"RECORD holds a message of type {msg:#04x}")
        entries.append((seq, msg, data))
        seq = (seq + 1) % SEQ_MOD
    return RecordPart(session, flags, tuple(entries), tuple(running))
