"""`identify` blinks the display for a few seconds of table time, and never hides
what the table writes meanwhile."""

from __future__ import annotations

from typing import Any

from firmware.service.identify import BLINK_S, IDENTIFY_S, SHOWN, Identify
from mjtable_core.clock import VirtualClock


class Display:
    """The outputs as the HAL keeps them, with every write and when it came."""

    def __init__(self, clock: VirtualClock, text: str) -> None:
        self.clock = clock
        self.values: dict[str, Any] = {"display": text}
        self.writes: list[tuple[float, Any]] = []

    def read(self, name: str) -> Any:
        return self.values[name]

    def write(self, name: str, value: Any) -> None:
        self.values[name] = value
        self.writes.append((round(self.clock.now(), 3), value))


def test_identify_blinks_id_then_gives_the_display_back() -> None:
    clock = VirtualClock()
    display = Display(clock, "3-5")
    Identify(clock, display).start()       # type: ignore[arg-type]
    clock.run_until(IDENTIFY_S + 5)
    shown = [value for _, value in display.writes]
    assert shown[:4] == [SHOWN, "3-5", SHOWN, "3-5"]
    assert shown.count(SHOWN) == round(IDENTIFY_S / BLINK_S / 2)
    assert display.values["display"] == "3-5"
    assert display.writes[-1][0] <= IDENTIFY_S


def test_a_fault_code_written_during_the_blink_stays() -> None:
    clock = VirtualClock()
    display = Display(clock, "")
    blink = Identify(clock, display)       # type: ignore[arg-type]
    blink.start()
    clock.call_at(BLINK_S * 0.5, lambda: display.write("display", "E12"))
    clock.run_until(IDENTIFY_S + 5)
    assert display.values["display"] == "E12"
    assert not blink.blinking
