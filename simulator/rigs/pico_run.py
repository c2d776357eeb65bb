"""`mjtable simulate --hal pico`: the board's firmware on MicroPython on an emulated RP2040.

The third rig beside `sim` and `ioboard`. The chip (simulator/rigs/pico_chip.py) boots
MicroPython's Pico image; `board/` goes onto it as a user puts it on a Pico
(`mjtable board flash` over its USB serial, hal/board_flash.py); then the chip
and the table run in lockstep on one clock: every `STEP_S` of table time the chip is
moved on to the same instant (its cycles at 125 MHz), the motor lines its expanders
latched are applied to the table, and every sensor change of the table is put on the
chip's pin at the instant it happens. The host's link is UART0, bridged to a pty that
the unchanged ioboard HAL opens.

What the chip tells (`PicoBoard.figures()`): each armed stop's latency from the
sensor's edge on its pin to the motor's line going off (in chip time, less the
confirmation dwell the host asked for), the board loop's period (between watchdog
feeds), the least free heap the board reported, watchdog resets, and anything the
board printed that looks like an error (a traceback, a MemoryError in a handler).
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import re
import statistics
import threading
from collections import deque
from typing import Any

from board import pinmap
from hal.backends.ioboard import IoBoardHal, LinkError, open_port
from hal.interface import HalError
from hal.protocol import (
    CHANNELS,
    Decoder,
    Msg,
    Reason,
    decode_signal,
    decode_stopped,
    decode_value,
)
from mjtable_core.config import Config, check_link
from mjtable_core.signals import Value
from simulator.physics.table import SimTable
from simulator.rigs.cable import Cable
from simulator.rigs.host_clock import HostClock
from simulator.rigs.ioboard_emulator import PtyPort
from simulator.rigs.lockstep import LockstepClock, MeteredPort
from simulator.rigs.pico_chip import NS, PicoChip

STEP_S = 0.001          # table time between two looks at the chip's outputs
BOOT_LIMIT_NS = 5 * NS  # chip time the flashed board may take to start its loop
ERROR_WORDS = (b"Traceback", b"MemoryError", b"Uncaught exception", b"uncaught exception")
MEM_FREE = re.compile(rb"board mem_free (\d+)")
TX_LOST = re.compile(rb"tx_lost (\d+)")


def pico_config(config: Config) -> Config:
    """The table as the Pico board wires it: no tile reader (its channels are not on
    the board, docs/board.md), so the host deals without knowing the tiles."""
    if not config.table.tile_reader:
        return config
    return dataclasses.replace(config, table=dataclasses.replace(config.table,
                                                                  tile_reader=False))


class _LinkStats:
    """The board's own link figures live on the chip; the rig counts what it relays."""

    def __init__(self) -> None:
        self.to_host = 0
        self.to_board = 0

    def as_dict(self) -> dict[str, int]:
        return {"bytes_to_host": self.to_host, "bytes_to_board": self.to_board}


class _Link:
    def __init__(self) -> None:
        self.stats = _LinkStats()


