"""The rpigpio backend with a stand-in for the RPi.GPIO module (no Pi needed).

The fake keeps each line's level and calls edge callbacks from its own thread, as the
library does; the assertions are about what the table would see: levels on the lines
and the controller reacting inside its loop.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import types

import pytest

from firmware.controller import compose_table
from hal.backends.rpigpio import RpiGpioHal, import_gpio
from hal.interface import HalError
from mjtable_core.clock import RealClock
from mjtable_core.config import load_config

from ..conftest import ROOT

PI_CONFIG = ROOT / "config" / "table-pi.toml"
# Not a Pi model string: the header check (lines 0-27) is tested on its own below.
RIG = "mjtable test rig with 54 lines"


class FakeGPIO(types.ModuleType):
    """Enough of RPi.GPIO: BCM numbering, levels, and edge callbacks from a thread."""

    BCM, BOARD = 11, 10
    OUT, IN = 0, 1
    LOW, HIGH = 0, 1
    PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22
    RISING, FALLING, BOTH = 31, 32, 33

    def __init__(self) -> None:
        super().__init__("RPi.GPIO")
        self.mode: int | None = None
        self.direction: dict[int, int] = {}
        self.level: dict[int, int] = {}
        self.callbacks: dict[int, object] = {}
        self.cleaned = False

    def setwarnings(self, flag: bool) -> None:
        pass

    def setmode(self, mode: int) -> None:
        self.mode = mode

    def setup(self, line: int, direction: int, initial: int | None = None,
              pull_up_down: int | None = None) -> None:
        assert self.mode == self.BCM
        self.direction[line] = direction
        if direction == self.OUT:
            self.level[line] = self.LOW if initial is None else initial
        else:
            self.level.setdefault(line, self.HIGH if pull_up_down == self.PUD_UP else self.LOW)

    def output(self, line: int, level: int) -> None:
        if self.direction.get(line) != self.OUT:
            raise RuntimeError(f"The GPIO channel {line} has not been set up as an OUTPUT")
        self.level[line] = level

    def input(self, line: int) -> int:
        return self.level[line]

    def add_event_detect(self, line: int, edge: int, callback=None, bouncetime=None) -> None:
        self.callbacks[line] = callback

    def cleanup(self) -> None:
        self.cleaned = True
        self.direction.clear()

    def drive(self, line: int, level: int) -> threading.Thread:
        """Something outside moves an input line; the library calls back from its thread."""
        self.level[line] = level
        thread = threading.Thread(target=self.callbacks[line], args=(line,))
        thread.start()
        return thread


@pytest.fixture
def fake_gpio(mocker) -> FakeGPIO:
    gpio = FakeGPIO()
    package = types.ModuleType("RPi")
    package.GPIO = gpio
    mocker.patch.dict(sys.modules, {"RPi": package, "RPi.GPIO": gpio})
    return gpio


@pytest.fixture
def pi_config():
    return load_config(PI_CONFIG)


def line(config, name: str, index: int = 0) -> int:
    return config.pins[name].lines[index]


def idle_table(gpio: FakeGPIO, config) -> None:
    """Lid down, every cam at home: what a table at rest shows on its sensor lines."""
    for name in ["lid.lower", *[f"side.{n}.{s}" for n in range(4)
                               for s in ("head_home", "plate_home")]]:
        gpio.level[line(config, name)] = gpio.HIGH


def test_the_library_is_imported_lazily_from_its_usual_name(fake_gpio):
    assert import_gpio("Raspberry Pi 4 Model B Rev 1.4") is fake_gpio


@pytest.mark.parametrize(("model", "library", "extra"), [
    ("Raspberry Pi 4 Model B Rev 1.4", "RPi.GPIO", "mjtable[pi]"),
    ("Raspberry Pi 5 Model B Rev 1.0", "rpi-lgpio", "mjtable[pi5]")])
def test_a_missing_library_names_board_library_and_fix(mocker, model, library, extra):
    mocker.patch.dict(sys.modules, {"RPi": None, "RPi.GPIO": None})
    with pytest.raises(HalError) as err:
        import_gpio(model)
    message = str(err.value)
    assert model in message and library in message and extra in message
    assert 'backend = "sim"' in message


def test_off_a_pi_it_stops_and_never_falls_back(pi_config, mocker):
    clock = mocker.Mock()
    with pytest.raises(HalError) as err:
        RpiGpioHal.from_config(pi_config, clock, model="not a Raspberry Pi")
    message = str(err.value)
    assert "not a Raspberry Pi" in message and "mjtable[pi]" in message
    assert 'backend = "sim"' in message


def test_lines_beyond_the_header_are_refused_before_any_is_touched(pi_config, fake_gpio):
    with pytest.raises(HalError) as err:
        RpiGpioHal.from_config(pi_config, RealClock(asyncio.new_event_loop()), gpio=fake_gpio,
                   model="Raspberry Pi 4 Model B Rev 1.4")
    message = str(err.value)
    assert "51 GPIO lines" in message and "BCM 0-27" in message and "ioboard" in message
    assert fake_gpio.direction == {}


def test_outputs_start_at_their_safe_level(pi_config, fake_gpio):
    RpiGpioHal.from_config(pi_config, RealClock(asyncio.new_event_loop()), gpio=fake_gpio,
                           model=RIG)
    for name, pin in pi_config.pins.items():
        if fake_gpio.direction[pin.lines[0]] == fake_gpio.OUT:
            assert all(fake_gpio.level[x] == fake_gpio.LOW for x in pin.lines), name


def run_table(pi_config, gpio: FakeGPIO, scenario) -> None:
    """Controller on the rpigpio HAL on a real asyncio loop; `scenario` is a coroutine."""
    async def main() -> None:
        clock = RealClock(asyncio.get_running_loop())
        hal = RpiGpioHal.from_config(pi_config, clock, gpio=gpio, model=RIG)
        ctl = compose_table(pi_config, hal, clock, consumers=False)
        try:
            await scenario(ctl, hal)
        finally:
            ctl.stop()
            hal.close()

    asyncio.run(main())


def test_an_edge_reaches_the_controller_inside_the_loop(pi_config, fake_gpio):
    idle_table(fake_gpio, pi_config)
    seen: list[tuple[str, object, int]] = []

    async def scenario(ctl, hal):
        loop_thread = threading.get_ident()
        ctl.subscribers.append(lambda e: e["kind"] == "key" and seen.append(
            (e["key"], e.get("t"), threading.get_ident())))
        ctl.start()
        # The lift key closes to ground: its inverted line falls.
        fake_gpio.drive(line(pi_config, "key.lift.0"), fake_gpio.LOW).join()
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.01)
        assert hal.read("key.lift.0") is True
        assert seen and seen[0][0] == "key.lift.0"
        assert seen[0][2] == loop_thread      # handled in the loop, not the GPIO thread

    run_table(pi_config, fake_gpio, scenario)


def test_a_fault_drives_every_motor_line_to_its_safe_level(pi_config, fake_gpio):
    idle_table(fake_gpio, pi_config)
    motors = [n for n, s in load_config(PI_CONFIG).pins.items() if n.startswith("motor.")]

    async def scenario(ctl, hal):
        ctl.start()                           # homed: the build starts, motors turn
        await asyncio.sleep(0.05)
        assert fake_gpio.level[line(pi_config, "motor.disc")] == fake_gpio.HIGH
        hal.write("motor.lid", "up")
        assert fake_gpio.level[line(pi_config, "motor.lid", 0)] == fake_gpio.HIGH
        ctl.fault("lid.not_rising", "lid", None, {"test": True})
        for name in motors:
            for x in pi_config.pins[name].lines:
                assert fake_gpio.level[x] == fake_gpio.LOW, name

    run_table(pi_config, fake_gpio, scenario)
    assert fake_gpio.cleaned                  # lines released on stop


def test_the_lid_never_drives_both_directions(pi_config, fake_gpio):
    hal = RpiGpioHal.from_config(pi_config, RealClock(asyncio.new_event_loop()), gpio=fake_gpio,
                     model=RIG)
    up, down = pi_config.pins["motor.lid"].lines
    levels = []
    original = fake_gpio.output

    def watch(x: int, level: int) -> None:
        original(x, level)
        levels.append((fake_gpio.level[up], fake_gpio.level[down]))

    fake_gpio.output = watch
    for command in ("up", "down", "up", "off", "down", "off"):
        hal.write("motor.lid", command)
    assert (fake_gpio.HIGH, fake_gpio.HIGH) not in levels
    assert levels[-1] == (fake_gpio.LOW, fake_gpio.LOW)


def test_a_second_daemon_on_the_same_chip_is_refused_before_touching_a_line(
        pi_config, fake_gpio, tmp_path):
    """One daemon per table: the GPIO device is held (flock) by the backend that opened
    it, as the ioboard's serial device is; the next one may take it once it is closed."""
    chip = tmp_path / "gpiomem"          # stands in for /dev/gpiomem
    chip.touch()
    clock = RealClock(asyncio.new_event_loop())
    first = RpiGpioHal.from_config(pi_config, clock, gpio=fake_gpio, model=RIG, device=chip)
    other = FakeGPIO()
    with pytest.raises(HalError) as err:
        RpiGpioHal.from_config(pi_config, clock, gpio=other, model=RIG, device=chip)
    message = str(err.value)
    assert "\n" not in message and str(chip) in message
    assert "held by another program" in message and "stop that one first" in message
    assert other.direction == {} and other.mode is None     # no line touched
    first.close()
    RpiGpioHal.from_config(pi_config, clock, gpio=FakeGPIO(), model=RIG, device=chip).close()


