"""Supervision of every commanded motion with learned travel times.

Each mechanism (`lid.up`, `lid.down`, `plate.N`, `head.N`) has a learned travel time
T: the mean of its last runs, seeded from config and kept in the journal. A motion
whose sensor is not seen within k·T has failed (CN106540440B); one slower than
T·(1 + margin) warns that friction or supply changed (CN105879384A, timing.drift).

Plausibility: a whole motion whose stop sensor shows up sooner than MIN_TRAVEL·T is
a glitch, never the stop (`too_early`). A part-length motion (resumed from between
the stops) has no such bound: it may have been stopped a hair short of its stop. Its
stop is believed only once it has stayed CONFIRM_S (`part_length`): a glitch is
shorter, a real stop stays. A slow motion warns only when it recurs:
SLOW_RECUR of the last SLOW_WINDOW runs of that mechanism.

A stop sensor missed while its mechanism evidently moved (the sensor it left did
change) is only a suspect: an obstruction looks the same. It is judged failed only on
evidence that the mechanism really reached that stop — the next travel from between
the stops to the opposite one takes at least FULL_TRAVEL of its learned time (a lid
stopped 40 % short comes back in 40 % of it) and no more than the drift limit
T·(1 + margin) (a slow motor stopped short at k·T also comes back slowly: no evidence),
counting with the misses to `[timing] degrade_after` signs. Then the motion stops on a timer at T
and `sensor.degraded` warns, so the table stays playable until the sensor is
replaced; clearing that warning (or replacing the part) believes the sensor again.
Cam sensors (heads, plates) have no opposite travel to give that evidence: a missed
home is always a fault. Nor is a guard (GUARDS: the lower lid stop, the interlock of the
feed motors and the walls) ever run on a timer: a timer cannot see an object that later
blocks the lid part open, so a failed guard stays a stop-fault until it is replaced.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware.i18n import N_
from firmware.machines.watch import Watch
from mjtable_core.clock import Timer

TIMED_STOP_MARGIN = 1.1
LATE_LOOP_S = 0.02      # a timer run this late means the loop was not running
CONFIRM_S = 0.06        # glitches last up to ~50 ms; a cam's home window is longer
MIN_TRAVEL = 0.7        # a worn motor is slower, never faster
FULL_TRAVEL = 0.8       # evidence that a travel started at the far stop
SLOW_RECUR, SLOW_WINDOW = 3, 5
# The travel that can show a stop sensor failed: from that stop to the other one.
OPPOSITE = {"lid.upper": "lid.down", "lid.lower": "lid.up"}
# Stop sensors that are interlocks: the lower lid stop guards the feed motors and the
# walls rising. A timer cannot see an object that later blocks the lid part open, so a
# failed guard is never run on a timer: it stays a fault until it is replaced.
GUARDS = frozenset({"lid.lower"})
LINK_RECHECK_S = 0.05   # a missed stop judged again this soon while the link is in doubt

if TYPE_CHECKING:
    from firmware.machines.protocols import Emit, FaultSink, Outputs
    from mjtable_core.clock import Clock
    from mjtable_core.config import TimingSection
    from mjtable_core.geometry import Geometry


@dataclass
class _Motion:
    sensor: str
    fault_id: str
    where: str
    side: int | None
    evidence: dict[str, Any]
    moved: Callable[[], bool] | None
    timed_stop: Callable[[], None] | None
    started: float
    learn: bool = True
    timer: Timer | None = None
    confirms: str | None = None     # a suspect sensor this travel may show failed
    due: float = 0.0                # when the miss is judged
    late_grace: bool = False        # judged once more for a loop that ran late


class Supervisor:
    def __init__(self, outputs: Outputs, clock: Clock, timing: TimingSection,
                 geometry: Geometry, fault: FaultSink, emit: Emit,
                 edge_time: Callable[[str], float]) -> None:
        self.hal = outputs
        self.clock = clock
        self.timing = timing
        self.fault = fault
        self.emit = emit
        self.edge_time = edge_time
        # Hooks set as the table is composed: the hand under way (the cycle's number),
        # and the inputs that made the pin's interlock stop a motion (motion.py).
        self.hand_number: Callable[[], int] = lambda: 0
        self.interlocked: Callable[[str, float], dict[str, Any] | None] = (
            lambda mechanism, since: None)
        self.k = timing.timeout_factor
        self.margin = timing.drift_margin
        self.window = timing.learn_window
        self.nominal = {"lid.up": timing.lid_travel_s, "lid.down": timing.lid_travel_s}
        for n in geometry.sides:
            self.nominal[f"plate.{n}"] = timing.plate_turn_s
            self.nominal[f"head.{n}"] = timing.head_turn_s
        self.runs: dict[str, deque[float]] = {}
        self._means: dict[str, float] = {}      # learned(), until the runs change
        # export()'s windows, until the runs change: the journal keeps a tuple's text
        # while it is the very same tuple (state/fragments.py), several saves a hand.
        self._windows: dict[str, tuple[float, ...]] = {}
        self.misses: dict[str, int] = {}
        self.degraded: set[str] = set()
        self.suspects: set[str] = set()
        self._slow: dict[str, deque[bool]] = {}
        self._drift_warned: set[tuple[str, int]] = set()
        self._motions: dict[str, _Motion] = {}
        self.watch = Watch(clock, fault, self._link_doubt)

    # -- learned timings ----------------------------------------------------------------

    def learned(self, mechanism: str) -> float:
        # Asked several times on every turn and tile: the mean is kept until a run
        # changes it (_record, restore).
        mean = self._means.get(mechanism)
        if mean is None:
            runs = self.runs.get(mechanism)
            mean = sum(runs) / len(runs) if runs else self.nominal[mechanism]
            self._means[mechanism] = mean
        return mean

    def slow_recurs(self, key: str, slow: bool, recur: int = SLOW_RECUR,
                    window: int = SLOW_WINDOW) -> bool:
        """Note whether the last run of `key` was slow; True once slow runs recur."""
        recent = self._slow.setdefault(key, deque(maxlen=window))
        recent.append(slow)
        return slow and sum(recent) >= recur

    def _record(self, mechanism: str, duration: float) -> None:
        expected = self.learned(mechanism)
        slow = duration > expected * (1 + self.margin)
        recurs = self.slow_recurs(mechanism, slow)
        if slow and not recurs:
            return      # one slow draw: an outlier, neither warned nor learned
        if recurs:
            # Once per mechanism and hand: a worn motor would otherwise warn every turn.
            key = (mechanism, self.hand_number())
            if key not in self._drift_warned:
                self._drift_warned.add(key)
                side = int(mechanism.split(".")[1]) if mechanism[-1].isdigit() else None
                recent = self._slow[mechanism]
                self.fault("timing.drift", mechanism, side,
                               {"mechanism": mechanism, "took_s": round(duration, 3),
                                "learned_s": round(expected, 3),
                                "limit_s": round(expected * (1 + self.margin), 3),
                                "slow_of_last": [int(sum(recent)), len(recent)]})
        self._ran(mechanism, duration)

    def _ran(self, mechanism: str, duration: float) -> None:
        self.runs.setdefault(mechanism, deque(maxlen=self.window)).append(duration)
        self._means.pop(mechanism, None)
        self._windows.pop(mechanism, None)

    def learned_build(self) -> float | None:
        """Mean of recent whole builds, once there are a few to go by."""
        runs = self.runs.get("build")
        return sum(runs) / len(runs) if runs and len(runs) >= 3 else None

    def record_build(self, build_s: float) -> None:
        self._ran("build", build_s)

    def export(self) -> dict[str, Any]:
        windows = self._windows
        return {"runs": {m: windows.get(m) or self._window(m) for m in self.runs},
                "degraded": sorted(self.degraded)}

    def _window(self, mechanism: str) -> tuple[float, ...]:
        window = self._windows[mechanism] = tuple(self.runs[mechanism])
        return window

    def restore(self, saved: dict[str, Any]) -> None:
        for mechanism, runs in saved.get("runs", {}).items():
            if mechanism in self.nominal or mechanism == "build":
                self.runs[mechanism] = deque(runs, maxlen=self.window)
        self._means.clear()
        self._windows.clear()
        self.degraded = (set(saved.get("degraded", [])) & set(self.hal.signals)) - GUARDS

    # -- motions --------------------------------------------------------------------------

    def expect(self, mechanism: str, sensor: str, fault_id: str, where: str,
               side: int | None = None, evidence: dict[str, Any] | None = None,
               moved: Callable[[], bool] | None = None,
               timed_stop: Callable[[], None] | None = None, learn: bool = True,
               confirms: str | None = None) -> None:
        """A motor was commanded: `sensor` must be seen within k·T.

        `moved` tells whether the mechanism evidently moved; `timed_stop` completes
        the motion without its sensor (the fallback for a failed sensor). Only whole
        motions (`learn`) teach the travel time: a resumed one is shorter.
        """
        self.cancel(mechanism)
        motion = _Motion(sensor, fault_id, where, side, dict(evidence or {}), moved,
                         timed_stop, self.clock.now(), learn,
                         confirms=confirms if confirms in self.suspects else None)
        learned = self.learned(mechanism)
        if sensor in self.degraded and timed_stop is not None:
            # A little past T, so the mechanism surely reaches its mechanical stop.
            motion.timer = self.clock.call_later(learned * TIMED_STOP_MARGIN,
                                                     lambda: self._timed(mechanism))
        else:
            motion.due = motion.started + self.k * learned
            motion.timer = self.clock.call_later(self.k * learned,
                                                     lambda: self._missed(mechanism))
        self._motions[mechanism] = motion

    def postpone(self, by_s: float) -> None:
        """The board held for `by_s` while the host was silent: a motion whose ARM
        reached it only after (armed again whole at RESUME) started that much later,
        so every stop awaited is judged that much later (one still overdue, the hold's
        length unknown, gets its whole limit again); none teaches a travel time."""
        now = self.clock.now()
        for mechanism, motion in self._motions.items():
            if motion.timer is None or (motion.sensor in self.degraded
                                        and motion.timed_stop is not None):
                continue        # stopped by time, not awaited
            motion.timer.cancel()
            motion.learn = False
            limit = motion.due - motion.started
            motion.due += by_s
            if motion.due <= now:
                motion.due = now + limit
            motion.timer = self.clock.call_later(
                motion.due - now, lambda m=mechanism: self._missed(m))

    def unlearned(self, mechanism: str) -> None:
        """The motion under way is timed from a doubtful start: it teaches nothing."""
        motion = self._motions.get(mechanism)
        if motion is not None:
            motion.learn = False

    def reached(self, mechanism: str, at: float | None = None) -> None:
        """The motion's sensor was seen (`at`: when, if it was confirmed since): learn
        how long it took."""
        motion = self._motions.pop(mechanism, None)
        if motion is None:
            return
        if motion.timer is not None:
            motion.timer.cancel()
        self.misses[motion.sensor] = 0
        took = (self.clock.now() if at is None else at) - motion.started
        if motion.confirms is not None:
            self._judge(mechanism, motion.confirms, took)
        if motion.learn:
            self._record(mechanism, took)

    def _judge(self, mechanism: str, suspect: str, took: float) -> None:
        """A travel from between the stops ended: was the suspect's stop really reached?

        Only a travel back at the mechanism's healthy speed measures the distance: one
        between FULL_TRAVEL·T and the drift limit T·(1 + margin) covered the whole
        travel, so the stop was reached unseen. A shorter one was stopped short (an
        obstruction). A slower one proves nothing: a slow motor stopped at k·T short
        of the stop also comes back slowly, and believing it would run the lid on a
        timer that leaves it part open.
        """
        self.suspects.discard(suspect)
        learned = self.learned(mechanism)
        evidence = {"sensor": suspect, "travel": mechanism, "took_s": round(took, 3),
                    "learned_s": round(learned, 3), "full_travel": FULL_TRAVEL,
                    "limit_s": round(learned * (1 + self.margin), 3)}
        if took > learned * (1 + self.margin):
            self.misses.pop(suspect, None)
            self.emit("sensor.trusted", **evidence,
                          why=N_("the travel back was slow: the motor is slow, which is no "
                                 "evidence that the stop was reached"))
            return
        signs = self.misses.get(suspect, 0) + 1     # the misses, and this travel back
        if took >= FULL_TRAVEL * learned and signs < self.timing.degrade_after:
            self.suspects.add(suspect)      # not enough signs yet: it stays a suspect
            self.emit("sensor.suspect", **evidence, signs=signs)
        elif took >= FULL_TRAVEL * learned and suspect in GUARDS:
            # Failed, but an interlock: no timer; each miss stays a stop-fault.
            self.misses[suspect] = signs
            self.emit("sensor.failed", **evidence,
                          why=N_("the travel back took the whole learned time: the sensor "
                                 "failed; it guards the motors, so it is never run on a "
                                 "timer: replace it"))
        elif took >= FULL_TRAVEL * learned:
            self.degraded.add(suspect)
            self.fault("sensor.degraded", suspect, None,
                           {**evidence, "why": N_("the travel back took the whole learned "
                                                  "time: the stop was reached unseen")})
        else:
            self.emit("sensor.trusted", **evidence,
                          why=N_("the travel back was short: it was stopped, not the "
                                 "sensor"))

    def is_suspect(self, sensor: str) -> bool:
        return sensor in self.suspects

    def restore_sensor(self, sensor: str) -> None:
        """A sensor replaced or repaired: believe it again."""
        self.degraded.discard(sensor)
        self.suspects.discard(sensor)
        self.misses.pop(sensor, None)

    def too_early(self, mechanism: str) -> float | None:
        """How long a whole motion ran if its stop came impossibly soon, else None."""
        motion = self._motions.get(mechanism)
        if motion is None or not motion.learn:
            return None
        elapsed = self.clock.now() - motion.started
        return elapsed if elapsed < MIN_TRAVEL * self.learned(mechanism) else None

    def part_length(self, mechanism: str) -> bool:
        """Whether `mechanism` runs a part-length motion (resumed, or from between the
        stops): nothing bounds how soon its stop may come, so it is confirmed."""
        motion = self._motions.get(mechanism)
        return motion is not None and not motion.learn

    def restart(self, mechanism: str) -> None:
        """The same motion goes on (a head turning again for the next tile)."""
        motion = self._motions.get(mechanism)
        if motion is not None:
            self.expect(mechanism, motion.sensor, motion.fault_id, motion.where,
                        motion.side, motion.evidence, motion.moved, motion.timed_stop,
                        motion.learn, motion.confirms)

    def is_supervised(self, mechanism: str) -> bool:
        return mechanism in self._motions

    def elapsed(self, mechanism: str) -> float | None:
        motion = self._motions.get(mechanism)
        return None if motion is None else self.clock.now() - motion.started

    def cancel(self, mechanism: str) -> None:
        motion = self._motions.pop(mechanism, None)
        if motion is not None and motion.timer is not None:
            motion.timer.cancel()

    def cancel_all(self) -> None:
        for mechanism in list(self._motions):
            self.cancel(mechanism)
        self.watch.cancel_all()

    def active(self) -> list[str]:
        return sorted(self._motions) + self.watch.armed()

    def _timed(self, mechanism: str) -> None:
        motion = self._motions.pop(mechanism)
        assert motion.timed_stop is not None
        motion.timed_stop()

    def _link_doubt(self) -> bool | None:
        """False: nothing in doubt (or no link); None: the board silent a while; True:
        the link declared lost."""
        hal = self.hal
        if not (hal.capabilities.link and hal.link_in_doubt()):
            return False
        return True if hal.link_lost else None

    def _missed(self, mechanism: str) -> None:
        hal = self.hal
        if hal.capabilities.link and hal.link_in_doubt():
            # The board has not been heard for a while: the sensor's edge may be on
            # the cable (the board stopped the motor on it). Never a jam for a silent
            # link: look again soon; once the link is declared lost, link.lost is the
            # one fault and the re-home after it judges every mechanism again.
            if hal.link_lost:
                self._motions.pop(mechanism)
                return
            self._motions[mechanism].timer = self.clock.call_later(
                LINK_RECHECK_S, lambda: self._missed(mechanism))
            return
        motion = self._motions[mechanism]
        now = self.clock.now()
        # The edge came in time by its own stamp, and the sensor still reads it.
        edge = self.edge_time(motion.sensor)
        in_time = motion.started <= edge <= motion.due and bool(hal.read(motion.sensor))
        if not motion.late_grace and (now - motion.due > LATE_LOOP_S or in_time):
            # The loop ran late (a host that stalled): the edge it waited for may be
            # among what it caught up on just now, its dwell still being confirmed.
            # Judged again once that could have held.
            motion.late_grace = True
            motion.timer = self.clock.call_later(2 * CONFIRM_S + LINK_RECHECK_S,
                                                     lambda: self._missed(mechanism))
            return
        del self._motions[mechanism]
        waited = round(now - motion.started, 3)
        moved = motion.moved() if motion.moved is not None else False
        evidence = {**motion.evidence, "sensor": motion.sensor, "waited_s": waited,
                    "learned_s": round(self.learned(mechanism), 3), "moved": moved}
        # The board's interlock stopped the motor: the inputs that forbade it are the
        # evidence, not the sensor the motion waited for (no miss of it either).
        blocked = self.interlocked(mechanism, motion.started)
        if blocked is None:
            self.misses[motion.sensor] = self.misses.get(motion.sensor, 0) + 1 if moved else 0
        if in_time:
            # Its stop came in time and still reads: the mechanism stands at its stop,
            # and its machine did not believe the edge (took it for a glitch).
            evidence["stop_seen_s"] = round(edge - motion.started, 3)
        if blocked is not None:
            evidence["interlock"] = blocked
        elif moved and motion.sensor in OPPOSITE:
            # Failed sensor or obstruction? The next travel back tells (_judge).
            self.suspects.add(motion.sensor)
            evidence["suspect_sensor"] = motion.sensor
        self.fault(motion.fault_id, motion.where, motion.side, evidence)
