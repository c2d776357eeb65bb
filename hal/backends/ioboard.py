"""HAL backend for an I/O board (MCU) on a serial line.

The board owns the pins; this backend speaks the protocol of docs/protocol.md to it
with pyserial (`serial_for_url`, so `/dev/serial0`, `socket://host:port` and
`spy://...` tracing all work). At connect it shakes hands (same protocol version,
the board's heartbeat limit and every input's value); after that a reader thread only
decodes frames and posts them into the firmware's loop with `clock.post`. Link trouble
is reported through `on_link_fault(fault_id, evidence)`, which whoever wires the
controller sets to its fault path.
"""

from __future__ import annotations

import contextlib
import random
import socket
import sys
import threading
from collections.abc import Callable, Collection, Mapping
from typing import Any

from hal.armed import REASONS, Capabilities, OnStopped, StopReport, StopSpec
from hal.boardtime import BoardTime
from hal.interface import HalError, Listener, OpenedHal
from hal.interlocks import interlock_table
from hal.link import LinkEnd
from hal.protocol import (
    CHANNEL_OF,
    CHANNELS,
    RECORD_FRESH,
    RECORD_OVERFLOW,
    VERSION,
    Decoder,
    Frame,
    Msg,
    ProtocolError,
    Stopped,
    Trip,
    Welcome,
    decode_heartbeat,
    decode_input,
    decode_interlock,
    decode_record,
    decode_stopped,
    decode_value,
    decode_welcome,
    encode_arm,
    encode_hello,
    encode_outputs,
    encode_resume,
    encode_signal,
    heartbeat_session,
    interlock_hash,
)
from mjtable_core.clock import Clock
from mjtable_core.config import Config, IoboardSection
from mjtable_core.i18n import _
from mjtable_core.signals import Kind, Signal, Value

OnLinkFault = Callable[[str, dict[str, Any]], None]
OnLinkBack = Callable[[], None]
OnLinkResumed = Callable[[dict[str, Any]], None]
READ_TIMEOUT_S = 0.05       # how often the reader thread looks at its stop flag
HELLO_EVERY_S = 0.25        # resend HELLO while the board does not answer
# A frame the reader thread decoded waits for the GIL while the loop runs Python: up
# to the interpreter's switch interval, 5 ms by default. A cam's home window is a few
# ms of motion (less on a table run at --speed), so the wait is kept well below it.
GIL_SWITCH_S = 0.0005


class LinkError(HalError):
    """The board cannot be used; `fault_id` is `link.lost` or `link.version`."""

    def __init__(self, fault_id: str, message: str, evidence: dict[str, Any]) -> None:
        super().__init__(message)
        self.fault_id = fault_id
        self.evidence = evidence


def open_port(url: str, baud: int, source: str = "") -> Any:
    """A pyserial port for a device path or URL, with the reader's timeout.

    `source` is the config file that named the port, for the error message."""
    import serial

    try:
        # exclusive: a flock on the device, so a second daemon cannot drive the same
        # board (pyserial ignores it for socket:// and other URLs).
        port = serial.serial_for_url(url, baudrate=baud, timeout=READ_TIMEOUT_S,
                                     write_timeout=1.0, exclusive=True)
    except (serial.SerialException, ValueError) as exc:
        where = f"{source}: [ioboard] port" if source else "[ioboard] port"
        raise LinkError("link.lost", _("{where}: cannot open the I/O board's port {url!r} "
                                       "({error}); check that key, the cable and that this "
                                       "user is in group dialout").format(
                                           where=where, url=url, error=exc),
                        {"port": url}) from None
    sock = getattr(port, "_socket", None)
    if sock is not None:
        # pyserial's socket:// leaves Nagle on: every small frame would wait for the
        # peer's delayed ACK (tens of ms). A serial line has no such delay.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return port