@pytest.mark.parametrize(("model", "chip", "device"), [
    ("Raspberry Pi 5 Model B Rev 1.0", None, "/dev/gpiochip0"),
    ("Raspberry Pi 5 Model B Rev 1.0", "4", "/dev/gpiochip4"),
    ("Raspberry Pi Compute Module 5 Rev 1.0", None, "/dev/gpiochip0")])
def test_the_device_locked_is_the_one_the_library_drives(monkeypatch, model, chip, device):
    from hal.backends.rpigpio import gpio_device

    if chip is None:
        monkeypatch.delenv("RPI_LGPIO_CHIP", raising=False)
    else:
        monkeypatch.setenv("RPI_LGPIO_CHIP", chip)
    assert str(gpio_device(model)) == device
    assert str(gpio_device("Raspberry Pi 4 Model B Rev 1.4")) in ("/dev/gpiomem", "/dev/mem")


def test_a_gpio_device_that_cannot_be_opened_is_one_line(pi_config, fake_gpio, tmp_path):
    with pytest.raises(HalError) as err:
        RpiGpioHal.from_config(pi_config, RealClock(asyncio.new_event_loop()), gpio=fake_gpio,
                               model=RIG, device=tmp_path / "gpiomem")
    assert "\n" not in str(err.value) and "group gpio" in str(err.value)
    assert fake_gpio.direction == {}


