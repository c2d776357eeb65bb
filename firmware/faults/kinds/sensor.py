"""A sensor failing while play goes on: running on a timed fallback, never seen lit,
or flickering (its impossible edges filtered out)."""

from __future__ import annotations

from firmware.faults.kinds.evidence import EvidenceView, Ranked, Suspect
from firmware.faults.kinds.kind import SENSOR_BELIEVED, WARNING, FaultKind
from firmware.faults.kinds.parts import HEAD_SENSOR_GLITCH
from firmware.i18n import N_

# The kind the silent-sensor watch (firmware/diagnosis/silent.py) raises.
SILENT = "sensor.silent"

COUNT_FLICKER: Suspect = ("side.{side}.count", N_("the count sensor of side {side} flickers "
                                                  "(dirty, loose or failing)"))
FULL_DARK: Suspect = ("side.{side}.full", N_("the belt-full sensor of side {side} dead or "
                                             "covered (never lights)"))
COUNT_DARK: Suspect = ("side.{side}.count", N_("the count sensor of side {side} dead or "
                                               "covered (never lights)"))


def degraded(view: EvidenceView) -> Ranked:
    return [(view.where, N_("a failed position sensor"))], None, None


def silent(view: EvidenceView) -> Ranked:
    # The one sensor not seen lit is the evidence.
    full = str(view.evidence.get("sensor", "")).endswith(".full")
    return [FULL_DARK if full else COUNT_DARK], None, None


def flaky(view: EvidenceView) -> Ranked:
    # The edges themselves are the evidence: the sensor they came from, nothing else.
    if str(view.evidence.get("sensor", "")).endswith(".count"):
        return [COUNT_FLICKER], None, None
    return [HEAD_SENSOR_GLITCH], None, None


KINDS = (
    FaultKind("sensor.degraded", "W91", WARNING, N_("running on a timed fallback for a sensor"),
              (N_("a failed position sensor"),),
              (N_("replace that sensor"),),
              short=N_("sensor failed, running on time"), rule=degraded,
              # Cleared: the sensor was replaced or repaired, and is believed again.
              on_clear=SENSOR_BELIEVED,
              sees=("a lid stop missed, and the travel back to the other stop took its whole "
                    "learned time: running on the timed fallback")),
    FaultKind(SILENT, "W97", WARNING,
              N_("a sensor a build should light never seen lit"),
              (N_("a sensor failed dark (dead, unplugged or covered)"),),
              (N_("watch the sensor named in the signal view during a build; clean it, "
                  "check its plug and cable, then replace it"),),
              short=N_("sensor never lights"), rule=silent,
              sees=("a side's `full` or `count` sensor not seen lit over 20 builds in a row "
                    "(a sensor failed dark raises nothing by itself)"),
              clears="said once until the sensor lights again"),
    FaultKind("sensor.flaky", "W95", WARNING,
              N_("impossible edges from a sensor, filtered out"),
              (N_("a dirty, loose or failing sensor"),),
              (N_("clean the sensor named, check its plug and cable, then replace it"),),
              short=N_("sensor flickers"), rule=flaky,
              sees=("a head home sensor's home edge sooner than a turn allows, or a count "
                    "sensor dark for less than any gap between two tiles on one tile, 3 times "
                    "within 60 s: filtered, play goes on")),
)
