# The board's end of the link: sequencing, acknowledgement, go-back-N retransmission,
# heartbeats and the silence limit, on integer milliseconds of the board's clock.
#
# No timers: the board's loop calls poll(now_ms) and asks next_due() when to call
# again, so the same code runs on a Pico (a tight loop) and on the simulator's
# virtual clock (one timer at next_due()).

from board.wire import (
    ACK,
    HEARTBEAT,
    SEQ_MOD,
    SEQUENCED,
    WINDOW,
    encode_frame,
)


def ms_after(now_ms, then_ms):
    """now - then for a clock that only grows (the pin layer unwraps ticks)."""
    return now_ms - then_ms


class LinkStats:
    def __init__(self):
        self.frames_sent = 0
        self.frames_received = 0
        self.retransmits = 0
        self.duplicates = 0
        self.out_of_order = 0
        self.malformed = 0

    def as_dict(self):
        return {"frames_sent": self.frames_sent, "frames_received": self.frames_received,
                "retransmits": self.retransmits, "duplicates": self.duplicates,
                "out_of_order": self.out_of_order, "malformed": self.malformed}


class BoardLink:
    """Reliable delivery of sequenced messages; on_dead() when the host falls silent."""

    def __init__(self, send_bytes, on_message, on_dead, heartbeat_payload,
                 retransmit_ms=30, max_retries=15, heartbeat_ms=100, silence_ms=500):
        self._send_bytes = send_bytes
        self._on_message = on_message
        self._on_dead = on_dead
        self._heartbeat_payload = heartbeat_payload
        self.retransmit_ms = retransmit_ms
        self.max_retries = max_retries
        self.heartbeat_ms = heartbeat_ms
        self.silence_ms = silence_ms
        self.stats = LinkStats()
        self.up = False
        self._next_seq = 0
        self._expected = 0
        self._unacked = []      # encoded frames, oldest first: (seq, bytes)
        self._waiting = []      # beyond the window
        self._retries = 0
        self._retransmit_at = None
        self._beat_at = None
        self._last_heard = 0

    def start(self, now_ms):
        """(Re)start with fresh sequence numbers, as both ends do at the handshake."""
        self.up = True
        self._next_seq = 0
        self._expected = 0
        self._unacked = []
        self._waiting = []
        self._retries = 0
        self._retransmit_at = None
        self._last_heard = now_ms
        self._beat(now_ms)

    def stop(self):
        self.up = False
        self._retransmit_at = None
        self._beat_at = None

    @property
    def next_seq(self):
        return self._next_seq

    def unacknowledged(self):
        """The sequence number of the oldest frame the host has not acknowledged (the
        next to send, if none), and every such frame's (type, payload), oldest first:
        what the host may never have read."""
        frames = self._unacked + self._waiting
        first = frames[0][0] if frames else self._next_seq
        return first, [(f[2], f[3]) for f in frames]

    @property
    def pending(self):
        return len(self._unacked) + len(self._waiting)

    # -- sending ----------------------------------------------------------------------

    def send(self, msg, payload, now_ms):
        if not self.up:
            return
        frame = (self._next_seq, encode_frame(self._next_seq, msg, payload), msg, payload)
        self._next_seq = (self._next_seq + 1) % SEQ_MOD
        if len(self._unacked) < WINDOW:
            self._transmit(frame, now_ms)
        else:
            self._waiting.append(frame)

    def send_now(self, msg, payload):
        self.stats.frames_sent += 1
        self._send_bytes(encode_frame(0, msg, payload))

    def _transmit(self, frame, now_ms):
        self._unacked.append(frame)
        self.stats.frames_sent += 1
        self._send_bytes(frame[1])
        if self._retransmit_at is None:
            self._retransmit_at = now_ms + self.retransmit_ms

    def _acked(self, next_expected, now_ms):
        progressed = False
        while self._unacked:
            ahead = (next_expected - self._unacked[0][0]) % SEQ_MOD
            if not 0 < ahead <= WINDOW:
                break
            self._unacked.pop(0)
            progressed = True
        if not progressed:
            return
        self._retries = 0
        self._retransmit_at = None
        while self._waiting and len(self._unacked) < WINDOW:
            self._transmit(self._waiting.pop(0), now_ms)
        if self._unacked and self._retransmit_at is None:
            self._retransmit_at = now_ms + self.retransmit_ms

    # -- receiving --------------------------------------------------------------------

    def ahead(self, seq):
        """Whether sequenced frame `seq` is still to come (not delivered yet): within
        half the sequence space ahead; a frame already in is at most a window behind."""
        return (seq - self._expected) % SEQ_MOD < SEQ_MOD // 2

    def to_come(self, seq):
        """How far ahead sequenced frame `seq` is (0: the next to be delivered)."""
        return (seq - self._expected) % SEQ_MOD

    def on_frame(self, seq, msg, payload, now_ms):
        if not self.up:
            return
        self.stats.frames_received += 1
        self._last_heard = now_ms
        if msg == ACK:
            if len(payload) != 1:
                self.stats.malformed += 1
                return
            self._acked(payload[0], now_ms)
        elif msg in SEQUENCED:
            if seq == self._expected:
                self._expected = (self._expected + 1) % SEQ_MOD
                self.send_now(ACK, bytes((self._expected,)))
                self._deliver(msg, payload, now_ms)
                return
            behind = (self._expected - seq) % SEQ_MOD
            if 0 < behind <= WINDOW:
                self.stats.duplicates += 1
            else:
                self.stats.out_of_order += 1
            self.send_now(ACK, bytes((self._expected,)))
        else:
            self._deliver(msg, payload, now_ms)

    def _deliver(self, msg, payload, now_ms):
        # A frame with a good CRC but a meaning we cannot act on: count it, drop it.
        try:
            good = self._on_message(msg, payload, now_ms)
        except (ValueError, KeyError, IndexError):
            good = False
        if not good:
            self.stats.malformed += 1

    # -- time -------------------------------------------------------------------------

    def _beat(self, now_ms):
        self.send_now(HEARTBEAT, self._heartbeat_payload())
        self._beat_at = now_ms + self.heartbeat_ms

    def next_due(self):
        """The earliest board time poll() has something to do, or None."""
        if not self.up:
            return None
        due = min(self._beat_at, self._last_heard + self.silence_ms)
        if self._retransmit_at is not None and self._retransmit_at < due:
            due = self._retransmit_at
        return due

    def poll(self, now_ms):
        if not self.up:
            return
        if self._retransmit_at is not None and now_ms >= self._retransmit_at:
            self._retransmit_at = None
            if self._unacked:
                self._retries += 1
                if self._retries > self.max_retries:
                    self.stop()
                    self._on_dead("retries", now_ms)
                    return
                for frame in self._unacked:
                    self.stats.retransmits += 1
                    self.stats.frames_sent += 1
                    self._send_bytes(frame[1])
                self._retransmit_at = now_ms + self.retransmit_ms
        if now_ms >= self._last_heard + self.silence_ms:
            self.stop()
            self._on_dead("silence", now_ms)
            return
        if now_ms >= self._beat_at:
            self._beat(now_ms)
