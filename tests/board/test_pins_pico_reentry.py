"""board/pins_pico.py under CPython with a fake `machine`: a scheduled hand-over (the
hard IRQ's soft half) runs between any two bytecodes of the loop, so it may run inside
the loop's own `_arm_hard`. The early cut must never be left armed for a stop the board
has ended: it would cut a line the board turned on again for a new motion."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from board.stops import ArmedStop

ZERO, ONE = b"\x00", b"\x01"
HEAD_IN, HEAD_OUT, HEAD_GPIO, OUT = 20, 1, 2, 0x20


class Chip:
    """What the fake `machine` shares: pin levels, interrupts, the scheduler."""

    def __init__(self) -> None:
        self.levels: dict[int, int] = {}
        self.handlers: dict[int, Callable[[Any], None]] = {}
        self.irq_off = 0
        self.pending: list[tuple[Callable[[int], None], int]] = []
        self.in_scheduled = False
        self.ms = 1000

    def run_pending(self) -> None:
        while self.pending and not self.in_scheduled:
            func, arg = self.pending.pop(0)
            self.in_scheduled = True
            try:
                func(arg)
            finally:
                self.in_scheduled = False

    def edge(self, gpio: int, level: int) -> None:
        """The input changes: its hard IRQ runs at once."""
        self.levels[gpio] = level
        self.handlers[gpio](None)


def fake_machine(chip: Chip) -> types.ModuleType:
    machine = types.ModuleType("machine")

    class Pin:
        OUT, IN, PULL_UP, IRQ_RISING, IRQ_FALLING = 1, 0, 1, 1, 2

        def __init__(self, n: int, mode: int | None = None, pull: int | None = None,
                     value: int | None = None) -> None:
            self.n = n

        def value(self, v: int | None = None) -> int:
            if v is not None:
                chip.levels[self.n] = v
            return chip.levels.get(self.n, 0)

        def irq(self, handler: Callable[[Any], None], trigger: int, hard: bool) -> None:
            chip.handlers[self.n] = handler

    class UART:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def write(self, data: bytes) -> int:
            return len(data)

    class I2C:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def writeto(self, address: int, data: bytes) -> None:
            pass

        def writeto_mem(self, address: int, register: int, data: bytes) -> None:
            pass

        def readfrom_mem_into(self, address: int, register: int, data: bytearray) -> None:
            pass

    class Timer:
        ONE_SHOT = 0

        def __init__(self, timer_id: int) -> None:
            self.callback: Callable[[Any], None] | None = None

        def init(self, mode: int, period: int, callback: Callable[[Any], None],
                 hard: bool) -> None:
            self.callback = callback

        def deinit(self) -> None:
            self.callback = None

    def disable_irq() -> int:
        chip.irq_off += 1
        return 0

    def enable_irq(state: int) -> None:
        chip.irq_off -= 1

    machine.Pin = Pin  # type: ignore[attr-defined]
    machine.UART = UART  # type: ignore[attr-defined]
    machine.I2C = I2C  # type: ignore[attr-defined]
    machine.Timer = Timer  # type: ignore[attr-defined]
    machine.disable_irq = disable_irq  # type: ignore[attr-defined]
    machine.enable_irq = enable_irq  # type: ignore[attr-defined]
    return machine


def fake_time(chip: Chip) -> types.SimpleNamespace:
    return types.SimpleNamespace(ticks_ms=lambda: chip.ms,
                                 ticks_diff=lambda a, b: a - b,
                                 ticks_add=lambda a, b: a + b)


PINMAP = types.SimpleNamespace(
    UART_ID=0, UART_TX=0, UART_RX=1, BAUD=115200, UART_TXBUF=4096, UART_RXBUF=1024,
    I2C_ID=1, I2C_SDA=26, I2C_SCL=27, I2C_FREQ=400000, SLOW_POLL_MS=5, NAMES={},
    LID_UP_PIN=("mcp", OUT, 0, False), LID_DOWN_PIN=("mcp", OUT, 1, False),
    OUTPUTS={HEAD_OUT: ("mcp", OUT, 2, False)},
    INPUTS={HEAD_IN: ("gpio", HEAD_GPIO, False)})


class Stops(dict):
    """The board's stops as MicroPython iterates a dict: a change under the iteration
    raises nothing (CPython's RuntimeError would hide what the chip does next)."""

    def values(self) -> Any:
        return list(super().values())


class Board:
    """The board's side as board/core.py does it: an edge at its level ends the stop,
    the motor's line written off first."""

    def __init__(self, pins: Any) -> None:
        self.pins = pins
        self.stops: dict[int, ArmedStop] = Stops()

    def on_input(self, ch: int, value: bytes, at: int) -> None:
        for stop in list(self.stops.values()):
            if stop.in_ch == ch and value[0] == stop.level:
                del self.stops[stop.out_ch]
                self.pins.write(stop.out_ch, self.pins.outputs[stop.out_ch])


@pytest.fixture
def chip(monkeypatch: pytest.MonkeyPatch) -> Iterator[Chip]:
    chip = Chip()
    monkeypatch.setitem(sys.modules, "machine", fake_machine(chip))
    micro = types.ModuleType("micropython")
    micro.schedule = lambda func, arg: chip.pending.append((func, arg))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "micropython", micro)
    sys.modules.pop("board.pins_pico", None)
    yield chip
    # Bound to this fake machine: no other test may find it imported.
    sys.modules.pop("board.pins_pico", None)
    package = importlib.import_module("board")
    if hasattr(package, "pins_pico"):
        delattr(package, "pins_pico")


