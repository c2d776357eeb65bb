# The board's end of docs/protocol.md, version 5: frames, CRC and message numbers.
#
# MicroPython has no binascii.crc_hqx, so the CRC is table-driven here; the host's
# hal/protocol.py computes the same CRC-16/CCITT-FALSE (check value 0x29B1).

VERSION = 5
FLAG = 0x7E
ESC = 0x7D
HEADER = 3
TRAILER = 2
MAX_PAYLOAD = 255
MAX_BODY = HEADER + MAX_PAYLOAD + TRAILER
SEQ_MOD = 256
WINDOW = 8

# Message types (the host's hal.protocol.Msg).
HELLO = 0x01
WELCOME = 0x02
ACK = 0x03
HEARTBEAT = 0x04
RESUME = 0x05      # the same host back after a silence: carry on from the record
SET = 0x10
SAFE = 0x11
ARM = 0x12
CANCEL = 0x13
SAFE_NOW = 0x14
INPUT = 0x20
STOPPED = 0x21
INTERLOCK = 0x22
RECORD = 0x23      # what happened while the host was silent (after HELLO: empty)
ERROR = 0x30

SEQUENCED = (SET, SAFE, ARM, CANCEL, INPUT, STOPPED, INTERLOCK, RECORD)

# Why an armed stop ended (STOPPED's reason byte).
REASON_EDGE = 0
REASON_MAX_TIME = 1
REASON_INTERLOCK = 2
REASON_CANCELLED = 3

FAILSAFE_FLAG = 0x01

# RECORD's flags byte.
RECORD_LAST = 0x01       # the last part of this record
RECORD_FRESH = 0x02      # not the session the host named (the board restarted): nothing kept
RECORD_OVERFLOW = 0x04   # more happened than the record holds: it proves nothing
RECORD_MAX = 96          # entries kept while the host is silent (half the sequence space)


def _table():
    out = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        out.append(crc & 0xFFFF)
    return tuple(out)


_CRC = _table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE: crc16(b"123456789") == 0x29B1."""
    table = _CRC
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def u16(value):
    return bytes(((value >> 8) & 0xFF, value & 0xFF))


def u32(value):
    return bytes(((value >> 24) & 0xFF, (value >> 16) & 0xFF, (value >> 8) & 0xFF,
                  value & 0xFF))


def get_u16(data, at):
    return (data[at] << 8) | data[at + 1]


def get_u32(data, at):
    return (data[at] << 24) | (data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3]


def encode_frame(seq, msg, payload):
    """FLAG stuffed(LEN SEQ TYPE PAYLOAD CRC) FLAG."""
    body = bytearray(len(payload) + HEADER + TRAILER)
    body[0] = len(payload)
    body[1] = seq % SEQ_MOD
    body[2] = msg
    body[HEADER:HEADER + len(payload)] = payload
    crc = crc16(memoryview(body)[:HEADER + len(payload)])
    body[-2] = crc >> 8
    body[-1] = crc & 0xFF
    out = bytearray()
    out.append(FLAG)
    for byte in body:
        if byte in (FLAG, ESC):
            out.append(ESC)
            out.append(byte ^ 0x20)
        else:
            out.append(byte)
    out.append(FLAG)
    return bytes(out)


class Decoder:
    """Bytes in, (seq, type, payload) frames out; anything failing a check is dropped.

    Byte by byte into one buffer allocated once: a frame is the bytes between two
    FLAGs that unstuff cleanly, whose LEN matches and whose CRC is right.
    """

    def __init__(self):
        self._buf = bytearray(MAX_BODY)
        self._n = 0
        self._synced = False
        self._escaped = False
        self._broken = False
        self.bad_frames = 0
        self.skipped_bytes = 0

    def feed(self, data, deliver):
        """Call deliver(seq, msg, payload) for every good frame in `data`."""
        buf = self._buf
        for byte in data:
            if byte == FLAG:
                if self._synced and self._n:
                    frame = None if self._broken or self._escaped else self._check()
                    if frame is None:
                        self.bad_frames += 1
                    else:
                        deliver(frame[0], frame[1], frame[2])
                self._synced = True
                self._n = 0
                self._escaped = False
                self._broken = False
                continue
            if not self._synced:
                self.skipped_bytes += 1
                continue
            if self._escaped:
                self._escaped = False
                if byte != 0x5D and byte != 0x5E:
                    self._broken = True
                byte ^= 0x20
            elif byte == ESC:
                self._escaped = True
                continue
            if self._n >= MAX_BODY:        # no FLAG for too long: garbage, resync
                self.skipped_bytes += self._n + 1
                self._n = 0
                self._synced = False
                continue
            buf[self._n] = byte
            self._n += 1

    def _check(self):
        n = self._n
        buf = self._buf
        if n < HEADER + TRAILER or buf[0] != n - HEADER - TRAILER:
            return None
        if crc16(memoryview(buf)[:n - TRAILER]) != (buf[n - 2] << 8) | buf[n - 1]:
            return None
        return buf[1], buf[2], bytes(buf[HEADER:n - TRAILER])
