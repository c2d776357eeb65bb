"""Wear seen before it fails: trends in what the table already measures.

Nothing here is measured anew. After each build it reads:
- each mechanism's learned travel time (the supervisor's mean of its recent runs,
  supervisor.py) against its *as-new* time, the learned time the first time enough
  runs were seen (or since the part was replaced);
- the learned build time per hand against the as-new build time;
- per side: the count sensor's retries (edges the table refused as impossible,
  `sensor.glitch`) and count faults (E4N, E6N), and sides left short (E50);
- face-up tiles per build of each set;
- and, from every command, each motor's run-hours.
A trend past its limit becomes a maintenance warning that names the part, its side and
how many days are left (`due_days`, projected from the trend, at most a week); the
console turns it into a date. The schedule of routine jobs is firmware/diagnosis/upkeep.py.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware.diagnosis import upkeep
from firmware.faults.kinds import CATALOGUE, count
from firmware.faults.kinds.build import TILES_MISSING
from firmware.faults.kinds.tile import FACE_UP
from firmware.faults.shutdown import SAFE_STATE
from firmware.i18n import N_
from mjtable_core.signals import Value

if TYPE_CHECKING:
    from firmware.diagnosis.table import Watched

AS_NEW_RUNS = 20        # runs learned before a mechanism's as-new time is taken
WARN_RATIO = 1.15       # 15 % slower than new: service it within a week
URGENT_RATIO = 1.30     # 30 % slower: within a day
FAIL_RATIO = 1.60       # where a slowing motor is projected to stall
WEEK_DAYS, URGENT_DAYS = 7, 1
HISTORY = 12            # builds of history per trend
RETRIES_WARN, RETRIES_URGENT = 3, 10    # count retries and faults in the last builds
SHORT_WARN = 2          # builds left short at one side, of the last HISTORY
FACE_UP_WARN = 1.0      # face-up tiles per build of one set, over its last 5 builds
DAY_S = 86400.0

# Mechanism -> (part as a technician says it, the job).
PARTS: dict[str, tuple[str, str]] = {
    "head": (N_("stacking head of side {side}"),
             N_("service the stacking head of side {side}: clean and oil its slider, "
                "check its motor and gear")),
    "plate": (N_("wall lift plate of side {side}"),
              N_("service the wall lift plate of side {side}: clean its rails, oil its "
                 "rocker arm, check its motor")),
    "lid": (N_("lift (centre lid)"),
            N_("service the lift: oil the lift rods, check its motor and belt")),
    "build": (N_("shuffle disc and magnet ring"),
              N_("service the shuffle disc: clean the felt, check the magnet ring, the "
                 "rubber strip and the flip spring")),
}
COUNT_JOB = N_("clean the count sensor of side {side}")
SHORT_JOB = N_("clear the channel and check the conveyor of side {side}")
FACE_UP_JOB = N_("check set {set} for tiles with weak magnets and replace them")


@dataclass
class Warning_:
    """One maintenance warning: what to do, where, and how soon."""

    part: str
    side: int | None
    job: str
    due_days: int
    why: str
    measure: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"part": self.part, "side": self.side, "job": self.job,
                "due_days": self.due_days, "why": self.why, "measure": self.measure}


class Wear:
    """The table's wear trends, kept in the journal across restarts."""

    def __init__(self, ctl: Watched) -> None:
        self.ctl = ctl
        self.hands = 0
        self.table_s = 0.0          # table time counted (the clock restarts at boot)
        self._clock_at = ctl.clock.now()
        self.as_new: dict[str, float] = {}
        self.trends: dict[str, deque[tuple[float, float]]] = {}
        sides = ctl.geometry.sides
        self.retries: dict[int, deque[int]] = {n: deque(maxlen=HISTORY) for n in sides}
        self.short: dict[int, deque[int]] = {n: deque(maxlen=HISTORY) for n in sides}
        self.face_up: dict[str, deque[int]] = {}
        self.run_s: dict[str, float] = {}
        self._on: dict[str, float] = {}
        self._motors = frozenset(n for n, sig in ctl.hal.signals.items() if sig.is_motor)
        self.done_at: dict[str, int] = {}       # routine job -> hands when last done
        # export()'s windows, made again once a build or a replaced part moves them:
        # the journal keeps a tuple's text while it is the very same tuple.
        self._windows: dict[str, Any] | None = None
        self._build = self._blank()
        ctl.subscribers.append(self._on_event)
        ctl.outputs.watchers.append(self._on_output)

    def _blank(self) -> dict[str, Any]:
        return {"retries": dict.fromkeys(self.ctl.geometry.sides, 0),
                "short": set(), "face_up": 0}

    # -- what the table does -----------------------------------------------------------

    def _tick(self) -> float:
        now = self.ctl.clock.now()
        self.table_s += max(0.0, now - self._clock_at)
        self._clock_at = now
        return self.table_s

    def _on_output(self, name: str, value: Value) -> None:
        now = self.ctl.clock.now()
        if name == SAFE_STATE:
            for motor in list(self._on):
                self._off(motor, now)
            return
        if name not in self._motors:
            return
        if value and value != "off":
            self._on.setdefault(name, now)
        else:
            self._off(name, now)

    def _off(self, motor: str, now: float) -> None:
        started = self._on.pop(motor, None)
        if started is not None:
            self.run_s[motor] = self.run_s.get(motor, 0.0) + now - started

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "sensor.glitch" and str(event.get("sensor", "")).endswith(".count"):
            self._retry(event["sensor"])
        elif kind == "fault" and CATALOGUE[event["id"]] in count.KINDS:
            self._retry(event["where"])
        elif kind == "fault" and event["id"] == TILES_MISSING:
            short = (event.get("evidence") or {}).get("short_sides") or {}
            self._build["short"].update(int(n) for n, missing in short.items() if missing)
        elif kind == "fault" and event["id"] == FACE_UP:
            self._build["face_up"] += 1
        elif kind == "build.staged":
            self._built(str(event.get("set")))
        elif kind == "walls.committed":
            self.hands += 1

    def _retry(self, where: str) -> None:
        words = where.split(".")
        if len(words) > 1 and words[0] == "side" and words[1].isdigit():
            side = int(words[1])
            if side in self._build["retries"]:
                self._build["retries"][side] += 1

    def _built(self, set_name: str) -> None:
        now = self._tick()
        build, self._build = self._build, self._blank()
        self._windows = None
        for n in self.retries:
            self.retries[n].append(build["retries"][n])
            self.short[n].append(int(n in build["short"]))
        self.face_up.setdefault(set_name, deque(maxlen=5)).append(build["face_up"])
        supervisor = self.ctl.supervisor
        for mechanism, runs in supervisor.runs.items():
            if len(runs) < min(AS_NEW_RUNS, supervisor.window) and mechanism != "build":
                continue
            learned = (supervisor.learned_build() if mechanism == "build"
                       else supervisor.learned(mechanism))
            if learned is None:
                continue
            base = self.as_new.setdefault(mechanism, learned)
            self.trends.setdefault(mechanism, deque(maxlen=HISTORY)).append(
                (round(now, 1), round(learned / base, 4)))

    def done(self, job: str) -> None:
        """A routine job (upkeep.JOBS) was done now."""
        self.done_at[job] = self.hands

    def replaced(self, mechanism: str) -> None:
        """A part was replaced or serviced: its as-new time is learned again."""
        self.as_new.pop(mechanism, None)
        self.trends.pop(mechanism, None)
        self._windows = None

    # -- what it means -----------------------------------------------------------------

    def warnings(self) -> list[Warning_]:
        out = [w for m in sorted(self.trends) if (w := self._slowing(m)) is not None]
        for n in sorted(self.retries):
            retries = sum(self.retries[n])
            if retries >= RETRIES_WARN:
                out.append(Warning_(N_("count sensor of side {side}"), n, COUNT_JOB,
                                    URGENT_DAYS if retries >= RETRIES_URGENT else WEEK_DAYS,
                                    N_("{n} count retries and faults in the last {builds} "
                                       "builds"),
                                    {"n": retries, "builds": len(self.retries[n])}))
            short = sum(self.short[n])
            if short >= SHORT_WARN:
                out.append(Warning_(N_("conveyor of side {side}"), n, SHORT_JOB, WEEK_DAYS,
                                    N_("left short in {n} of the last {builds} builds"),
                                    {"n": short, "builds": len(self.short[n])}))
        for name in sorted(self.face_up):
            seen = self.face_up[name]
            rate = sum(seen) / len(seen)
            if len(seen) >= 2 and rate >= FACE_UP_WARN:
                out.append(Warning_(N_("tiles of set {set}"), None, FACE_UP_JOB, WEEK_DAYS,
                                    N_("{rate} face-up tiles per build of set {set}"),
                                    {"rate": round(rate, 1), "set": name}))
        return sorted(out, key=lambda w: w.due_days)

    def _slowing(self, mechanism: str) -> Warning_ | None:
        trend = self.trends[mechanism]
        ratio = trend[-1][1]
        if ratio < WARN_RATIO:
            return None
        due = URGENT_DAYS if ratio >= URGENT_RATIO else WEEK_DAYS
        days = _days_to(trend, FAIL_RATIO)
        if days is not None:
            due = max(0, min(due, int(days)))
        where = self._part(mechanism)
        job = PARTS.get(mechanism.partition(".")[0], PARTS["build"])[1]
        return Warning_(where["part"], where["side"], job, due,
                        N_("{percent} % slower than new ({now} s, new {new} s)"),
                        {"percent": round((ratio - 1) * 100), "mechanism": mechanism,
                         "now": round(ratio * self.as_new[mechanism], 3),
                         "new": round(self.as_new[mechanism], 3), "ratio": ratio})

    @staticmethod
    def _part(mechanism: str) -> dict[str, Any]:
        """The part a mechanism's trend is about, and its side."""
        kind, _sep, rest = mechanism.partition(".")
        return {"part": PARTS.get(kind, PARTS["build"])[0],
                "side": int(rest) if rest.isdigit() else None}

    def report(self) -> dict[str, Any]:
        self._tick()
        now = self.ctl.clock.now()
        running = {m: s + now - self._on[m] if m in self._on else s
                   for m, s in self.run_s.items()}
        for m in self._on:
            running.setdefault(m, now - self._on[m])
        return {"hands": self.hands, "table_hours": round(self.table_s / 3600, 2),
                "run_hours": {m: round(s / 3600, 3) for m, s in sorted(running.items())},
                "trends": {m: {"as_new_s": round(self.as_new[m], 3), "ratio": t[-1][1],
                               **self._part(m)}
                           for m, t in sorted(self.trends.items()) if t},
                "warnings": [w.as_dict() for w in self.warnings()],
                "schedule": upkeep.schedule(self.hands, self.done_at)}

    # -- journal -----------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        self._tick()
        windows = self._windows
        if windows is None:
            windows = self._windows = {
                "trends": {m: tuple(t) for m, t in self.trends.items()},
                "retries": {str(n): tuple(d) for n, d in self.retries.items()},
                "short": {str(n): tuple(d) for n, d in self.short.items()},
                "face_up": {s: tuple(d) for s, d in self.face_up.items()}}
        return {"hands": self.hands, "table_s": round(self.table_s, 1),
                "as_new": self.as_new, **windows,
                "run_s": {m: round(s, 1) for m, s in self.run_s.items()},
                "done_at": dict(self.done_at)}

    def restore(self, saved: dict[str, Any]) -> None:
        self._windows = None
        try:
            self.hands = int(saved.get("hands", 0))
            self.table_s = float(saved.get("table_s", 0.0))
            self.as_new = {str(m): float(v) for m, v in saved.get("as_new", {}).items()}
            self.trends = {str(m): deque(((float(a), float(b)) for a, b in t), maxlen=HISTORY)
                           for m, t in saved.get("trends", {}).items()}
            for key, into in (("retries", self.retries), ("short", self.short)):
                for n, values in saved.get(key, {}).items():
                    if int(n) in into:
                        into[int(n)].extend(int(v) for v in values)
            self.face_up = {str(s): deque((int(v) for v in d), maxlen=5)
                            for s, d in saved.get("face_up", {}).items()}
            self.run_s = {str(m): float(s) for m, s in saved.get("run_s", {}).items()}
            self.done_at = {str(j): int(h) for j, h in saved.get("done_at", {}).items()}
        except (TypeError, ValueError, AttributeError):
            pass        # a damaged wear record: trends start again, the table runs


def _days_to(trend: deque[tuple[float, float]], limit: float) -> float | None:
    """Days until the trend's ratio reaches `limit`, by a straight line through its
    history (table time), or None when it is not rising."""
    if len(trend) < 3:
        return None
    times = [t for t, _r in trend]
    ratios = [r for _t, r in trend]
    n = len(trend)
    mean_t, mean_r = sum(times) / n, sum(ratios) / n
    var = sum((t - mean_t) ** 2 for t in times)
    if var <= 0:
        return None
    slope = sum((t - mean_t) * (r - mean_r) for t, r in zip(times, ratios, strict=True)) / var
    if slope <= 0:
        return None
    return max(0.0, (limit - ratios[-1]) / slope / DAY_S)
