"""HAL backend on the Raspberry Pi's own GPIO lines (RPi.GPIO, or rpi-lgpio on a Pi 5).

Both libraries install as the import name `RPi.GPIO`; it is imported here, lazily, and
nowhere else. Off a Pi this backend stops with an error that names the board, the
library and the fix — it never falls back to the simulator.

Wiring is config (`[pins]`, see mjtable_core/pins.py). Edge callbacks come from the library's
own thread: they only read the line and post the new value into the loop with
`clock.post`; the firmware sees the change inside its loop, like every input.

The 7-segment `display` is a no-op here: digits need a driver chip (TM1637, MAX7219)
with its own protocol, not a GPIO line. The last text is kept for `read`.

One daemon per chip: before a line is set up the backend takes an exclusive `flock` on
the device node its library drives (/dev/gpiomem, or the Pi 5's gpiochip), as the
ioboard backend does on its serial device. A second daemon on the same board, whatever
its state directory or socket, stops with one line instead of driving the same pins.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from hal.armed import Capabilities, OnStopped, PinStops, StopSpec
from hal.interface import HalError, Listener, OpenedHal, drive_safe
from mjtable_core.clock import Clock
from mjtable_core.config import Config
from mjtable_core.i18n import _
from mjtable_core.pins import Pin, PinMap, check_complete
from mjtable_core.schema import ConfigError
from mjtable_core.signals import LID_DOWN, LID_UP, Kind, Signal, Value

MODEL_FILES = (Path("/proc/device-tree/model"), Path("/sys/firmware/devicetree/base/model"))
BOUNCE_MS = 5        # mechanical keys and reed switches chatter for a few ms


def board_model(paths: tuple[Path, ...] = MODEL_FILES) -> str:
    """The device tree's model string ("Raspberry Pi 4 Model B Rev 1.4", ...)."""
    for path in paths:
        try:
            model = path.read_text(errors="replace").rstrip("\x00\n")
        except OSError:
            continue
        if model:
            return model
    return "not a Raspberry Pi"


def on_lgpio(model: str) -> bool:
    """A Pi 5 (or CM5): RPi.GPIO cannot drive its RP1 chip; rpi-lgpio does."""
    return "Raspberry Pi 5" in model or "Compute Module 5" in model


def gpio_device(model: str) -> Path:
    """The device node the GPIO library drives on this board: rpi-lgpio opens the
    gpiochip RPI_LGPIO_CHIP names (0 unless set), RPi.GPIO maps /dev/gpiomem (or
    /dev/mem, as root, where that is missing)."""
    if on_lgpio(model):
        return Path(f"/dev/gpiochip{os.environ.get('RPI_LGPIO_CHIP', '0')}")
    gpiomem = Path("/dev/gpiomem")
    return gpiomem if gpiomem.exists() else Path("/dev/mem")