def test_a_two_contact_case_switch_disagreeing_stops_the_table(fake_gpio, tmp_path):
    # The normally-closed contact on its own line: it reports open while the
    # normally-open one says closed. One contact has failed: case.contacts, table stopped.
    text = PI_CONFIG.read_text()
    text = text.replace("face_up_sensor = false", "face_up_sensor = false\ncase_contacts = 2")
    text = text.replace('"case_open" = { pin = 26, invert = true, pull = "up" }',
                        '"case_open" = { pin = 26, invert = true, pull = "up" }\n'
                        '"case_open_nc" = { pin = 53, pull = "down" }')
    path = tmp_path / "table-pi-2.toml"
    path.write_text(text)
    config = load_config(path)
    idle_table(fake_gpio, config)
    fake_gpio.level[line(config, "case_open")] = fake_gpio.HIGH     # closed
    raised: list[str] = []

    async def scenario(ctl, hal):
        ctl.subscribers.append(lambda e: e["kind"] == "fault" and raised.append(e["id"]))
        ctl.start()
        fake_gpio.drive(line(config, "case_open_nc"), fake_gpio.HIGH).join()
        for _ in range(100):
            if raised:
                break
            await asyncio.sleep(0.01)
        assert hal.read("case_open_nc") is True and hal.read("case_open") is False

    run_table(config, fake_gpio, scenario)
    assert raised and raised[0] == "case.contacts"
