"""The wire protocol: CRC, frames, every message type, and a decoder that never lies."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hal.protocol import (
    CHANNEL_OF,
    CHANNELS,
    FLAG,
    MAX_PAYLOAD,
    VERSION,
    Decoder,
    Frame,
    Msg,
    ProtocolError,
    crc16,
    decode_ack,
    decode_heartbeat,
    decode_hello,
    decode_input,
    decode_signal,
    decode_welcome,
    encode_ack,
    encode_heartbeat,
    encode_hello,
    encode_input,
    encode_signal,
    encode_welcome,
)
from mjtable_core.signals import catalogue


def test_crc_check_value_is_ccitt_false():
    # The value docs/protocol.md states; CRC-16/KERMIT or Klipper's would differ.
    assert crc16(b"123456789") == 0x29B1


def test_every_signal_of_the_fullest_table_has_a_channel():
    full = catalogue(tile_reader=True, face_up_sensor=True, case_contacts=2)
    assert set(full) == set(CHANNELS)
    assert len(CHANNELS) == len(set(CHANNELS))
    assert CHANNEL_OF["motor.lid"] == 0          # the wire contract starts here


def decoded(data: bytes) -> list[Frame]:
    return list(Decoder().feed(data))


SIGNAL_VALUES = [("motor.lid", "up"), ("motor.lid", "down"), ("motor.lid", "off"),
                 ("motor.side.3.head", True), ("motor.disc", False), ("display", "3-5"),
                 ("display", ""), ("side.2.count", True), ("key.dice.1", False),
                 ("side.0.tile_id", "B7"), ("side.0.tile_id", None)]


@pytest.mark.parametrize(("name", "value"), SIGNAL_VALUES)
def test_set_and_input_round_trip(name, value):
    frame = Frame(42, Msg.SET, encode_signal(name, value))
    (back,) = decoded(frame.encode())
    assert back == frame
    assert decode_signal(back.payload) == (name, value)
    stamp = 2**32 + 1234      # the board's ms counter wraps at 32 bits
    frame = Frame(43, Msg.INPUT, encode_input(name, value, stamp))
    (back,) = decoded(frame.encode())
    assert decode_input(back.payload) == (name, value, 1234)


def test_hello_welcome_ack_heartbeat_safe_round_trip():
    inputs = {"lid.lower": True, "side.1.count": False, "side.3.tile_id": "F2"}
    frames = [Frame(0, Msg.HELLO, encode_hello()),
              Frame(0, Msg.WELCOME, encode_welcome(1.25, inputs)),
              Frame(0, Msg.ACK, encode_ack(7)),
              Frame(0, Msg.HEARTBEAT, encode_heartbeat(failsafe=True)),
              Frame(9, Msg.SAFE)]
    back = decoded(b"".join(f.encode() for f in frames))
    assert back == frames
    assert decode_hello(back[0].payload) == VERSION
    welcome = decode_welcome(back[1].payload)
    assert (welcome.version, welcome.heartbeat_limit_s, welcome.inputs) == (VERSION, 1.25, inputs)
    assert decode_ack(back[2].payload) == 7
    assert decode_heartbeat(back[3].payload) is True
    assert decode_heartbeat(encode_heartbeat()) is False


def test_welcome_of_another_version_is_read_no_further():
    welcome = decode_welcome(bytes((VERSION + 1,)) + b"anything at all")
    assert welcome.version == VERSION + 1


def test_oversized_payload_is_refused_when_encoding():
    with pytest.raises(ProtocolError):
        Frame(0, Msg.SET, bytes(MAX_PAYLOAD + 1)).encode()


def test_frames_split_anywhere_still_decode():
    data = b"".join(Frame(i, Msg.INPUT, encode_signal("side.1.count", i % 2 == 0)).encode()
                    for i in range(5))
    decoder = Decoder()
    got = [f for i in range(len(data)) for f in decoder.feed(data[i:i + 1])]
    assert [f.seq for f in got] == list(range(5))


def test_garbage_before_a_frame_costs_nothing_but_the_garbage():
    frame = Frame(3, Msg.SET, encode_signal("motor.ring", True))
    decoder = Decoder()
    assert list(decoder.feed(b"\x00\xff" + bytes((FLAG, 200)) + b"junk" + frame.encode())) \
        == [frame]
    assert decoder.bad_frames == 1


def test_a_damaged_length_does_not_hold_back_the_frames_after_it():
    # With a length byte alone, LEN = 200 would make the receiver wait for 200 bytes
    # that are really the next frames; the closing FLAG ends the damaged one at once.
    first = bytearray(Frame(1, Msg.INPUT, encode_signal("side.0.count", True)).encode())
    first[1] = 200
    second = Frame(2, Msg.INPUT, encode_signal("side.0.count", False))
    assert list(Decoder().feed(bytes(first) + second.encode())) == [second]


def test_payload_bytes_equal_to_flag_and_escape_are_stuffed():
    frame = Frame(0x7E, Msg.SET, encode_signal("display", "~}~"))
    wire = frame.encode()
    assert wire.count(FLAG) == 2          # only the two frame boundaries
    assert decoded(wire) == [frame]


# -- fuzz: random bytes and flipped bits never crash it and never yield a command ------

@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_never_crash_and_yield_only_frames_that_were_there(data):
    for frame in decoded(data):
        # Anything delivered passed its CRC: it is, byte for byte, in the input.
        assert frame.encode() in data


COMMANDS = [Frame(s, Msg.SET, encode_signal(n, v)) for s, (n, v) in enumerate(SIGNAL_VALUES)]


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(COMMANDS), st.lists(st.integers(min_value=0), min_size=1, max_size=3,
                                           unique=True))
def test_a_command_with_flipped_bits_is_never_delivered(frame, flips):
    data = bytearray(frame.encode())
    bits = {f % (len(data) * 8) for f in flips}
    for bit in bits:
        data[bit // 8] ^= 1 << (bit % 8)
    # CRC-16/CCITT-FALSE catches every 1-, 2- and 3-bit error in frames this short.
    assert decoded(bytes(data)) == []


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_payload_decoders_fail_only_with_protocol_error(payload):
    for decode in (decode_signal, decode_input, decode_welcome, decode_ack, decode_heartbeat,
                   decode_hello):
        with contextlib.suppress(ProtocolError):
            decode(payload)
