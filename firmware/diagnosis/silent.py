"""Sensors that fail silent: a sensor that a normal build must light, never seen lit.

A `full` sensor stuck inactive, or a count sensor stuck dark, raises nothing by itself:
the belt never reports full (the disc runs on against a full belt), a side just fills
slower. Each build lights a side's `count` many times and its `full` now and then (in
the simulator about half the builds): a sensor not seen active over `builds` builds in
a row has most likely failed dark. Said once as a maintenance warning naming it
(W97 sensor.silent); the table plays on. Counted since start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.faults.kinds.sensor import SILENT
from mjtable_core.signals import Value

if TYPE_CHECKING:
    from firmware.diagnosis.table import Watched

# Builds in a row without the sensor lit: P(a working `full` never lit) is about 2^-N.
SILENT_BUILDS = 20


class SilentSensors:
    def __init__(self, ctl: Watched, builds: int = SILENT_BUILDS) -> None:
        self.ctl = ctl
        self.builds = builds
        self.watched = [f"side.{n}.{part}" for n in ctl.config.geometry.sides
                        for part in ("full", "count") if f"side.{n}.{part}" in ctl.hal.signals]
        self.dark_builds: dict[str, int] = dict.fromkeys(self.watched, 0)
        self._lit: set[str] = set()
        self.warned: set[str] = set()
        ctl.input_watchers.append(self._on_input)
        ctl.subscribers.append(self._on_event)

    def _on_input(self, name: str, value: Value) -> None:
        if value and name in self.dark_builds:
            self._lit.add(name)

    def _on_event(self, event: dict[str, Any]) -> None:
        if event["kind"] != "build.staged":
            return
        lit, self._lit = self._lit, set()
        for name in self.watched:
            self.dark_builds[name] = 0 if name in lit else self.dark_builds[name] + 1
            if name in lit:
                self.warned.discard(name)
            elif self.dark_builds[name] >= self.builds and name not in self.warned:
                self.warned.add(name)
                side = int(name.split(".")[1])
                self.ctl.fault(SILENT, name, side,
                               {"sensor": name, "builds_dark": self.dark_builds[name]})
