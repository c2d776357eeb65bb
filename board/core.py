# The board: handshake, outputs, armed stops, interlocks and the failsafe on silence.
#
# The pin layer gives the board its channels and clock:
#   pins.now_ms()            the board's millisecond clock (never wraps backwards)
#   pins.outputs             {channel: safe value (bytes)} of the outputs fitted
#   pins.inputs              channels of the inputs fitted
#   pins.names               {channel: the table's name for it}, for messages
#   pins.read(ch) -> bytes   an input's (or output's) present value
#   pins.write(ch, value)    drive an output
#   pins.send(data)          bytes onto the serial line
# and calls board.on_input(ch, value, at_ms) on every input change (from its pin
# interrupt or its own loop), board.feed(data) with bytes from the line and
# board.poll() whenever next_due() comes.

from board.interlocks import Interlocks
from board.link import BoardLink
from board.stops import ArmedStop
from board.wire import (
    ARM,
    CANCEL,
    ERROR,
    FAILSAFE_FLAG,
    HEARTBEAT,
    HELLO,
    INPUT,
    INTERLOCK,
    MAX_PAYLOAD,
    REASON_CANCELLED,
    REASON_INTERLOCK,
    RECORD,
    RECORD_FRESH,
    RECORD_LAST,
    RECORD_MAX,
    RECORD_OVERFLOW,
    RESUME,
    SAFE,
    SAFE_NOW,
    SET,
    STOPPED,
    VERSION,
    WELCOME,
    Decoder,
    get_u16,
    get_u32,
    u16,
    u32,
)

ARM_SIZE = 14
TRIP_REFUSED = 0        # INTERLOCK kinds: a SET or ARM refused ...
TRIP_TRIPPED = 1        # ... or a running output stopped by an input change
LINK_LOST_CODE = b"E80"  # the display in failsafe: the host's code for a lost link
RECORD_HEAD = 4          # RECORD: session (u16), flags, sequence number of its first entry


def _boot_token(pins):
    """This power-up's session number: a host that knew another one (the board
    restarted, its record lost) is told so at RESUME."""
    token = getattr(pins, "boot_token", None)
    if token is not None:
        return token() & 0xFFFF
    # MicroPython's rp2 port draws these from its ring oscillator.
    import os

    raw = os.urandom(2)
    return (raw[0] << 8) | raw[1]