def new_pins(chip: Chip, monkeypatch: pytest.MonkeyPatch) -> Any:
    module = importlib.import_module("board.pins_pico")
    monkeypatch.setattr(module, "time", fake_time(chip))
    pins = module.Pins(PINMAP)
    pins.attach(Board(pins))
    return pins


def line_on(pins: Any) -> bool:
    return bool(pins._latch[OUT][0] & 1 << 2)


def arm_with_edge_at(chip: Chip, pins: Any, k: int) -> None:
    """The board arms the head's stop and runs its motor; its home edge comes at the
    k-th line the pins run after the board's turn, and its hand-over right after."""
    source = sys.modules["board.pins_pico"].__file__
    lines = 0

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal lines
        if event == "line" and not chip.irq_off and not chip.in_scheduled:
            lines += 1
            if lines == k:
                chip.edge(HEAD_GPIO, 1)
                chip.run_pending()
        return local

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == source else None

    def turn() -> None:
        stop = ArmedStop(7, HEAD_OUT, 1, HEAD_IN, 1, 1, 0, 0, 0, pins.now_ms())
        pins.board.stops[HEAD_OUT] = stop
        pins.write(HEAD_OUT, ONE)
        sys.settrace(tracer)

    try:
        pins.call(turn)
    finally:
        sys.settrace(None)
    if lines < k:
        chip.edge(HEAD_GPIO, 1)
    chip.run_pending()


@pytest.mark.parametrize("k", range(1, 80))
def test_a_stop_ended_during_the_loops_arming_leaves_no_cut_armed(
        chip: Chip, monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    pins = new_pins(chip, monkeypatch)
    arm_with_edge_at(chip, pins, k)
    assert not pins.board.stops, "the home edge ended the stop"
    assert not line_on(pins)
    # The cam leaves home; the host runs the motor again, no stop armed this time.
    chip.edge(HEAD_GPIO, 0)
    chip.run_pending()
    pins.call(lambda: pins.write(HEAD_OUT, ONE))
    chip.run_pending()
    assert line_on(pins)
    # Home again: no stop is armed, so nothing may cut the line the board turned on.
    chip.edge(HEAD_GPIO, 1)
    chip.run_pending()
    pins.call(lambda: None)
    assert line_on(pins), "an early cut for a stop the board had ended"
    assert pins.read(HEAD_OUT) == ONE
