"""The `sim` HAL backend: the firmware's signals wired to the in-process simulator.

Registered as entry point `sim` in group `mjtable.hal_backends`, so the HAL never
imports the simulator. The only fakes of the firmware's world live here and in
`simulator/`: outputs go to the physical model, input changes come back from it inside
the same loop, and the random source is the simulation's seed instead of the OS CSPRNG.
"""

from __future__ import annotations

import random
from collections.abc import Collection

from hal.armed import Capabilities, OnStopped, PinStops, StopSpec
from hal.interface import Listener, OpenedHal, drive_safe
from mjtable_core.clock import Clock
from mjtable_core.config import Config
from mjtable_core.i18n import _
from mjtable_core.signals import Signal, Value
from simulator.physics.players import SimPlayers
from simulator.physics.table import SimTable
from simulator.rigs.host_clock import HostClock


class SimHal:
    # An armed stop ends in the instant of the simulated edge, before the firmware hears
    # it; each edge keeps its own time, as a GPIO callback stamps it (a stalled host
    # hears of it later, and still knows when it was).
    capabilities = Capabilities(armed_stops=True, board_time=True)

    def __init__(self, table: SimTable, host: HostClock | None = None) -> None:
        self.table = table
        # The host process's clock: a stalled host hears of a change when it wakes.
        self.host = host
        self.signals: dict[str, Signal] = table.signals
        # A separate stream from the physics, so firmware draws do not shift the table.
        self._entropy = random.Random(f"mjtable-dice-{table.seed}")
        self.stops = PinStops(table.clock, self.signals, table.command,
                              table.values.__getitem__, table.values)
        self._changed_at: dict[str, float] = {}
        # Asked for every edge the firmware hears: the mapping's own lookup, no call
        # of ours around it, unless a subclass answers it its own way (a replay's
        # recorded stamps).
        if type(self).changed_at is SimHal.changed_at:
            self.changed_at = self._changed_at.get  # type: ignore[method-assign]
        # Read by the firmware at every turn of its machines: the table's own lookup
        # likewise.
        if type(self).read is SimHal.read:
            self.read = table.values.__getitem__    # type: ignore[method-assign]
        table.listener = self.stops.on_input

    def write(self, name: str, value: Value) -> None:
        self.stops.cancel(name)
        self.table.command(name, value)

    def read(self, name: str) -> Value:
        return self.table.values[name]

    def listen(self, listener: Listener) -> None:
        host = self.host
        on_input = self.stops.on_input
        watched = self.stops.watched
        changed_at = self._changed_at
        now = self.table.clock.now

        def heard(name: str, value: Value, at: float) -> None:
            changed_at[name] = at     # the stamp this edge came with
            listener(name, value)

        # Every edge of the table comes through here: what the calls above would do,
        # spelled out while no stop reads the input and the host is awake.
        def changed(name: str, value: Value) -> None:
            at = now()
            if name in watched:
                on_input(name, value)
            if host is None or at >= host.awake_from:
                changed_at[name] = at
                listener(name, value)
            else:
                host.deliver(heard, name, value, at)
        self.table.listener = changed

    def arm(self, spec: StopSpec, on_stopped: OnStopped) -> None:
        host = self.host
        self.stops.arm(spec, on_stopped if host is None else
                       lambda report: host.deliver(on_stopped, report))

    def cancel(self, output: str) -> None:
        self.stops.cancel(output)
        self.table.command(output, self.signals[output].safe_value)

    def changed_at(self, name: str) -> float | None:
        return self._changed_at.get(name)

    def safe_state(self, outputs: Collection[str] | None = None) -> None:
        if outputs is not None:     # a scope's stop: its outputs, as writes
            drive_safe(self.signals, self.write, outputs)
            return
        self.stops.cancel_all()
        drive_safe(self.signals, self.table.command)

    def entropy(self) -> tuple[random.Random, str]:
        return self._entropy, "simulated"

    def close(self) -> None:
        self.safe_state()


def open_backend(config: Config, clock: Clock, seed: int | None = None) -> OpenedHal:
    """The simulated table and its simulated players (entry point `sim`)."""
    table = SimTable(config, clock, seed)
    players = SimPlayers(table, clock, config)
    return OpenedHal(SimHal(table), "sim",
                     _("built-in simulator (seed {seed}, simulated players)").format(
                         seed=table.seed),
                     players.start, persistent=False)