class Board:
    def __init__(self, pins, version=VERSION, heartbeat_limit_ms=500, heartbeat_ms=100,
                 retransmit_ms=30, max_retries=15):
        self.pins = pins
        self.version = version
        self.heartbeat_limit_ms = heartbeat_limit_ms
        self.failsafe = False
        self.failsafe_at_ms = None     # when the failsafe last tripped (board time)
        # SAFE_NOW came ahead of its SAFE: commands sequenced before that SAFE, still
        # crossing (a noisy cable retransmits them), are stale: none starts an output
        # the SAFE names. {output channel: sequence number of the SAFE that frees it}
        self.fence: dict = {}
        self.interlocks = Interlocks()
        self.stops: dict = {}   # output channel -> ArmedStop
        self.decoder = Decoder()
        self.stopped_reports = 0
        self.link = BoardLink(pins.send, self._on_message, self._on_dead,
                              self._heartbeat_payload, retransmit_ms=retransmit_ms,
                              max_retries=max_retries, heartbeat_ms=heartbeat_ms,
                              silence_ms=heartbeat_limit_ms)
        self._now = 0
        self._beacon_at = 0
        self.session = _boot_token(pins)
        # While the host is silent: every frame it has not read, then every input edge,
        # stop and interlock trip since, as (type, payload) in board time; bounded.
        self.record = None
        self.record_first = 0         # the sequence number record[0] was (or would be) sent as
        self.record_overflow = False
        # The last answer to RESUME (flags, first, entries, the sequence number after
        # its last part) until the host acknowledges it: a WELCOME the noise took
        # leaves the host asking again, and the record is still owed to it, whole.
        self.answer = None

    # -- from the pin layer -----------------------------------------------------------

    def feed(self, data):
        self._now = self.pins.now_ms()
        self.decoder.feed(data, self._on_frame)

    def poll(self):
        now = self._now = self.pins.now_ms()
        for out_ch in list(self.stops):
            stop = self.stops.get(out_ch)
            if stop is not None:
                reason = stop.due(now)
                if reason is not None:
                    self._end(stop, reason, now)
        self.link.poll(now)
        if self.failsafe and not self.link.up and now >= self._beacon_at:
            # Down, but still saying so: a host that was only slow learns at its next
            # read that nothing it drives moves any more.
            self.link.send_now(HEARTBEAT, self._heartbeat_payload())
            self._beacon_at = now + self.link.heartbeat_ms

    def next_due(self):
        due = self.link.next_due()
        for stop in self.stops.values():
            at = stop.next_due()
            if at is not None and (due is None or at < due):
                due = at
        if self.failsafe and not self.link.up and (due is None or self._beacon_at < due):
            due = self._beacon_at
        return due

    def on_input(self, ch, value, at_ms):
        """An input changed to `value` (bytes) at board time `at_ms`: stop first, then
        tell the host."""
        level = value[0] if value else 0
        stop_now = None
        for stop in self.stops.values():
            if stop.in_ch == ch:
                stop.reached(at_ms, level == stop.level)
                if stop.due(at_ms) == 0:
                    if stop_now is None:
                        stop_now = []
                    stop_now.append(stop)
        if stop_now is not None:
            # The motor off before anything else: on a Pico, framing the INPUT report
            # takes longer than the stop itself.
            for stop in stop_now:
                self.pins.write(stop.out_ch, self.pins.outputs[stop.out_ch])
        if self.interlocks.watched(ch):
            self._trip(ch, at_ms)
        self._tell(INPUT, u32(at_ms) + bytes((ch,)) + value, at_ms)
        if stop_now is not None:
            for stop in stop_now:
                self._end(stop, 0, at_ms, drive=False)

    # -- messages ---------------------------------------------------------------------

    def _on_frame(self, seq, msg, payload):
        if msg == HELLO:
            self._hello(payload)
            return
        if msg == RESUME:
            self._resume(payload)
            return
        if msg == SAFE and self.link.up and self.link.to_come(seq) and self.link.ahead(seq):
            # A SAFE whole but ahead of a gap (a frame before it garbled): the link
            # holds it back, but a stop needs nothing before it. Act on it as on its
            # SAFE_NOW, which the noise may have taken: off now, fenced until it is in.
            self._on_message(SAFE_NOW, bytes((seq,)) + payload, self._now)
        self.link.on_frame(seq, msg, payload, self._now)
        if self.answer is not None and self._owed() is None:
            self.answer = None      # the host read the record: it is its own now

    def _owed(self):
        """How many frames the link has sent since our answer to RESUME that the host
        has not acknowledged, if the answer's own parts are among them; else None."""
        answer = self.answer
        if answer is None:
            return None
        first = self.link.unacknowledged()[0]
        end = answer[3]
        unread = self.link.pending
        answer_unread = (end - first) % 256
        if unread and 0 < answer_unread <= unread:
            return unread - answer_unread
        return None

    def _hello(self, payload):
        if not payload:
            return
        # A HELLO is a new host: whatever the last one left running stops before the
        # snapshot of the inputs, so nothing changes under the new host's first look.
        self._all_off(None)
        self.fence = {}
        self.record = None
        self.record_overflow = False
        self.answer = None
        self._welcome(payload[0], payload[1:])

    def _resume(self, payload):
        """RESUME: the host that was silent is back (version, the session it knew, its
        interlock table). Stops under way run on; the record of the silence goes first
        on the new link, then the stops still running, then life as usual. A board of
        another session (it restarted) or whose record overflowed answers as a HELLO
        does, its record flagged: it proves nothing, the host refeeds."""
        if len(payload) < 3:
            return
        same = payload[0] == self.version and get_u16(payload, 1) == self.session
        if same and self.record is None:
            # The host gave up before the board did: what it has not read is kept too.
            self.link.stop()
            self._hold(self._now)
        if not same or self.record_overflow:
            self._hello(payload[:1] + payload[3:])
            if self.link.up:
                self._send_record(RECORD_OVERFLOW if same else RECORD_FRESH,
                                  self.link.next_seq, ())
                if same:
                    self.answer = (RECORD_OVERFLOW, 0, [], self.link.next_seq)
            return
        record, first = self.record or [], self.record_first
        self.record = None
        self.fence = {}
        if not self._welcome(payload[0], payload[3:]):
            self._all_off(None)
            return
        running = [(ARM, bytes((stop.stop_id,))) for stop in self.stops.values()]
        self._send_record(0, first, record + running)
        self.answer = (0, first, record, self.link.next_seq)

    def _welcome(self, version, table):
        """WELCOME (version, heartbeat limit, interlock hash, every input), out of the
        failsafe; the link started if `version` and `table` are good."""
        good = version == self.version and self.interlocks.load(table)
        welcome = bytearray()
        welcome.append(self.version)
        welcome += u16(self.heartbeat_limit_ms)
        if self.version >= 3:
            welcome += u16(self.interlocks.hash)
        for ch in self.pins.inputs:
            value = self.pins.read(ch)
            welcome.append(ch)
            welcome.append(len(value))
            welcome += value
        self.link.send_now(WELCOME, bytes(welcome))
        # failsafe_at_ms stays: when the failsafe last tripped, for whoever asks later.
        self.failsafe = False
        if good:
            self.link.start(self._now)
        else:
            # Another protocol: say ours and stay still; the host says "reflash".
            self.link.stop()
        return good

    def _send_record(self, flags, first, entries):
        """RECORD in parts of up to MAX_PAYLOAD bytes: session, flags, the sequence
        number of the part's first numbered entry, then entries (type, length,
        payload). An ARM entry (a stop id) numbers nothing: a stop still running."""
        body = bytearray()
        for msg, data in entries:
            item = bytes((msg, len(data))) + data
            if len(body) + len(item) > MAX_PAYLOAD - RECORD_HEAD:
                self.link.send(RECORD, u16(self.session) + bytes((flags, first)) + body,
                               self._now)
                first = (first + _numbered(body)) % 256
                body = bytearray()
            body += item
        self.link.send(RECORD, u16(self.session) + bytes((flags | RECORD_LAST, first)) + body,
                       self._now)

    def _on_message(self, msg, payload, now):
        if msg == SET:
            if not payload:
                return False
            ch = payload[0]
            if not self._output(ch, "SET"):
                return True
            if self.failsafe or (ch in self.fence and payload[1:] != self.pins.outputs[ch]):
                return True
            stop = self.stops.get(ch)
            if stop is not None:
                self._end(stop, REASON_CANCELLED, now, drive=False)
            self._drive(ch, payload[1:], now)
        elif msg == SAFE:
            # The outputs it names (none named: every output) off; what comes after
            # this SAFE is the host's now: its fences are lifted.
            self._all_off(now, payload)
            for ch in list(self.fence):
                if not self.link.ahead(self.fence[ch]):
                    del self.fence[ch]
        elif msg == SAFE_NOW:
            # Ahead of the SAFE numbered in it, naming the same outputs; once that SAFE
            # is in, it says nothing.
            if not payload:
                return False
            seq = payload[0]
            if self.link.ahead(seq):
                for ch in self._all_off(now, payload[1:]):
                    old = self.fence.get(ch)
                    # Held until the later of two SAFEs still to come.
                    if old is None or self.link.to_come(seq) > self.link.to_come(old):
                        self.fence[ch] = seq
        elif msg == ARM:
            return self._arm(payload, now)
        elif msg == CANCEL:
            if len(payload) != 1:
                return False
            for stop in list(self.stops.values()):
                if stop.stop_id == payload[0]:
                    self._end(stop, REASON_CANCELLED, now)
        elif msg != HEARTBEAT:       # heartbeats only count as a sign of life
            return False
        return True

    def _output(self, ch, what):
        if ch in self.pins.outputs:
            return True
        # A board never drives an input pin: refuse the frame, say why, go on.
        why = "an input" if ch in self.pins.inputs else "not fitted"
        name = self.pins.names.get(ch) or "channel " + str(ch)
        self.link.send_now(ERROR, bytes((ch,)) + (what + " " + name + ": " + why).encode())
        return False

    def _arm(self, payload, now):
        if len(payload) != ARM_SIZE:
            return False
        out_ch = payload[1]
        if not self._output(out_ch, "ARM") or self.failsafe:
            return True
        old = self.stops.get(out_ch)
        if old is not None:
            self._end(old, REASON_CANCELLED, now, drive=False)
        stop = ArmedStop(payload[0], out_ch, payload[2], payload[3], payload[4], payload[5],
                         get_u16(payload, 6), get_u16(payload, 8), get_u32(payload, 10), now)
        # Refused, the output goes to its safe value, as a refused SET's does: the motion
        # the old stop watched must not run on with no stop at all.
        if out_ch in self.fence:    # sent before the host's last SAFE: stale
            self.pins.write(out_ch, self.pins.outputs[out_ch])
            self._stopped(stop, REASON_CANCELLED, now)
            return True
        value = bytes((stop.value,))
        blocker = self.interlocks.forbids(out_ch, stop.value, self._safe(out_ch), self._level)
        if blocker is not None:
            self.pins.write(out_ch, self.pins.outputs[out_ch])
            self._report_trip(TRIP_REFUSED, out_ch, blocker, now)
            self._stopped(stop, REASON_INTERLOCK, now)
            return True
        self.stops[out_ch] = stop
        if stop.edges == 0 and self._level(stop.in_ch) == stop.level:
            stop.reached(now, True)
        self.pins.write(out_ch, value)
        reason = stop.due(now)
        if reason is not None:
            self._end(stop, reason, now)
        return True

    # -- outputs ----------------------------------------------------------------------

    def _safe(self, ch):
        safe = self.pins.outputs[ch]
        return safe[0] if safe else 0

    def _level(self, ch):
        value = self.pins.read(ch)
        return value[0] if value else 0

    def _drive(self, ch, value, now):
        code = value[0] if len(value) == 1 else self._safe(ch) ^ 1
        if len(value) <= 1:
            blocker = self.interlocks.forbids(ch, code, self._safe(ch), self._level)
            if blocker is not None:
                self.pins.write(ch, self.pins.outputs[ch])
                self._report_trip(TRIP_REFUSED, ch, blocker, now)
                return
        self.pins.write(ch, value)

    def _trip(self, in_ch, now):
        """An input an interlock reads changed: stop every output it now forbids."""
        for out_ch in self.pins.outputs:
            safe = self.pins.outputs[out_ch]
            value = self.pins.read(out_ch)
            if len(value) != 1 or value == safe:
                continue
            blocker = self.interlocks.forbids(out_ch, value[0], safe[0], self._level)
            if blocker is None:
                continue
            stop = self.stops.get(out_ch)
            if stop is not None:
                self._end(stop, REASON_INTERLOCK, now)
            else:
                self.pins.write(out_ch, safe)
            self._report_trip(TRIP_TRIPPED, out_ch, blocker, now)

    def _report_trip(self, kind, out_ch, in_ch, now):
        self._tell(INTERLOCK, bytes((kind, out_ch, in_ch)) + u32(now)
                   + bytes((self._level(in_ch),)), now)

    def _tell(self, msg, payload, now):
        """To the host, or into the record while it is silent."""
        if self.link.up:
            self.link.send(msg, payload, now)
        elif self.record is not None:
            if len(self.record) < RECORD_MAX:
                self.record.append((msg, payload))
            else:
                self.record_overflow = True

    def _end(self, stop: ArmedStop, reason, now, drive=True):
        if self.stops.get(stop.out_ch) is stop:
            del self.stops[stop.out_ch]
        if drive:
            self.pins.write(stop.out_ch, self.pins.outputs[stop.out_ch])
        self._stopped(stop, reason, now)

    def _stopped(self, stop, reason, now):
        """STOPPED: id, reason, board time, output, watched input and its value, edges
        counted, then every one-byte input as (channel, value) at that instant."""
        self.stopped_reports += 1
        if not self.link.up and self.record is None:
            return
        out = bytearray()
        out.append(stop.stop_id)
        out.append(reason)
        out += u32(now)
        out.append(stop.out_ch)
        out.append(stop.in_ch)
        out.append(self._level(stop.in_ch))
        out.append(min(stop.seen, 255))
        for ch in self.pins.inputs:
            value = self.pins.read(ch)
            if len(value) == 1:
                out.append(ch)
                out.append(value[0])
        self._tell(STOPPED, bytes(out), now)

    def _all_off(self, now, channels=b""):
        """The outputs `channels` names (empty: every output) to their safe values; an
        armed stop on one ends as cancelled. Returns the output channels it stopped."""
        if channels:
            outs = [ch for ch in channels if ch in self.pins.outputs]
        else:
            outs = list(self.pins.outputs)
        for stop in list(self.stops.values()):
            if stop.out_ch not in outs:
                continue
            if now is None:
                del self.stops[stop.out_ch]
            else:
                self._end(stop, REASON_CANCELLED, now, drive=False)
        for ch in outs:
            self.pins.write(ch, self.pins.outputs[ch])
        return outs

    # -- the failsafe -----------------------------------------------------------------

    def _on_dead(self, reason, now):
        self._hold(now)

    def _hold(self, now):
        """The host is silent (or deaf): latched until HELLO or RESUME. A motion an
        armed stop ends runs on to that stop (a cam left between home and home would
        hold a tile nobody can place); every other output off; nothing new starts. What
        the host has not read is kept, and every edge and stop from now on."""
        first, unread = self.link.unacknowledged()
        overflow = False
        if self.answer is not None:
            later = self._owed()
            if later is not None:
                # Our answer to RESUME never reached the host (its WELCOME garbled): the
                # record is owed again, whole, with what was sent since, numbered on.
                flags, first, entries, _end = self.answer
                overflow = bool(flags & RECORD_OVERFLOW)
                unread = entries + unread[len(unread) - later:]
            self.answer = None
        self.record = unread[:RECORD_MAX]
        self.record_first = first
        self.record_overflow = overflow or len(unread) > RECORD_MAX
        self.link.stop()
        for ch in self.pins.outputs:
            value = self.pins.outputs[ch]
            if self.pins.names.get(ch) == "display":
                # The panel says why nothing moves, where the host cannot say it.
                value = LINK_LOST_CODE
            if ch not in self.stops and self.pins.read(ch) != value:
                self.pins.write(ch, value)
                # In the record as what the board drove, when: the host, replaying,
                # knows the motor was off from here (a die stops tumbling).
                self._tell(SET, u32(now) + bytes((ch,)) + value, now)
        self.failsafe = True
        self.failsafe_at_ms = now
        self.link.send_now(HEARTBEAT, self._heartbeat_payload())
        self._beacon_at = now + self.link.heartbeat_ms

    def _heartbeat_payload(self):
        # The session too (protocol 5): the host names it in RESUME after a silence.
        return bytes((FAILSAFE_FLAG if self.failsafe else 0,)) + u16(self.session)


def _numbered(body):
    """Entries in a RECORD body that carry a sequence number (all but ARM)."""
    n = 0
    at = 0
    while at < len(body):
        if body[at] != ARM:
            n += 1
        at += 2 + body[at + 1]
    return n