class PicoBoard(Cable):
    """The emulated Pico in front of the simulated table, on the lockstep clock."""

    def __init__(self, table: SimTable, clock: LockstepClock, chip: PicoChip,
                 port: PtyPort, *, seed: int = 0) -> None:
        self.table = table
        self.clock = clock
        self.chip = chip
        self.port = port
        self.link = _Link()
        self.noise = 0.0
        self.bits_flipped = 0
        self.failsafe_at: float | None = None
        self._rng_in = random.Random(f"pico-noise-in-{seed}")
        self._rng_out = random.Random(f"pico-noise-out-{seed}")
        self._drop_until = float("-inf")
        self._closed = False
        self._figures: dict[str, Any] | None = None
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None
        self._t0 = 0
        self._latch: dict[int, int] = {}
        self._out_value: dict[int, int] = {}
        # Kept a while, to time a stop whose report comes after its motor ran again (a
        # head's next turn) or its input changed again (the head leaving home).
        self._running_since: dict[int, int] = {}    # output channel -> chip ns it went on
        self._runs: dict[int, deque[tuple[int, int]]] = {}  # ... its last runs (on, off)
        self._edges: dict[int, deque[int]] = {}     # input channel -> its last edges
        self._confirm: dict[int, int] = {}      # stop id -> confirm_ms the host asked for
        # stop id -> (chip ns its ARM was handed to the chip, the frame's seq): a run that
        # ended before it is another stop's.
        self._armed_at: dict[int, tuple[int, int]] = {}
        self._timed: deque[bytes] = deque(maxlen=32)   # STOPPEDs timed (the board resends)
        self._from_host = Decoder()
        self._to_host = Decoder()
        self.latencies_us: list[float] = []
        self.safe_us: list[float] = []
        # SAFEs on their way: (chip ns the frame was handed to UART0, the motor channels
        # it stops that were running then).
        self._safes: list[tuple[int, frozenset[int]]] = []
        self.loop_ns: list[int] = []
        self._gpio_of = {where[1]: ch for ch, where in pinmap.INPUTS.items()
                         if where[0] == "gpio"}
        self._expander_bits: dict[int, int] = {}
        chip.on_uart = self._from_chip

    # -- wiring --------------------------------------------------------------------------

    def drive_inputs(self) -> None:
        """Every input pin at the table's present value (before the board samples them)."""
        for ch, where in pinmap.INPUTS.items():
            name = CHANNELS[ch]
            if name in self.table.values:
                self._drive(ch, where, self.table.values[name])

    def _drive(self, ch: int, where: tuple[Any, ...], value: Value) -> None:
        active = bool(value)
        if where[0] == "gpio":
            self.chip.gpio(where[1], active != where[2])
        else:
            address, bit, low = where[1], where[2], where[3]
            bits = self._expander_bits.get(address, 0xFFFF)
            level = active != low
            bits = bits | (1 << bit) if level else bits & ~(1 << bit)
            self._expander_bits[address] = bits
            self.chip.expander_inputs(address, bits)

    def start(self, t0_ns: int) -> None:
        """From now on table time 0 is chip time `t0_ns`."""
        self._t0 = t0_ns - round(self.clock.now() * NS)
        self.table.listener = self._on_table_change
        self._reader = threading.Thread(target=self._read_loop, name="pico-uart", daemon=True)
        self._reader.start()
        self.clock.call_later(STEP_S, self._step)

    def rebase(self) -> None:
        """The chip ran on while the table's time stood (a handshake): table now is chip now."""
        self._t0 = self.chip.t_ns - round(self.clock.now() * NS)

    @property
    def url(self) -> str:
        return self.port.url

    def chip_ns(self) -> int:
        return self._t0 + round(self.clock.now() * NS)

    # -- the lockstep ---------------------------------------------------------------------

    def _catch_up(self) -> None:
        self.chip.run_to(self.chip_ns())
        self._apply_events()

    def _step(self) -> None:
        if self._closed:
            return
        self._catch_up()
        self.clock.call_later(STEP_S, self._step)

    def _on_table_change(self, name: str, value: Value) -> None:
        self._catch_up()
        from hal.protocol import CHANNEL_OF

        ch = CHANNEL_OF.get(name)
        where = pinmap.INPUTS.get(ch) if ch is not None else None
        if where is not None:
            self._drive(ch, where, value)

    def _apply_events(self) -> None:
        events, self.chip.events = self.chip.events, []
        for event in events:
            at, kind = event[0], event[1]
            if kind == "in":
                ch = self._gpio_of.get(event[2])
                if ch is not None:
                    self._edges.setdefault(ch, deque(maxlen=16)).append(at)
            elif kind == "mcp":
                self._latch[event[2]] = event[3]
                self._outputs_changed(at)

    def _line(self, where: tuple[Any, ...]) -> bool:
        latch = self._latch.get(where[1], 0)
        return bool(latch >> where[2] & 1) != where[3]

    def _outputs_changed(self, at: int) -> None:
        values = {0: 1 if self._line(pinmap.LID_UP_PIN) else
                  2 if self._line(pinmap.LID_DOWN_PIN) else 0}
        for ch, where in pinmap.OUTPUTS.items():
            values[ch] = 1 if self._line(where) else 0
        for ch, value in values.items():
            previous = self._out_value.get(ch, 0)
            if previous == value:
                continue
            self._out_value[ch] = value
            if previous:
                self._runs.setdefault(ch, deque(maxlen=8)).append(
                    (self._running_since.pop(ch, at), at))
            if value:
                self._running_since[ch] = at
            name = CHANNELS[ch]
            if name in self.table.signals:
                self.table.command(name, decode_value(name, bytes((value,))))
        if self._safes:
            self._safes_done(at)

    def last_run(self, ch: int) -> tuple[int, int] | None:
        """Output channel `ch`'s last run that has ended: (chip ns on, chip ns off)."""
        runs = self._runs.get(ch)
        return runs[-1] if runs else None

    def _safe_sent(self, channels: bytes) -> None:
        """A SAFE (or SAFE_NOW) handed to the chip: timed until what it stops is off."""
        named = frozenset(channels) or frozenset((0, *pinmap.OUTPUTS))
        running = frozenset(ch for ch in named if self._out_value.get(ch, 0))
        if running and len(self._safes) < 64:
            self._safes.append((self.chip_ns(), running))

    def _safes_done(self, at: int) -> None:
        waiting = []
        for sent, channels in self._safes:
            if any(self._out_value.get(ch, 0) for ch in channels):
                waiting.append((sent, channels))
            else:
                self.safe_us.append(max(0, at - sent) / 1000)
        self._safes = waiting

    # -- bytes (the cable's drops and noise: simulator/rigs/cable.py) -----------------------

    def _from_chip(self, data: bytes) -> None:
        for frame in self._to_host.feed(data):
            if frame.type == Msg.STOPPED:
                self._stopped(frame.payload)
        if self._dropping() or self._closed:
            return
        self.link.stats.to_host += len(data)
        self.port.write(self._garble(data, self._rng_out))

    def _read_loop(self) -> None:
        while not self._stop.is_set():
            data = self.port.read()
            if data:
                self.clock.post(lambda d=data: self._to_chip(d))

    def _to_chip(self, data: bytes) -> None:
        if self._dropping() or self._closed:
            return
        frames = list(self._from_host.feed(data))
        for frame in frames:
            if frame.type == Msg.ARM and len(frame.payload) >= 10:
                self._confirm[frame.payload[0]] = int.from_bytes(frame.payload[8:10], "big")
            elif frame.type == Msg.SET:
                self._off_board(frame.payload)
        self._catch_up()
        for frame in frames:
            if frame.type == Msg.ARM and frame.payload:
                armed = self._armed_at.get(frame.payload[0])
                if armed is None or armed[1] != frame.seq:     # not the host's resend
                    self._armed_at[frame.payload[0]] = (self.chip_ns(), frame.seq)
            elif frame.type in (Msg.SAFE, Msg.SAFE_NOW):
                self._safe_sent(frame.payload[1:] if frame.type == Msg.SAFE_NOW
                                else frame.payload)
        self.link.stats.to_board += len(data)
        self.chip.uart_in(self._garble(data, self._rng_in))

    def _off_board(self, payload: bytes) -> None:
        """The display is not on the Pico (docs/board.md: its channel answers "not
        fitted"): the table shows what the host sets, as a display on its own driver
        would. Without it the players never see the dice and a hand needing a second
        throw stands still in dealing."""
        try:
            name, value = decode_signal(payload)
        except Exception:       # garbled or foreign: the board refuses it too
            return
        ch = payload[0]
        signal = self.table.signals.get(name)
        if ch not in pinmap.OUTPUTS and ch != 0 and signal is not None and signal.is_output:
            self.table.command(name, value)

    # -- what the chip tells -------------------------------------------------------------

    def _stopped(self, payload: bytes) -> None:
        try:
            stopped = decode_stopped(payload)
        except Exception:       # a garbled report: the host's decoder says so
            return
        if stopped.reason != Reason.EDGE or payload in self._timed:
            return
        self._timed.append(payload)
        from hal.protocol import CHANNEL_OF

        out_ch, in_ch = CHANNEL_OF.get(stopped.output), CHANNEL_OF.get(stopped.input)
        self._apply_events()
        runs, edges = self._runs.get(out_ch, ()), self._edges.get(in_ch, ())
        armed = self._armed_at.get(stopped.stop_id, (0, 0))[0]
        # Its run: the first to end after its ARM (an older one, ended by a SAFE or a
        # SET past an edge, is another stop's), timed from the last edge in it.
        for on, off in runs:
            if off < armed:
                continue
            inside = [edge for edge in edges if max(on, armed) <= edge <= off]
            if inside:
                runs.remove((on, off))      # type: ignore[union-attr]
                dwell = self._confirm.get(stopped.stop_id, 0) * 1_000_000
                self.latencies_us.append(max(0, off - inside[-1] - dwell) / 1000)
            # Else no edge ended it: stopped at its arming (already at its level).
            return

    def figures(self) -> dict[str, Any]:
        if self._figures is not None:       # closed: the chip is gone, its figures stay
            return self._figures
        self.loop_ns += self.chip.loop_periods_ns()
        console = bytes(self.chip.console)
        free = [int(m) for m in MEM_FREE.findall(console)]
        loops = sorted(self.loop_ns)

        def pct(values: list[float], p: float) -> float:
            return round(values[min(len(values) - 1, int(p * len(values)))], 1)

        def spread(values: list[float]) -> dict[str, float]:
            if not values:
                return {"n": 0}
            ordered = sorted(values)
            return {"n": len(ordered), "p50": round(statistics.median(ordered), 1),
                    "p99": pct(ordered, 0.99), "max": round(ordered[-1], 1)}

        return {
            "chip": "rp2040",
            "micropython": getattr(self, "micropython", None),
            "stop_latency_us": spread(self.latencies_us),
            # The host's SAFE handed to UART0 to the last motor it stops off: the line's
            # pace and the board's turn (the referee's grace on this rig: rig.py).
            "safe_latency_us": spread(self.safe_us),
            "loop_us": ({"p50": round(statistics.median(loops) / 1000, 1),
                         "p99": pct([x / 1000 for x in loops], 0.99),
                         "max": round(loops[-1] / 1000, 1)} if loops else {}),
            "mem_free_min": min(free) if free else None,
            "resets": self.chip.resets,
            # Bytes the board's uart.write gave up with its buffer full (lost frames).
            "uart_tx_lost": max((int(m) for m in TX_LOST.findall(console)), default=0),
            "errors": [line.decode(errors="replace") for line in console.splitlines()
                       if any(word in line for word in ERROR_WORDS)],
            "chip_time_s": round(self.chip.t_ns / NS, 3),
        }

    def close(self) -> None:
        if self._figures is None:
            self._figures = self.figures()
        self._closed = True
        self._stop.set()
        if self._reader is not None:
            self._reader.join(timeout=1.0)
        self.port.close()
        self.chip.close()