class IoBoardHal:
    """The table's signals as channels of an I/O board on a serial line."""

    @classmethod
    def from_config(cls, config: Config, clock: Clock, **kwargs: Any) -> IoBoardHal:
        """The backend for a table's config: its signals and its `[ioboard]` only."""
        return cls(config.ioboard, config.signals(), clock, config.source, **kwargs)

    def __init__(self, settings: IoboardSection, signals: Mapping[str, Signal], clock: Clock,
                 source: str = "<config>", port: Any | None = None) -> None:
        """`settings` is the `[ioboard]` section of config file `source`; `port` stands
        in for the serial line."""
        self.source = source
        self.clock = clock
        self.settings = settings
        self.signals: dict[str, Signal] = dict(signals)
        self.values: dict[str, Value] = {
            s.name: s.rest_value for s in self.signals.values()}
        self.on_link_fault: OnLinkFault | None = None
        # Called in the loop when a lost link is back (a new handshake answered).
        self.on_link_back: OnLinkBack | None = None
        # Called in the loop when a board gone silent carried on from its record
        # (RESUME): no fault, nothing lost; for the event log.
        self.on_link_resumed: OnLinkResumed | None = None
        self.session: int | None = None     # the board's power-up, from its RECORD
        # Between the board going silent and its record read: the host's picture of
        # every output and armed stop is kept, nothing reported yet.
        self._resuming: dict[str, Any] | None = None
        self._record: list[tuple[int, int, bytes]] = []
        self._held: dict[str, Value] = {}   # outputs the board held off: what we meant
        self._held_at: float | None = None  # when the board's hold began (our clock)
        self._welcome_info: Welcome | None = None   # the board's answer to RESUME
        self.resumes = 0                    # silences carried on from the record
        self.board_failsafe = False
        self.heartbeat_limit_s: float | None = None
        self._listener: Listener | None = None
        self._port = port if port is not None else open_port(self.settings.port,
                                                             self.settings.baud, source)
        self.port_name = str(getattr(self._port, "port", None) or self.settings.port)
        self._decoder = Decoder()
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None
        self._lost = False
        self._relink: Any = None        # the timer that says HELLO again while lost
        self._version_said = False      # link.version raised for the board answering now
        self._board_time = BoardTime()
        self._changed_at: dict[str, float] = {}
        # Declared to the board at connect; it enforces them without us (protocol 3).
        self.interlocks = interlock_table(self.signals)
        self.trips: list[Trip] = []
        # Outputs the board stopped by itself on an input's change whose INPUT report
        # is still to come (the board reports the trips first): `cut_by`.
        self._cut: dict[str, list[str]] = {}
        self._armed: dict[int, tuple[StopSpec, OnStopped]] = {}
        # The arming each output runs under now: a STOPPED for an older one (late
        # behind the next arm's frame, or a SET since) says nothing of the output.
        self._current: dict[str, int] = {}
        self._next_stop_id = 0
        self.link = LinkEnd(clock, self._send_bytes, on_message=self._on_message,
                            on_dead=self._on_dead, retransmit_s=self.settings.retransmit_s,
                            max_retries=self.settings.max_retries,
                            heartbeat_s=self.settings.heartbeat_s,
                            silence_s=self.settings.link_timeout_s,
                            before_resend=self._fence_again)

    # -- connect ----------------------------------------------------------------------

    def connect(self) -> None:
        """Handshake, then start the reader. Raises LinkError (link.lost/link.version).

        Runs before the loop serves anything, so it may block on the port; the wait is
        an I/O timeout of the link, counted in reads, not a read of the clock.
        """
        port = self.port_name
        # The version alone first: a board of another protocol answers that with its
        # own version (E81), where a longer HELLO might be dropped as malformed.
        info, early = self._hello(encode_hello(VERSION))
        if info.version == VERSION and self.interlocks:
            info, early = self._hello(encode_hello(VERSION, self.interlocks))
            if info.version == VERSION and info.interlock_hash != interlock_hash(
                    self.interlocks):
                evidence = {"port": port, "board_hash": info.interlock_hash,
                            "host_hash": interlock_hash(self.interlocks)}
                if self.on_link_fault is not None:
                    self.on_link_fault("link.version", evidence)
                raise LinkError("link.version", "E81 link.version: " + _(
                    "the I/O board on {port} did not take this firmware's interlock "
                    "table; reflash the board with the matching firmware").format(
                        port=port), evidence)
        if info.version != VERSION:
            evidence = {"port": port, "board_version": info.version, "host_version": VERSION}
            if self.on_link_fault is not None:
                self.on_link_fault("link.version", evidence)
            raise LinkError("link.version", "E81 link.version: " + _(
                "the I/O board on {port} speaks protocol {board}, this firmware speaks "
                "{host}; reflash the board with the matching firmware").format(
                    port=port, board=info.version, host=VERSION), evidence)
        self.heartbeat_limit_s = info.heartbeat_limit_s
        self._check_heartbeat(info.heartbeat_limit_s)
        self._board_time.reset()
        for name, value in info.inputs.items():
            if name in self.values:
                self.values[name] = value
        self.link.start()
        for frame in early:
            self.clock.post(lambda f=frame: self._on_frame(f))
        self._reader = threading.Thread(target=self._read_loop, name="ioboard-reader",
                                        daemon=True)
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_S))
        self._reader.start()

    def wait_for_board(self, evidence: Mapping[str, Any]) -> None:
        """The board did not answer at connect (`evidence` from that LinkError): go on
        with link.lost raised, so the fault is shown, and say HELLO until the board
        answers; its WELCOME finishes the connect. Call it in the loop, once the
        controller is started."""
        self._reader = threading.Thread(target=self._read_loop, name="ioboard-reader",
                                        daemon=True)
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_S))
        self._reader.start()
        self._on_dead("silence", dict(evidence))

    def _hello(self, payload: bytes) -> tuple[Welcome, list[Frame]]:
        """Send HELLO until WELCOME comes: the board's answer and the frames after it.
        Raises LinkError when it never comes or cannot be read."""
        early: list[Frame] = []
        welcome = None
        # Only a read that times out takes READ_TIMEOUT_S; reads that bring bytes
        # (one byte each on socket://) do not count towards the wait.
        quiet_per_hello = max(1, round(HELLO_EVERY_S / READ_TIMEOUT_S))
        attempts = max(1, round(self.settings.connect_timeout_s / HELLO_EVERY_S))
        for _attempt in range(attempts):
            self._send_bytes(Frame(0, Msg.HELLO, payload).encode())
            quiet = 0
            while welcome is None and quiet < quiet_per_hello:
                data = self._read()
                quiet += not data
                for frame in self._decoder.feed(data):
                    if welcome is None and frame.type == Msg.WELCOME:
                        welcome = frame
                    elif welcome is not None:
                        early.append(frame)     # the board's first heartbeat, say
            if welcome is not None:
                break
        port = self.port_name
        if welcome is None:
            raise LinkError("link.lost", "E80 link.lost: " + _(
                "the I/O board on {port} did not answer within {seconds} s; check the "
                "cable, the board's power and [ioboard] port/baud").format(
                    port=port, seconds=self.settings.connect_timeout_s),
                            {"port": port, "waited_s": self.settings.connect_timeout_s})
        try:
            return decode_welcome(welcome.payload), early
        except ProtocolError as exc:
            raise LinkError("link.version", "E81 link.version: " + _(
                "the I/O board on {port} answered with a handshake this firmware cannot "
                "read ({error}); reflash the board").format(port=port, error=exc),
                {"port": port}) from None

    def _check_heartbeat(self, limit_s: float) -> None:
        """Our heartbeat must beat the board's failsafe with room for one lost beat;
        otherwise the board turns every output off moments after a clean start."""
        beat = self.settings.heartbeat_s
        if 2 * beat > limit_s:
            raise HalError(_("{source}: [ioboard] heartbeat_s: {beat} s is too slow for the "
                             "I/O board on {port}, whose failsafe turns every output off "
                             "after {limit:g} s without a frame (announced at the handshake); "
                             "set heartbeat_s to at most {most:g}").format(
                                 source=self.source, beat=beat, port=self.port_name,
                                 limit=limit_s, most=limit_s / 2))

    # -- the port ---------------------------------------------------------------------

    def _read(self) -> bytes:
        import serial

        try:
            data = self._port.read(max(1, self._port.in_waiting))
            # socket:// reports one byte waiting at a time: take what is there in one go.
            while data and len(data) < 4096 and self._port.in_waiting:
                data += self._port.read(self._port.in_waiting)
            return data
        except (serial.SerialException, OSError, TypeError):
            # TypeError: pyserial's pty/socket read after the other end vanished.
            return b""

    def _send_bytes(self, data: bytes) -> None:
        # A dead port shows up as silence from the board, which raises link.lost.
        with contextlib.suppress(Exception), self._write_lock:
            self._port.write(data)

    def _read_loop(self) -> None:
        while not self._stop.is_set():
            data = self._read()
            if not data:
                continue
            for frame in self._decoder.feed(data):
                self.clock.post(lambda f=frame: self._on_frame(f))

    def _on_frame(self, frame: Frame) -> None:
        """A frame from the board, in the loop: the link's while it is up; while it is
        lost, only the WELCOME that answers our HELLO counts."""
        if not self._lost:
            self.link.on_frame(frame)
        elif frame.type == Msg.WELCOME and self._relink is not None:
            self._welcome_back(frame)

    # -- messages from the board (in the loop) -----------------------------------------

    def _on_message(self, msg: int, payload: bytes) -> None:
        if msg == Msg.INPUT:
            name, value, stamp_ms = decode_input(payload)
            if name not in self.values or self.signals[name].is_output:
                raise ProtocolError(f"board reported {name}, which is not an input here")
            # A tile reader's every read is news, the same code again too (its silence
            # would say "the same tile as the last one"); other inputs only change.
            if self.values[name] == value and self.signals[name].kind is not Kind.READER:
                self._cut.pop(name, None)
                return
            self.values[name] = value
            self._changed_at[name] = self._board_time.at(stamp_ms, self.clock.now())
            try:
                if self._listener is not None:
                    self._listener(name, value)
            finally:
                # Told with this change only: the next one cuts afresh, or nothing.
                self._cut.pop(name, None)
        elif msg == Msg.INTERLOCK:
            trip = decode_interlock(payload)
            # The board refused or stopped the output by itself: it is off now.
            self.values[trip.output] = self.signals[trip.output].safe_value
            self.trips.append(trip)
            if trip.tripped:
                self._cut.setdefault(trip.input, []).append(trip.output)
        elif msg == Msg.STOPPED:
            self._stopped(decode_stopped(payload))
        elif msg == Msg.RECORD:
            self._on_record(payload)
        elif msg == Msg.HEARTBEAT:
            self.board_failsafe = decode_heartbeat(payload)
            if not self.board_failsafe:
                # The board's power-up we would RESUME with after a silence.
                self.session = heartbeat_session(payload)
            if self.board_failsafe:
                # The board heard nothing from us for its limit (a stalled host) and
                # turned every output off; it ignores commands until the next HELLO.
                # Nothing we drive moves any more: that is a lost link, not a jam.
                self._on_dead("board failsafe", {"board_failsafe": True})

    def _on_dead(self, reason: str, evidence: dict[str, Any]) -> None:
        if self._lost:
            return
        self._lost = True
        self.link.stop()
        if (self.session is not None and self._reader is not None
                and self.settings.resume_within_s > 0):
            # Silent, not gone yet: a host that stalled (the board held on and kept a
            # record) or a cable back within moments. Nothing we believe is dropped
            # until RESUME is answered, or not within the limit.
            self._resuming = {"reason": reason, **evidence,
                              "expected": self.link.expected, "since": self.clock.now()}
            self._record = []
            self._resume_limit = self.clock.call_later(self.settings.resume_within_s,
                                                       self._give_up)
        else:
            self._lost_now(reason, evidence)
        if self._reader is not None:
            self._say_hello()

    def _lost_now(self, reason: str, evidence: dict[str, Any]) -> None:
        """The link is lost for the controller: every output and stop forgotten (the
        board's failsafe stopped them), link.lost raised."""
        self._armed.clear()         # the board's failsafe stopped them; nothing will report
        self._current.clear()
        for signal in self.signals.values():
            if signal.is_output:
                self.values[signal.name] = signal.safe_value
        evidence = {"port": self.port_name, "reason": reason, **evidence,
                    "board_turns_outputs_off_after_s": self.heartbeat_limit_s}
        if self.on_link_fault is not None:
            self.on_link_fault("link.lost", evidence)

    def _give_up(self, why: str = "no answer to RESUME") -> None:
        """RESUME not answered in time (or its record proves nothing): the link is lost
        as before, and the board is asked with HELLO from now on."""
        resuming = self._resuming
        if resuming is None or self._stop.is_set():
            return                  # not resuming, or this host is gone (power cut)
        self._resuming = None
        self._record = []
        self._resume_limit.cancel()
        evidence = {k: v for k, v in resuming.items() if k not in ("expected", "since")}
        self._lost_now(evidence.pop("reason"), {**evidence, "resume": why})

    # -- a lost link coming back (in the loop) ------------------------------------------

    def _say_hello(self) -> None:
        """While the link is lost, HELLO again and again: the cable put back (or the
        board powered again) answers with WELCOME, and the link is up again."""
        self._relink = None
        if not self._lost or self._stop.is_set():
            return
        if self._resuming is not None and self.session is not None:
            frame = Frame(0, Msg.RESUME, encode_resume(self.session, self.interlocks))
        else:
            frame = Frame(0, Msg.HELLO, encode_hello(VERSION, self.interlocks))
        self._send_bytes(frame.encode())
        self._relink = self.clock.call_later(HELLO_EVERY_S, self._say_hello)

    def _welcome_back(self, frame: Frame) -> None:
        try:
            info = decode_welcome(frame.payload)
        except ProtocolError:
            return                  # garbled or foreign: the next HELLO asks again
        if info.version != VERSION or (
                self.interlocks and info.interlock_hash != interlock_hash(self.interlocks)):
            # Another board on the cable now (or this one flashed with other firmware):
            # no link we can take back. Said once; HELLO goes on, so the board
            # reflashed answers and the link comes back by itself.
            self._give_up("another protocol")
            if not self._version_said and self.on_link_fault is not None:
                self._version_said = True
                self.on_link_fault("link.version", {
                    "port": self.port_name, "board_version": info.version,
                    "host_version": VERSION, "message": _(
                        "the I/O board on {port} speaks protocol {board}, this firmware "
                        "speaks {host}; reflash the board with the matching "
                        "firmware").format(port=self.port_name, board=info.version,
                                           host=VERSION)})
            return
        self._relink.cancel()
        self._relink = None
        self._version_said = False
        try:
            self._check_heartbeat(info.heartbeat_limit_s)
        except HalError as exc:
            # A board that would fail safe moments after each start: no link to take.
            if self.on_link_fault is not None:
                self.on_link_fault("link.version", {"port": self.port_name,
                                                    "problem": str(exc)})
            return
        self.heartbeat_limit_s = info.heartbeat_limit_s
        self.board_failsafe = False
        if self._resuming is not None:
            # Our picture stays as it was: the record, first on the link, moves it on.
            self._welcome_info = info
            self._lost = False
            self.link.start()
            return
        self._board_time.reset()
        self._changed_at.clear()
        self._cut.clear()
        for name, value in info.inputs.items():
            if name in self.values:
                self.values[name] = value
        # The board's HELLO turned every output off: so do our copies of them.
        self._current.clear()
        for signal in self.signals.values():
            if signal.is_output:
                self.values[signal.name] = signal.safe_value
        self._lost = False
        self.link.start()
        if self.on_link_back is not None:
            self.on_link_back()

    def _on_record(self, payload: bytes) -> None:
        """A RECORD, after RESUME: what happened while we were silent, in parts."""
        part = decode_record(payload)
        if self._resuming is None:
            return
        self._record.extend(part.entries)
        if not part.last:
            return
        resuming = self._resuming
        if part.flags & (RECORD_FRESH | RECORD_OVERFLOW) or part.session != self.session:
            why = "board restarted" if part.flags & RECORD_FRESH else "record overflowed"
            self.session = part.session
            info = self._welcome_info
            assert info is not None     # RECORD comes after the WELCOME that set it
            self._give_up(why)
            # The board answered as to a HELLO: take its inputs, then back as after
            # any lost link (a set being built is held for a refeed).
            self._board_time.reset()
            self._changed_at.clear()
            self._cut.clear()
            for name, value in info.inputs.items():
                if name in self.values:
                    self.values[name] = value
            if self.on_link_back is not None:
                self.on_link_back()
            return
        self._resuming = None
        self._resume_limit.cancel()
        record, self._record = self._record, []
        expected = resuming["expected"]
        replayed = 0
        self._held = {}
        self._held_at = None
        # The motions armed before the silence: what the replay arms anew (a lid's stop
        # replayed starts the raise) runs on the new link and is no business of ours.
        before = dict(self._current)
        for seq, msg, data in record:
            if (seq - expected) % 256 >= 128:
                continue            # read before we went silent
            replayed += 1
            if msg == Msg.SET:
                self._held_off(data)
            else:
                self._on_message(msg, data)
        self._carry_on(before, set(part.running))
        self.resumes += 1
        if self.on_link_resumed is not None:
            # How long the board held (its failsafe's stamp): every motor stood.
            held_s = 0.0 if self._held_at is None else self.clock.now() - self._held_at
            self.on_link_resumed({"reason": resuming["reason"], "replayed": replayed,
                                  "silent_s": round(self.clock.now() - resuming["since"], 3),
                                  "held_s": round(max(0.0, held_s), 3)})

    def _held_off(self, data: bytes) -> None:
        """An output the board drove itself at its hold (off; the display E80): so it
        reads from there on in the replay; what we meant it to be is driven again."""
        name, value, stamp = decode_input(data)
        at = self._board_time.at(stamp, self.clock.now())
        self._held_at = at if self._held_at is None else min(self._held_at, at)
        if name in self.values and self.signals[name].is_output:
            self._held.setdefault(name, self.values[name])
            self.values[name] = value

    def _carry_on(self, before: dict[str, int], running: set[int]) -> None:
        """After the record: what we drive and the board stopped while we were silent
        is driven again. An armed motion of `before` that the board neither runs nor
        reported stopped never reached it (armed while it held: it ignores ARM then):
        the motor never turned, so it is armed again as it was, whole. One the replay
        ended or armed anew is left as it is."""
        for name, stop_id in before.items():
            if stop_id in running or self._current.get(name) != stop_id:
                continue
            armed = self._armed.pop(stop_id, None)
            del self._current[name]
            if armed is not None:
                self.arm(*armed)
        held, self._held = self._held, {}
        self.values.update(held)
        for signal in self.signals.values():
            name = signal.name
            if (signal.is_output and name not in self._current
                    and self.values[name] != signal.safe_value):
                self.link.send(Msg.SET, encode_signal(name, self.values[name]))

    def _stopped(self, stopped: Stopped) -> None:
        """The board stopped an armed motion: when (its stamp on our clock) and why."""
        if self._current.get(stopped.output) == stopped.stop_id:
            # Only the arming the output runs under: one re-armed since runs on.
            del self._current[stopped.output]
            self.values[stopped.output] = self.signals[stopped.output].safe_value
        armed = self._armed.pop(stopped.stop_id, None)
        if armed is None:
            return
        spec, on_stopped = armed
        inputs = {}
        for name, code in stopped.inputs.items():
            if name in self.values:
                with contextlib.suppress(ProtocolError):
                    inputs[name] = decode_value(name, bytes((code,)))
        at = self._board_time.at(stopped.board_ms, self.clock.now())
        on_stopped(StopReport(spec, REASONS[stopped.reason], at, inputs))

    # -- Hal --------------------------------------------------------------------------

    # The board stops armed motions, stamps input changes, keeps its own interlocks,
    # and its link can be lost.
    capabilities = Capabilities(armed_stops=True, board_time=True, link=True,
                                interlocks=True)

    def arm(self, spec: StopSpec, on_stopped: OnStopped) -> None:
        stop_id = self._next_stop_id
        self._next_stop_id = (stop_id + 1) % 256
        self._armed[stop_id] = (spec, on_stopped)
        self._current[spec.output] = stop_id
        self.values[spec.output] = spec.value
        self.link.send(Msg.ARM, encode_arm(
            stop_id, spec.output, spec.value, spec.input, spec.level, edges=spec.edges,
            blank_ms=round(spec.blank_s * 1000), confirm_ms=round(spec.confirm_s * 1000),
            max_ms=round(spec.max_s * 1000)))

    def cancel(self, output: str) -> None:
        for stop_id, (spec, _cb) in list(self._armed.items()):
            if spec.output == output:
                self.link.send(Msg.CANCEL, bytes((stop_id,)))
        self._current.pop(output, None)
        self.values[output] = self.signals[output].safe_value

    def write(self, name: str, value: Value) -> None:
        signal = self.signals.get(name)
        if signal is None or not signal.is_output:
            raise KeyError(f"not an output: {name}")
        self._current.pop(name, None)   # a SET ends the board's armed stop on it
        self._held.pop(name, None)      # decided again since the board's hold
        self.values[name] = value
        self.link.send(Msg.SET, encode_signal(name, value))

    def read(self, name: str) -> Value:
        return self.values[name]

    def link_in_doubt(self) -> bool:
        """Lost, or the board silent for over half the link's timeout: an edge it
        stamped may still be on the cable, so a missing one proves nothing yet."""
        return self._lost or (self.link.up and self.clock.now() - self.link.last_heard
                              > self.settings.link_timeout_s / 2)

    @property
    def link_lost(self) -> bool:
        """The link was declared lost; it stays lost until the board answers a HELLO.
        Silent while RESUME may still be answered is not lost yet: in doubt."""
        return self._lost and self._resuming is None

    def changed_at(self, name: str) -> float | None:
        """When input `name` last changed, by the board's stamp (for the listener)."""
        return self._changed_at.get(name)

    def cut_by(self, name: str) -> list[str]:
        """The outputs the board's interlock stopped by itself on the change of input
        `name` being delivered now (for the listener): they ran when it changed, though
        they read off already, the board's report of them coming first."""
        return list(self._cut.get(name, ()))

    def listen(self, listener: Listener) -> None:
        self._listener = listener

    def safe_state(self, outputs: Collection[str] | None = None) -> None:
        """Every output safe here and on the board (one SAFE message), or only
        `outputs` (a scope's stop: a SAFE naming them), fenced alike. Never raises."""
        if outputs is None:
            names = [s.name for s in self.signals.values() if s.made_safe]
            payload = b""           # every output
        else:
            names = [name for name in outputs if self.signals[name].is_output]
            payload = encode_outputs(names)
        for name in names:
            self.values[name] = self.signals[name].safe_value
            self._current.pop(name, None)
        with contextlib.suppress(Exception):
            self._disarm_pending({CHANNEL_OF[name] for name in names
                                  if self.signals[name].is_motor})
            if self.link.up:
                # Ahead of the SAFE, which waits its turn behind frames still being
                # retransmitted (a command sent before the stop, late for noise): the
                # board stops now and takes nothing before that SAFE as current. A
                # scope's stop is fenced the same way: a SET of the build's sent just
                # before head.jam ran a conveyor on after it.
                self.link.send_now(Msg.SAFE_NOW, bytes((self.link.next_seq,)) + payload)
            self.link.send(Msg.SAFE, payload)

    def _disarm_pending(self, motors: set[int]) -> None:
        """Frames not yet acknowledged that would start a motor of `motors` are resent
        harmless: a SET as the safe value, an ARM as a CANCEL of it. The fence needs
        its SAFE_NOW to get through before them, which a noisy cable (bit-error rate
        0.01: most frames of 15 bytes garbled) does not promise; their resends from
        here do not start it whatever gets through first."""
        def harmless(frame: Frame) -> Frame:
            if frame.type == Msg.SET and frame.payload and frame.payload[0] in motors:
                name = CHANNELS[frame.payload[0]]
                return Frame(frame.seq, Msg.SET,
                             encode_signal(name, self.signals[name].safe_value))
            if frame.type == Msg.ARM and len(frame.payload) > 1 and frame.payload[1] in motors:
                return Frame(frame.seq, Msg.CANCEL, frame.payload[:1])
            return frame
        self.link.rewrite_pending(harmless)

    def _fence_again(self) -> None:
        """A SAFE still on its way (a noisy cable): SAFE_NOW ahead of each resend, so
        one of them gets through and stops what it names before the SAFE does."""
        for frame in self.link.pending_frames(Msg.SAFE):
            # The board ignores it once that SAFE is in.
            self.link.send_now(Msg.SAFE_NOW, bytes((frame.seq,)) + frame.payload)

    def entropy(self) -> tuple[random.Random, str]:
        return random.SystemRandom(), "electronic"

    def close(self) -> None:
        """Every output safe, stop the reader, release the port."""
        # SAFE goes out now unless the window is full; should it be lost, the board's
        # own heartbeat failsafe turns every output off within its limit.
        self.safe_state()
        self.link.stop()
        self._stop.set()
        if self._relink is not None:
            self._relink.cancel()
            self._relink = None
        if self._resuming is not None:
            self._resume_limit.cancel()
            self._resuming = None
        if self._reader is not None:
            self._reader.join(timeout=1.0)
        with contextlib.suppress(Exception):
            self._port.close()

    @property
    def stats(self) -> Mapping[str, int]:
        return {**self.link.stats.as_dict(), "bad_frames": self._decoder.bad_frames,
                "skipped_bytes": self._decoder.skipped_bytes, "resumes": self.resumes}


def open_backend(config: Config, clock: Clock, seed: int | None = None) -> OpenedHal:
    """An I/O board on a serial line (entry point `ioboard`); `seed` is for simulators."""
    board = IoBoardHal.from_config(config, clock)
    return OpenedHal(board, "ioboard", _("I/O board on {port}").format(port=board.port_name),
                     connect=board.connect)
