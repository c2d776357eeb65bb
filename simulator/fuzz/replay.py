"""Replaying a flight recording (firmware/diagnosis/recorder.py) against the unchanged firmware.

The simulated table runs healthy from power-on until the firmware reaches the
recording's anchor (the same event in the same cycle and build state). From then on
the physics no longer reaches the firmware: every input is the recorded one, fed at
its recorded offset from the anchor (the board's time stamp where it was recorded),
and what the firmware commands is compared with what it commanded on the table. The
table's learned travel times at the anchor are put back, so its timeouts are the
table's. The fault is reproduced when the firmware raises the same fault at the same
place.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware.diagnosis.recorder import RECORD_S, RECORDING
from firmware.faults.shutdown import SAFE_STATE
from firmware.i18n import _
from hal.armed import Capabilities, OnStopped, PinStops, StopSpec
from hal.interface import Listener
from mjtable_core import jsontext
from mjtable_core.config import Config
from mjtable_core.oserror import said
from mjtable_core.signals import OUTPUT_KINDS, Value
from simulator.harness.runner import assemble
from simulator.physics.table import SimTable
from simulator.rigs.backend import SimHal

HANDS_TO_ANCHOR = 4         # healthy hands the simulator may take to reach the anchor
AFTER_FAULT_S = 5.0         # how long past the recorded fault it may come
SAME_TIME_S = 0.05          # a command this close to the recorded one is the same
# A recorded entry is (time, kind "i"/"o"/"a", name, value, ...): its first four fields.
ENTRY_FIELDS = 4


class RecordingError(ValueError):
    """A file or log row that is not a flight recording; `str()` says why."""


class ReplayRandom(random.Random):
    """The firmware's random source in a replay: the dice tumble as long as they did
    on the table (the recorded motor on to off), then the simulation's seed."""

    def __init__(self, seed: str) -> None:
        super().__init__(seed)
        self.spins: list[float] = []

    def uniform(self, a: float, b: float) -> float:
        return self.spins.pop(0) if self.spins else super().uniform(a, b)


def spins(entries: list[list[Any]]) -> list[float]:
    """How long each recorded dice throw tumbled: motor.dice on to off."""
    out, started = [], None
    for t, what, signal, value, *_rest in entries:
        if what == "o" and signal == "motor.dice":
            if value and started is None:
                started = float(t)
            elif not value and started is not None:
                out.append(float(t) - started)
                started = None
    return out


def fed_entries(recording: dict[str, Any]) -> list[list[Any]]:
    """The recorded input edges to feed: those before the fault's stop began. The
    edges after it (a belt sliding back once its conveyor stopped) are what the stop
    did, not what led to the fault: the firmware makes them happen again itself."""
    entries = recording["entries"]
    stop = recording.get("stop_at")
    stop = len(entries) if not isinstance(stop, int) else stop
    return [e for e in entries[:stop] if e[1] == "i"]