def lock_device(device: Path) -> int:
    """Hold `device` exclusively (a flock, dropped by the kernel however the process
    ends) or raise a HalError in one line; returns the descriptor to close."""
    try:
        fd = os.open(device, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise HalError(_("cannot open the board's GPIO device {device} ({error}); check "
                         "that this user is in group gpio").format(
                             device=device, error=exc.strerror or exc)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise HalError(_("the GPIO of this board ({device}) is held by another program, "
                         "most likely another table daemon: stop that one first").format(
                             device=device)) from None
    return fd


def import_gpio(model: str | None = None) -> Any:
    """The RPi.GPIO module, or a HalError that says what to install or configure."""
    model = model or board_model()
    extra = "pi5" if on_lgpio(model) else "pi"
    library = "rpi-lgpio" if extra == "pi5" else "RPi.GPIO"
    fix = _("install it with: pip install 'mjtable[{extra}]'; or, to run without table "
            "hardware, set [hal] backend = \"sim\" in the config").format(extra=extra)
    try:
        import RPi.GPIO as GPIO
    except ImportError as exc:
        raise HalError(_("the rpigpio backend needs {library} (board: {model}); {fix} "
                         "[{error}]").format(library=library, model=model, fix=fix,
                                             error=exc)) from None
    except RuntimeError as exc:
        # RPi.GPIO raises RuntimeError at import when it finds no Pi SoC.
        raise HalError(_("the rpigpio backend cannot drive this board ({model}): {error}; "
                         "on a table this must be a Raspberry Pi; elsewhere set [hal] "
                         "backend = \"sim\"").format(model=model, error=exc)) from None
    return GPIO


def is_pi(model: str) -> bool:
    return model.startswith("Raspberry Pi")


def header_lines(model: str) -> range | None:
    """BCM lines a Pi brings out to its connector; None for a board we do not know."""
    if not is_pi(model):
        return None
    if "Compute Module" in model and not any(f"Module {n}" in model for n in (4, 5)):
        return range(46)          # CM1 and CM3: GPIO 0-45 on the SODIMM edge
    return range(28)              # the 40-pin header (and CM4/CM5): GPIO 0-27


def _check_board(model: str, pins: dict[str, Pin]) -> None:
    lines = header_lines(model)
    if lines is None:
        return
    beyond = [f"{name} (BCM {line})" for name, pin in pins.items() for line in pin.lines
              if line not in lines]
    if beyond:
        used = sum(len(pin.lines) for pin in pins.values())
        raise HalError(_(
            "this table needs {used} GPIO lines but the {model} brings out {count} "
            "(BCM 0-{last}); no line for: {beyond}. Driving lines that are not on the "
            "connector would touch the board's own circuits, so nothing was set up. Wire "
            "the table through the I/O board ([hal] backend = \"ioboard\") or give these "
            "signals lines on the connector").format(used=used, model=model, count=len(lines),
                                                     last=lines[-1], beyond=", ".join(beyond)))


class RpiGpioHal:
    """The table's signals on the Pi's GPIO lines, as `[pins]` maps them."""

    @classmethod
    def from_config(cls, config: Config, clock: Clock, **kwargs: Any) -> RpiGpioHal:
        """The backend for a table's config: its signals and its `[pins]` only."""
        return cls(config.pins, config.signals(), clock, config.source, **kwargs)

    def __init__(self, pins: PinMap, signals: Mapping[str, Signal], clock: Clock,
                 source: str = "<config>", gpio: Any | None = None,
                 model: str | None = None, device: Path | None = None) -> None:
        """`pins` is the `[pins]` section of config file `source`; `gpio`, `model` and
        `device` stand in for the library, /proc/device-tree/model and the device node
        it drives (with a stand-in library and no `device`, nothing is locked)."""
        self.clock = clock
        self.signals: dict[str, Signal] = dict(signals)
        try:
            check_complete(pins, self.signals, source)
        except ConfigError as exc:
            raise HalError(_("config error: {error}").format(error=exc)) from None
        self.pins: dict[str, Pin] = dict(pins)
        self.model = model or board_model()
        if gpio is None and not is_pi(self.model):
            # rpi-lgpio would open whatever gpiochip this board has: refuse, loudly.
            raise HalError(_(
                "[hal] backend = \"rpigpio\" drives a Raspberry Pi's GPIO, but this board "
                "is {model!r}. On the table's Pi install the library with "
                "pip install 'mjtable[pi]' (Pi 4 and older, RPi.GPIO) or 'mjtable[pi5]' "
                "(Pi 5, rpi-lgpio); to run without table hardware set [hal] backend = "
                "\"sim\"").format(model=self.model))
        _check_board(self.model, self.pins)
        self.gpio = gpio if gpio is not None else import_gpio(self.model)
        if device is None and gpio is None:
            device = gpio_device(self.model)
        # Before any line is touched: a second daemon must not drive the same pins.
        self._device_fd = lock_device(device) if device is not None else None
        self.values: dict[str, Value] = {
            s.name: s.rest_value for s in self.signals.values()}
        self._listener: Listener | None = None
        self._closed = False
        # Armed stops end in the GPIO library's callback thread, not a loop turn later.
        self.stops = PinStops(clock, self.signals, self._drive, self.read)
        try:
            self._setup()
        except BaseException:
            if self._device_fd is not None:
                os.close(self._device_fd)
            raise

    # -- lines ------------------------------------------------------------------------

    def _level(self, pin: Pin, active: bool) -> int:
        return self.gpio.HIGH if active != pin.invert else self.gpio.LOW

    def _setup(self) -> None:
        GPIO = self.gpio
        GPIO.setwarnings(False)
        GPIO.setmode(GPIO.BCM)
        pulls = {"off": GPIO.PUD_OFF, "up": GPIO.PUD_UP, "down": GPIO.PUD_DOWN}
        try:
            for name, pin in self.pins.items():
                signal = self.signals[name]
                if signal.is_output:
                    # `initial` drives the safe level from the first instant.
                    for line in pin.lines:
                        GPIO.setup(line, GPIO.OUT, initial=self._level(pin, False))
                    continue
                GPIO.setup(pin.lines[0], GPIO.IN, pull_up_down=pulls[pin.pull])
                self.values[name] = self._sample(pin)
                GPIO.add_event_detect(pin.lines[0], GPIO.BOTH,
                                      callback=lambda _line, n=name: self._edge(n),
                                      bouncetime=BOUNCE_MS)
        except (RuntimeError, ValueError) as exc:
            with contextlib.suppress(Exception):
                GPIO.cleanup()
            raise HalError(_("GPIO set-up failed at {signal} (BCM {lines}): {error}; check "
                             "[pins] and that this user is in group gpio").format(
                                 signal=name, lines=pin.lines, error=exc)) from None

    def _sample(self, pin: Pin) -> bool:
        return bool(self.gpio.input(pin.lines[0])) != pin.invert

    def _edge(self, name: str) -> None:
        """The library's thread: read the line, stop the motion it ends (an armed
        stop), hand the value to the loop."""
        value = self._sample(self.pins[name])
        self.stops.on_input(name, value, in_loop=False)
        self.clock.post(lambda: self._deliver(name, value))

    def _deliver(self, name: str, value: bool) -> None:
        if self._closed or self.values[name] == value:
            return           # a bounce that settled where it started
        self.values[name] = value
        if self._listener is not None:
            self._listener(name, value)

    # -- Hal --------------------------------------------------------------------------

    capabilities = Capabilities(armed_stops=True)

    def arm(self, spec: StopSpec, on_stopped: OnStopped) -> None:
        self.stops.arm(spec, on_stopped)

    def cancel(self, output: str) -> None:
        self.stops.cancel(output)
        self._drive(output, self.signals[output].safe_value)

    def changed_at(self, name: str) -> float | None:
        return None

    def write(self, name: str, value: Value) -> None:
        self.stops.cancel(name)
        self._drive(name, value)

    def _drive(self, name: str, value: Value) -> None:
        signal = self.signals.get(name)
        if signal is None or not signal.is_output:
            raise KeyError(f"not an output: {name}")
        self.values[name] = value
        if signal.kind is Kind.DISPLAY:
            return           # needs a driver chip; see the module docstring
        pin = self.pins[name]
        if signal.kind is Kind.LID_MOTOR:
            up, down = pin.lines
            # Both directions at once would short the H-bridge: release first.
            self.gpio.output(up if value != LID_UP else down, self._level(pin, False))
            self.gpio.output(up, self._level(pin, value == LID_UP))
            self.gpio.output(down, self._level(pin, value == LID_DOWN))
            return
        self.gpio.output(pin.lines[0], self._level(pin, bool(value)))

    def read(self, name: str) -> Value:
        return self.values[name]

    def listen(self, listener: Listener) -> None:
        self._listener = listener

    def safe_state(self, outputs: Collection[str] | None = None) -> None:
        """Every motor and the buzzer (or only `outputs`) to their safe level; a pin
        has no stale command to fence. Never raises."""
        if outputs is None:
            self.stops.cancel_all()
        drive_safe(self.signals, self.write, outputs)

    def all_outputs_off(self) -> None:
        """Every output, lamps included, at its inactive level (shutdown, failsafe)."""
        for signal in self.signals.values():
            if signal.is_output:
                with contextlib.suppress(Exception):
                    self.write(signal.name, signal.safe_value)

    def entropy(self) -> tuple[random.Random, str]:
        return random.SystemRandom(), "electronic"

    def close(self) -> None:
        """Outputs off, then release every line (GPIO.cleanup)."""
        if self._closed:
            return
        self.all_outputs_off()
        self._closed = True
        with contextlib.suppress(Exception):
            self.gpio.cleanup()
        if self._device_fd is not None:
            os.close(self._device_fd)       # the next daemon may take the chip
            self._device_fd = None


def open_backend(config: Config, clock: Clock, seed: int | None = None) -> OpenedHal:
    """The Pi's GPIO (entry point `rpigpio`); `seed` is for simulators only."""
    hal = RpiGpioHal.from_config(config, clock)
    return OpenedHal(hal, "rpigpio", _("GPIO of {model}").format(model=hal.model))
