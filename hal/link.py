"""One end of the I/O-board link: sequencing, acknowledgement, retransmission, heartbeat.

Both the host backend and the board emulator run one `LinkEnd` inside their loop (a
reader thread only decodes frames and posts them in). Reliability is go-back-N:
sequenced frames carry a number, the receiver delivers only the next one in order
and always answers ACK(next expected); the sender keeps up to `WINDOW` frames
unacknowledged and, when the oldest is not acknowledged in `retransmit_s`, sends
them all again. Silence longer than `silence_s` (no valid frame of any kind) or a
frame still unacknowledged after `max_retries` retransmissions ends the link.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hal.protocol import (
    SEQ_MOD,
    SEQUENCED,
    WINDOW,
    Frame,
    Msg,
    ProtocolError,
    decode_ack,
    encode_ack,
)
from mjtable_core.clock import Clock, Timer

OnMessage = Callable[[int, bytes], None]
OnDead = Callable[[str, dict[str, Any]], None]


@dataclass
class LinkStats:
    frames_sent: int = 0
    frames_received: int = 0
    retransmits: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    malformed: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, int]:
        return {"frames_sent": self.frames_sent, "frames_received": self.frames_received,
                "retransmits": self.retransmits, "duplicates": self.duplicates,
                "out_of_order": self.out_of_order, "malformed": self.malformed, **self.extra}


class LinkEnd:
    """Reliable delivery of sequenced messages over a lossy byte stream."""

    def __init__(self, clock: Clock, send_bytes: Callable[[bytes], None], *,
                 on_message: OnMessage, on_dead: OnDead, retransmit_s: float,
                 max_retries: int, heartbeat_s: float, silence_s: float,
                 heartbeat_payload: Callable[[], bytes] = lambda: b"",
                 before_resend: Callable[[], None] | None = None) -> None:
        self.clock = clock
        self._send_bytes = send_bytes
        self._on_message = on_message
        self._on_dead = on_dead
        self.retransmit_s = retransmit_s
        self.max_retries = max_retries
        self.heartbeat_s = heartbeat_s
        self.silence_s = silence_s
        self._heartbeat_payload = heartbeat_payload
        self._before_resend = before_resend     # called ahead of each go-back-N burst
        self.stats = LinkStats()
        self.up = False
        self._next_seq = 0
        self._expected = 0
        self._unacked: deque[Frame] = deque()
        self._waiting: deque[Frame] = deque()   # beyond the window
        self._retries = 0
        self._retransmit: Timer | None = None
        self._heartbeat: Timer | None = None
        self._silence: Timer | None = None
        self._last_heard = 0.0

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        """(Re)start with fresh sequence numbers, as both ends do at the handshake."""
        self.stop()
        self.up = True
        self._next_seq = self._expected = 0
        self._unacked.clear()
        self._waiting.clear()
        self._retries = 0
        self._last_heard = self.clock.now()
        self._arm_silence()
        self._beat()

    def stop(self) -> None:
        self.up = False
        for timer in (self._retransmit, self._heartbeat, self._silence):
            if timer is not None:
                timer.cancel()
        self._retransmit = self._heartbeat = self._silence = None

    def rewrite_pending(self, rewrite: Callable[[Frame], Frame]) -> None:
        """Put `rewrite(frame)` in place of every frame not yet acknowledged, same
        number: what is resent from now on. The other end never delivered these (a
        copy it has is a duplicate it drops), so a command a stop made stale can be
        turned harmless before it is resent."""
        self._unacked = deque(rewrite(f) for f in self._unacked)
        self._waiting = deque(rewrite(f) for f in self._waiting)

    def pending_frames(self, msg: Msg) -> list[Frame]:
        """The sequenced `msg` frames not yet acknowledged, oldest first."""
        return [f for f in (*self._unacked, *self._waiting) if f.type == msg]

    @property
    def next_seq(self) -> int:
        """The number the next sequenced message will carry."""
        return self._next_seq

    @property
    def expected(self) -> int:
        """The number of the next sequenced frame this end will deliver."""
        return self._expected

    @property
    def last_heard(self) -> float:
        """When the last valid frame of any kind came from the other end."""
        return self._last_heard

    @property
    def pending(self) -> int:
        """Sequenced frames not yet acknowledged (sent or waiting for the window)."""
        return len(self._unacked) + len(self._waiting)

    # -- sending ----------------------------------------------------------------------

    def send(self, msg: Msg, payload: bytes = b"") -> None:
        """Queue a sequenced message; it is delivered once, in order, or the link dies."""
        if not self.up:
            return
        frame = Frame(self._next_seq, msg, payload)
        self._next_seq = (self._next_seq + 1) % SEQ_MOD
        if len(self._unacked) < WINDOW:
            self._transmit(frame)
        else:
            self._waiting.append(frame)

    def send_now(self, msg: Msg, payload: bytes = b"") -> None:
        """An unsequenced message (HELLO, WELCOME, ACK, HEARTBEAT): sent once."""
        self.stats.frames_sent += 1
        self._send_bytes(Frame(0, msg, payload).encode())

    def _transmit(self, frame: Frame) -> None:
        self._unacked.append(frame)
        self.stats.frames_sent += 1
        self._send_bytes(frame.encode())
        if self._retransmit is None:
            self._retransmit = self.clock.call_later(self.retransmit_s, self._timeout)

    def _timeout(self) -> None:
        self._retransmit = None
        if not self.up or not self._unacked:
            return
        self._retries += 1
        if self._retries > self.max_retries:
            oldest = self._unacked[0]
            self._die("retries", {"unacknowledged": len(self._unacked),
                                  "oldest_seq": oldest.seq, "oldest_type": Msg(oldest.type).name,
                                  "retries": self.max_retries})
            return
        if self._before_resend is not None:
            self._before_resend()
        for frame in self._unacked:       # go-back-N: everything after the gap again
            self.stats.retransmits += 1
            self.stats.frames_sent += 1
            self._send_bytes(frame.encode())
        self._retransmit = self.clock.call_later(self.retransmit_s, self._timeout)

    def _acked(self, next_expected: int) -> None:
        progressed = False
        while self._unacked:
            ahead = (next_expected - self._unacked[0].seq) % SEQ_MOD
            if not 0 < ahead <= WINDOW:
                break
            self._unacked.popleft()
            progressed = True
        if not progressed:
            return
        self._retries = 0
        if self._retransmit is not None:
            self._retransmit.cancel()
            self._retransmit = None
        while self._waiting and len(self._unacked) < WINDOW:
            self._transmit(self._waiting.popleft())
        if self._unacked and self._retransmit is None:
            self._retransmit = self.clock.call_later(self.retransmit_s, self._timeout)

    # -- receiving --------------------------------------------------------------------

    def on_frame(self, frame: Frame) -> None:
        """A frame that passed its CRC, handed in by the loop."""
        if not self.up:
            return
        self.stats.frames_received += 1
        self._last_heard = self.clock.now()
        try:
            if frame.type == Msg.ACK:
                self._acked(decode_ack(frame.payload))
            elif frame.type in SEQUENCED:
                self._receive_sequenced(frame)
            else:
                self._on_message(frame.type, frame.payload)
        except (ProtocolError, ValueError):
            # A frame with a good CRC but a meaning we do not know: count it, drop it.
            self.stats.malformed += 1

    def _receive_sequenced(self, frame: Frame) -> None:
        if frame.seq == self._expected:
            self._expected = (self._expected + 1) % SEQ_MOD
            self.send_now(Msg.ACK, encode_ack(self._expected))
            self._on_message(frame.type, frame.payload)
            return
        behind = (self._expected - frame.seq) % SEQ_MOD
        if 0 < behind <= WINDOW:
            self.stats.duplicates += 1      # our ACK was lost: say again where we are
        else:
            self.stats.out_of_order += 1    # one before it was lost: wait for go-back-N
        self.send_now(Msg.ACK, encode_ack(self._expected))

    # -- liveness ---------------------------------------------------------------------

    def _beat(self) -> None:
        self._heartbeat = None
        if not self.up:
            return
        self.send_now(Msg.HEARTBEAT, self._heartbeat_payload())
        self._heartbeat = self.clock.call_later(self.heartbeat_s, self._beat)

    def _arm_silence(self) -> None:
        deadline = self._last_heard + self.silence_s
        self._silence = self.clock.call_at(deadline, self._check_silence)

    def _check_silence(self) -> None:
        self._silence = None
        if not self.up:
            return
        # The same sum as the deadline it was armed for: a difference could round below.
        if self.clock.now() >= self._last_heard + self.silence_s:
            self._die("silence", {"silent_s": round(self.clock.now() - self._last_heard, 3),
                                  "limit_s": self.silence_s})
        else:
            self._arm_silence()

    def _die(self, reason: str, evidence: dict[str, Any]) -> None:
        self.stop()
        self._on_dead(reason, evidence)