class ReplayHal(SimHal):
    """The simulated HAL whose inputs, from the anchor on, are the recording's."""

    def __init__(self, table: SimTable, board_time: bool) -> None:
        super().__init__(table)
        self.capabilities = Capabilities(armed_stops=True, board_time=board_time)
        self._entropy = self.rng = ReplayRandom(f"mjtable-dice-{table.seed}")
        self.playing = False
        self.values: dict[str, Value] = {}
        self.stamps: dict[str, float] = {}
        self.commands: list[tuple[float, str, Value]] = []
        self._deliver: Listener | None = None
        self.on_command: Callable[[str, Value], None] | None = None
        self.stops = PinStops(table.clock, self.signals, table.command, self.read)
        table.listener = self.stops.on_input

    def read(self, name: str) -> Value:
        if self.playing and name in self.values:
            return self.values[name]
        return self.table.values[name]

    def _note(self, name: str, value: Value) -> None:
        if self.playing:
            self.commands.append((self.table.clock.now(), name, value))
            if self.on_command is not None:
                self.on_command(name, value)

    def write(self, name: str, value: Value) -> None:
        self._note(name, value)
        super().write(name, value)

    def arm(self, spec: StopSpec, on_stopped: OnStopped) -> None:
        self._note(spec.output, spec.value)
        super().arm(spec, on_stopped)

    def safe_state(self, outputs: Collection[str] | None = None) -> None:
        if outputs is None:         # a scope's stop is noted write by write
            self._note(SAFE_STATE, True)
        super().safe_state(outputs)

    def listen(self, listener: Listener) -> None:
        def changed(name: str, value: Value) -> None:
            self.stops.on_input(name, value)
            listener(name, value)

        def physics(name: str, value: Value) -> None:
            if not self.playing:        # from the anchor on, the recording is the world
                changed(name, value)
        self._deliver = changed
        self.table.listener = physics

    def feed(self, name: str, value: Value, board_t: float | None = None) -> None:
        """One recorded edge, as the pin would give it."""
        if board_t is not None:
            self.stamps[name] = board_t
        if self.values.get(name) == value:
            return
        self.values[name] = value
        assert self._deliver is not None
        self._deliver(name, value)

    def changed_at(self, name: str) -> float | None:
        return self.stamps.get(name) if self.playing else None


@dataclass
class Replay:
    """What a replay showed: one line per step, and whether the fault came again."""

    lines: list[str] = field(default_factory=list)
    reproduced: bool = False


