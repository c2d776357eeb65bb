"""One motion a sensor ends, for every machine: start → arm → supervise → done/fail.

Where the backend can (`capabilities.armed_stops`), the motor is started with an armed
stop: the pin stops it — the I/O board, the GPIO callback thread, the simulator's edge
— however late the loop runs, with the same plausibility the firmware applies (no stop
sooner than MIN_TRAVEL of a whole travel; a part-length travel's stop believed once it
has held CONFIRM_S), and an expiry a little past the supervisor's own. The supervisor
stays the second line: its timeouts, its learned times, its judgement of suspects. A
sensor the supervisor no longer believes is never armed on: that motion runs on the
supervisor's timer, as before. The machines still hear the sensor's edge and decide
what comes next; they only no longer have to be in time to stop the motor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware.machines.supervisor import MIN_TRAVEL
from hal.armed import StopReason, StopReport, StopSpec
from hal.interlocks import interlock_rules
from mjtable_core.signals import Value

if TYPE_CHECKING:
    from firmware.machines.protocols import Outputs
    from firmware.machines.supervisor import Supervisor

# The pin's expiry runs this much past the supervisor's k·T: the supervisor judges
# first; the pin's expiry only counts when the loop is not there to judge at all.
EXPIRY_MARGIN = 1.25


class Motions:
    def __init__(self, outputs: Outputs, supervisor: Supervisor) -> None:
        self.hal = outputs
        self.supervisor = supervisor
        # A missed stop asks whether the pin's interlock stopped the motor.
        supervisor.interlocked = self.interlocked
        self.last: dict[str, StopReport] = {}     # the last report of each output
        self._outputs: dict[str, str] = {}         # the output each mechanism drives

    def run(self, mechanism: str, output: str, value: Value, sensor: str, level: Value,
            fault_id: str, *, where: str | None = None, side: int | None = None,
            evidence: dict[str, Any] | None = None, moved: Callable[[], bool] | None = None,
            timed_stop: Callable[[], None] | None = None, learn: bool = True,
            confirms: str | None = None, confirm_s: float = 0.0) -> None:
        """Start `output` at `value` until `sensor` reads `level`, supervised as
        `mechanism` (fault `fault_id` at `where`, default the output); `learn`: a
        whole travel, which teaches T and whose stop can come no sooner than MIN_TRAVEL
        of it; `confirm_s`: how long the stop must hold before it is believed."""
        supervisor = self.supervisor
        learned = supervisor.learned(mechanism)
        self._outputs[mechanism] = output
        if self.hal.capabilities.armed_stops and sensor not in supervisor.degraded:
            spec = StopSpec(output, value, sensor, level, edges=1,
                            blank_s=MIN_TRAVEL * learned if learn else 0.0,
                            confirm_s=confirm_s,
                            max_s=supervisor.k * learned * EXPIRY_MARGIN)
            self.hal.arm(spec, self._stopped)
        else:
            self.hal.write(output, value)
        supervisor.expect(mechanism, sensor, fault_id, where or output, side, evidence,
                          moved=moved, timed_stop=timed_stop, learn=learn, confirms=confirms)

    def _stopped(self, report: StopReport) -> None:
        self.last[report.spec.output] = report

    def interlocked(self, mechanism: str, since: float) -> dict[str, Value] | None:
        """The inputs that made the pin's interlock stop (or refuse) `mechanism`'s
        motor since `since`, as the stop's report read them; None if no interlock did.
        A motion the board stopped is not the part that failed: these inputs are."""
        output = self._outputs.get(mechanism)
        report = self.last.get(output or "")
        if report is None or report.reason is not StopReason.INTERLOCK or report.at < since:
            return None
        return {name: report.inputs[name]
                for out, name, level, value in interlock_rules(self.hal.signals)
                if out == output and value in (None, report.spec.value)
                and name in report.inputs and report.inputs[name] != level}