def boot_board(chip: PicoChip, say: Any = lambda line: None) -> str:
    """Flash `board/` onto the chip over its USB serial and start it; the MicroPython
    version. Raises FlashError, or RuntimeError if the board loop never starts."""
    from hal.board_flash import board_files, flash

    chip.run_to(chip.t_ns + NS * 250 // 1000)    # booted, its USB enumerated
    with chip.usb_serial() as usb:
        done = flash(usb, board_files(), say=say, ram_disk=True)
    if not chip.run_until_console(b"board mem_free", BOOT_LIMIT_NS):
        raise RuntimeError("the flashed board did not start its loop: "
                           + bytes(chip.console[-300:]).decode(errors="replace"))
    return done.micropython


class PicoWiredTable:
    """Table, emulated Pico with board/ flashed, UART0 pty and the ioboard HAL."""

    def __init__(self, config: Config, seed: int | None = None) -> None:
        check_link(config)
        self.config = config
        self.clock = LockstepClock()
        self.table = SimTable(config, self.clock, seed)
        port = PtyPort(self.clock.meter)
        chip = PicoChip()
        self.board = PicoBoard(self.table, self.clock, chip, port, seed=self.table.seed)
        try:
            self.board.drive_inputs()
            self.board.micropython = boot_board(chip)   # type: ignore[attr-defined]
        except BaseException:
            self.board.close()
            raise
        self.board.loop_ns = []
        chip.loop_periods_ns()          # the loop's figures start with the table
        self.board.start(chip.t_ns)
        serial_port = MeteredPort(open_port(port.url, config.ioboard.baud), self.clock.meter)
        self.host = HostClock(self.clock)
        self.hal = IoBoardHal.from_config(config, self.host, port=serial_port)

    def connect(self) -> LinkError | None:
        errors: list[HalError] = []

        def shake() -> None:
            try:
                self.hal.connect()
            except HalError as exc:
                errors.append(exc)
            finally:
                self.clock.post(lambda: None)

        thread = threading.Thread(target=shake, name="pico-handshake")
        thread.start()
        # The chip answers only while its time moves: serve the posted bytes and step it.
        while thread.is_alive():
            self.clock.serve_while(lambda: False)
            self.board._catch_up()
            with contextlib.suppress(Exception):
                self.board.chip.run_to(self.board.chip.t_ns + 1_000_000)
                self.board._apply_events()
            thread.join(timeout=0.001)
        thread.join()
        self.board.rebase()
        if errors and not isinstance(errors[0], LinkError):
            raise errors[0]
        return errors[0] if errors and isinstance(errors[0], LinkError) else None

    def close(self, drain: bool = True) -> None:
        if drain:
            self.clock.run_until(self.clock.now())
        self.hal.close()
        self.board.close()