def load_recording(path: Path) -> dict[str, Any]:
    """A recording from an exported file: one JSON object, or JSON lines of the event
    log (the first flight recording in it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(_("{file}: not UTF-8 text: {error}").format(
            file=path, error=jsontext.not_utf8(exc))) from None
    except OSError as exc:
        raise RecordingError(_("{path}: cannot be read: {error}").format(
            path=path, error=said(exc))) from None
    rows: list[Any] = []
    try:
        rows = [jsontext.loads(text)]
    except json.JSONDecodeError:
        try:
            rows = [jsontext.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise RecordingError(_("{path}: not JSON: {error}").format(
                path=path, error=jsontext.why(exc))) from None
    for row in rows:
        if isinstance(row, dict) and (row.get("kind") in (RECORDING, None)):
            return checked(row, str(path))
    raise RecordingError(_("{path}: holds no flight recording").format(path=path))


def checked(row: dict[str, Any], source: str) -> dict[str, Any]:
    """`row` if it has the shape of a recording (every field the replay reads, of the
    type the recorder writes, its times finite and its start within RECORD_S of the
    fault), else RecordingError: a crafted file is one line, never a traceback."""
    fault, entries = row.get("fault"), row.get("entries")
    anchor = row.get("anchor")
    if not (isinstance(fault, dict) and isinstance(fault.get("id"), str)
            and all(_text(fault.get(k)) for k in ("code", "where"))
            and isinstance(entries, list) and _number(row.get("fault_t"))
            and (row.get("tiles") is None or _integer(row.get("tiles")))
            and (anchor is None or _anchor(anchor, row["fault_t"]))
            and all(_entry(e) for e in entries)):
        raise RecordingError(_("{source}: not a flight recording").format(source=source))
    return row


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and \
        math.isfinite(value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _value(value: Any) -> bool:
    """What a signal reads: a level, a count, a code, or nothing."""
    return value is None or isinstance(value, bool | str) or _number(value)


def _entry(entry: Any) -> bool:
    return (isinstance(entry, list) and ENTRY_FIELDS <= len(entry) <= ENTRY_FIELDS + 1
            and _number(entry[0]) and entry[1] in ("i", "o", "a")
            and isinstance(entry[2], str) and _value(entry[3])
            and (len(entry) == ENTRY_FIELDS or entry[4] is None or _number(entry[4])))


def _anchor(anchor: Any, fault_t: float) -> bool:
    """An anchor as firmware/diagnosis/recorder.py writes it, at most RECORD_S before the fault."""
    if not isinstance(anchor, dict):
        return False
    state, t = anchor.get("state"), anchor.get("t")
    inputs, timings = anchor.get("inputs", {}), anchor.get("timings", {})
    slow, misses = anchor.get("slow", {}), anchor.get("misses", {})
    return (isinstance(anchor.get("kind"), str) and _text(anchor.get("phase"))
            and isinstance(state, dict) and isinstance(state.get("cycle"), str)
            and isinstance(state.get("build"), str)
            and _number(t) and 0 <= fault_t - t <= RECORD_S + 1
            and isinstance(inputs, dict) and all(_value(v) for v in inputs.values())
            and isinstance(timings, dict) and all(
                isinstance(runs, list) and all(_number(r) and r > 0 for r in runs)
                for runs in timings.values())
            and isinstance(slow, dict) and all(isinstance(f, list) for f in slow.values())
            and isinstance(misses, dict) and all(_integer(n) for n in misses.values())
            and all(isinstance(anchor.get(k, []), list)
                    and all(isinstance(n, str) for n in anchor.get(k, []))
                    for k in ("suspects", "degraded")))


def replay(recording: dict[str, Any], config: Config, seed: int = 1,
           say: Callable[[str], None] | None = None) -> Replay:
    """Run `recording` again; `say` gets each line as it is made."""
    out = Replay()

    def line(text: str) -> None:
        out.lines.append(text)
        if say is not None:
            say(text)

    fault = recording["fault"]
    anchor = recording.get("anchor")
    name = f"{fault.get('code')} {fault['id']} {_('at')} {fault.get('where')}"
    if anchor is None:
        line(_("the recording of {fault} does not reach back to a point the table can be "
               "started from (a build starting, or the table at rest): it cannot be "
               "replayed").format(fault=name))
        return out
    if recording.get("tiles") not in (None, config.table.tiles):
        line(_("the recording is of a {tiles}-tile table; this config is of {ours} "
               "tiles").format(tiles=recording["tiles"], ours=config.table.tiles))
        return out
    board_time = bool(recording.get("board_time"))
    wired = assemble(config, seed, hal=lambda table: ReplayHal(table, board_time),
                     consumers=False)
    clock, table, ctl, players = wired.clock, wired.table, wired.controller, wired.players
    hal = wired.hal
    assert isinstance(hal, ReplayHal)
    state: dict[str, Any] = {"at": None, "fault": None}
    inputs = set(anchor.get("inputs", {}))

    def at_anchor(event: dict[str, Any]) -> bool:
        return (event["kind"] == anchor["kind"] and event.get("state") == anchor.get("phase")
                and {"cycle": ctl.cycle.state, "build": ctl.build.state} == anchor["state"])

    def on_event(event: dict[str, Any]) -> None:
        if state["at"] is None:
            if at_anchor(event):
                state["at"] = clock.now()
                start_playing()
            return
        if event["kind"] == "fault" and state["fault"] is None:
            offset = clock.now() - state["at"]
            line(_("+{t:8.3f} s  FAULT {code} {id} at {where}").format(
                t=offset, code=event["code"], id=event["id"], where=event["where"]))
            if (event["id"], event["where"]) == (fault["id"], fault.get("where")):
                state["fault"] = offset

    def start_playing() -> None:
        line(_("the simulated table reached the recording's start ({kind} {phase}, cycle "
               "{cycle}, build {build}) at {t:.1f} s: from here every input is the "
               "recorded one").format(kind=anchor["kind"], phase=anchor.get("phase") or "",
                                      cycle=anchor["state"]["cycle"],
                                      build=anchor["state"]["build"], t=clock.now()))
        supervisor = ctl.supervisor
        supervisor.restore({"runs": anchor.get("timings", {}),
                            "degraded": anchor.get("degraded", [])})
        supervisor.misses.update(anchor.get("misses", {}))
        supervisor.suspects.update(anchor.get("suspects", []))
        for key, flags in anchor.get("slow", {}).items():
            recent = supervisor._slow.get(key)
            if recent is not None:
                recent.clear()
                recent.extend(bool(f) for f in flags)
        hal.values = {n: table.values[n] for n in table.values
                      if table.signals[n].kind not in OUTPUT_KINDS}
        hal.playing = True
        hal.rng.spins = spins(recording["entries"])
        now, t0 = clock.now(), float(anchor["t"])
        # An input that already differed at the anchor (a sensor stuck before it) is
        # the level the firmware finds there, not an edge: on the table its edge came
        # earlier, where the firmware took it for what it was then; fed now it would be
        # taken for a tile or a home arriving after the start.
        for n, value in anchor.get("inputs", {}).items():
            if n in hal.values and hal.values[n] != value:
                hal.values[n] = value
                line(_("+{t:8.3f} s  {signal} is {value} from the start").format(
                    t=0.0, signal=n, value=_word(value)))
        for entry in fed_entries(recording):
            t = float(entry[0])
            if t < t0 or entry[2] not in inputs:
                continue
            board = float(entry[4]) if len(entry) > 4 and entry[4] is not None else None
            clock.call_at(now + (t - t0), lambda e=entry, b=board: fed(
                float(e[0]) - t0, e[2], e[3], None if b is None else now + (b - t0)))

    def fed(offset: float, signal: str, value: Value, board_t: float | None) -> None:
        line(_("+{t:8.3f} s  {signal} → {value}").format(t=offset, signal=signal,
                                                         value=_word(value)))
        hal.feed(signal, value, board_t)

    def commanded(signal: str, value: Value) -> None:
        if signal == SAFE_STATE or table.signals[signal].is_motor:
            line(_("+{t:8.3f} s      firmware: {signal} ← {value}").format(
                t=clock.now() - state["at"], signal=signal, value=_word(value)))

    hal.on_command = commanded
    ctl.subscribers.append(on_event)
    ctl.start()
    players.start()
    play = config.simulator.play_time_s + 900.0
    clock.run_until(HANDS_TO_ANCHOR * play, until=lambda: state["at"] is not None)
    if state["at"] is None:
        line(_("the simulated table never reached the recording's start ({kind} {phase}, "
               "cycle {cycle}, build {build}) in {hands} hands: it cannot be replayed").format(
                   kind=anchor["kind"], phase=anchor.get("phase") or "",
                   cycle=anchor["state"]["cycle"], build=anchor["state"]["build"],
                   hands=HANDS_TO_ANCHOR))
        return out
    start, recorded_at = state["at"], float(recording["fault_t"]) - float(anchor["t"])
    clock.run_until(start + recorded_at + AFTER_FAULT_S,
                    until=lambda: state["fault"] is not None)
    _compare(recording, hal.commands, start, float(anchor["t"]), line)
    if state["fault"] is not None:
        out.reproduced = True
        line(_("reproduced: {fault} raised again at +{t:.3f} s (on the table at +{was:.3f} "
               "s)").format(fault=name, t=state["fault"], was=recorded_at))
    else:
        line(_("NOT reproduced: {fault} did not come within {s:g} s of +{was:.3f} s").format(
            fault=name, s=AFTER_FAULT_S, was=recorded_at))
    return out


def _compare(recording: dict[str, Any], commands: list[tuple[float, str, Value]],
             start: float, t0: float, line: Callable[[str], None]) -> None:
    """The commands of the table beside the firmware's in the replay: one figure."""
    recorded = [(float(e[0]) - t0, e[2], e[3]) for e in recording["entries"]
                if e[1] == "o" and float(e[0]) >= t0]
    replayed = [(t - start, n, v) for t, n, v in commands]
    matched = 0
    for t, n, v in recorded:
        hit = next((c for c in replayed if c[1:] == (n, v) and abs(c[0] - t) <= SAME_TIME_S),
                   None)
        if hit is not None:
            replayed.remove(hit)
            matched += 1
    line(_("commands: {matched} of {recorded} recorded ones given again by the firmware at "
           "the same time").format(matched=matched, recorded=len(recorded)))


def _word(value: Value) -> str:
    if value is True:
        return _("on")
    if value is False:
        return _("off")
    return str(value)
