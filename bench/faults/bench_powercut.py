"""Power cuts, for real: SIGKILL the daemon at random instants, restart it, check it.

The physical table lives on in its own process: the I/O-board emulator serving the
simulated table and players on socket://127.0.0.1:PORT, with a control socket
(simulator/rigs/board_control.py) that tells the physical truth and does the refeed. The
daemon is the real `mjtable run` on the real clock (a --speed factor keeps it fast),
with its journal and event log in a state directory.

Each instant targets one phase of the cycle in turn (build, lid up, lid down, raise,
dice, play): the harness waits for the daemon's own phase line, waits a random part of
that phase, kills the daemon with SIGKILL and restarts it. Then it checks that:

- the journal and the event log open cleanly;
- `power.recovered` (I92) is raised;
- every mechanism is re-homed: lid down and every cam home (API status and signals);
- learned timings and fault history are intact (journal before and after);
- the technician's refeed/clear works when the firmware holds for it;
- the next cycle completes, and every handoff's walls are the walls physically on the
  table: complete, one set, the same tiles in the same places.

    python -m bench.faults.bench_powercut --instants 200 [--speed 5] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import re
import secrets
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.helpers import children
from firmware import statedir
from firmware.api.auth import Technicians
from firmware.api.client import Client, ClientError
from firmware.machines.build import RUNNING
from firmware.machines.cycle import CycleState
from firmware.machines.lid import LidState
from firmware.state.journal import FILE_NAME as JOURNAL_NAME
from mjtable_core.config import DEFAULT_CONFIG
from mjtable_core.geometry import REFERENCE

# Targets in the order the cycle reaches them after a handoff, so no cycle is wasted.
PHASES = ("play", "lid_up", "lid_down", "raise", "build", "dice")
# The daemon's line that starts each phase, and how long (table seconds) it lasts.
TRIGGER = {"play": "handoff", "lid_up": "opening", "lid_down": "closing",
           "raise": "raising", "build": "build.started", "dice": "rolling"}
WINDOW_S = {"play": 9.0, "lid_up": 1.4, "lid_down": 1.4, "raise": 2.4, "build": 20.0,
            "dice": 3.0}
TECHNICIAN = "bench"
LINK_SLACK_S = 3.0
TIMEOUT_FACTOR = 8.0      # head watchdog 0.45 s × 8 = 3.6 s > LINK_SLACK_S
# Both ends resend every RETRANSMIT_S and give up after MAX_RETRIES: an end that gives
# up sooner than the other's silence limit turns a slow peer into a lost link.
RETRANSMIT_S = 0.1
MAX_RETRIES = 40
# The emulated table's home windows are the model's own (a head's 0.05 of its turn, a
# plate's 0.04): heads and plates are armed stops, stopped by the board at the edge
# however late the daemon runs, so the bench no longer widens them nor renices its
# processes (it did both while the daemon stopped them from its loop).
# Faults a healthy table on a loaded host may show besides the power cut itself.
BENIGN = {"power.recovered", "timing.drift", "build.slow"}


def bench_config(path: Path, port_url: str, play_time_s: float = 10.0) -> Path:
    """The reference table behind the I/O board, with short hands and a handoff file."""
    text = DEFAULT_CONFIG.read_text()
    text = re.sub(r'(?m)^backend = .*$', 'backend = "ioboard"', text)
    text = re.sub(r'(?m)^play_time_s = .*$', f"play_time_s = {play_time_s}", text)
    # Bounces of a few table-milliseconds are below what a loaded host can time at speed.
    text = re.sub(r'(?m)^count_bounce = .*$', "count_bounce = 0.0", text)
    # The link's slack must stay below the shortest motion watchdog (a config rule: a
    # silent board is link.lost, not a stuck head), so the watchdogs get slack too.
    text = re.sub(r'(?m)^timeout_factor = .*$', f"timeout_factor = {TIMEOUT_FACTOR}", text)
    text = re.sub(r'(?m)^(prevalent_wind = .*)$', r'\1\nhandoff_file = "handoffs.jsonl"', text)
    # A loaded host (CI, two cores) stalls a process for tens of ms: at speed that is
    # table-seconds, so the link is given slack; motion watchdogs keep their defaults.
    text += (f'\n[ioboard]\nport = "{port_url}"\nlink_timeout_s = {LINK_SLACK_S}\n'
             f'retransmit_s = {RETRANSMIT_S}\nmax_retries = {MAX_RETRIES}\n')
    path.write_text(text)
    return path


class Lines:
    """A child process's stdout as lines, read by a thread.

    `on_line` sees each line as it arrives, in that thread: a handoff is checked
    against the table at once, not when the bench next reads its queue (by then the
    players may have pushed the walls in).
    """

    def __init__(self, proc: subprocess.Popen[str], on_line: Callable[[str], None]) -> None:
        self.queue: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        self.on_line = on_line
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip("\n")
            self.on_line(line)
            self.queue.put(line)
        self.queue.put(None)

    def next(self, timeout: float) -> str | None:
        """The next line; '' on timeout; None when the process closed stdout."""
        try:
            line = self.queue.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return ""
        if line is not None:
            self.log.append(line)
            del self.log[:-200]
        return line


class Board:
    """The emulator process: the physical table, its players and the control socket."""

    def __init__(self, workdir: Path, speed: float, seed: int, play_time_s: float) -> None:
        self.control = workdir / "board.sock"
        config = bench_config(workdir / "board.toml", "socket://127.0.0.1:1", play_time_s)
        self.proc = children.spawn(
            [sys.executable, "-m", "simulator.rigs.ioboard_emulator", "--listen", "0",
             "--config", str(config), "--speed", str(speed), "--seed", str(seed),
             "--heartbeat-limit", str(LINK_SLACK_S), "--retransmit", str(RETRANSMIT_S),
             "--max-retries", str(MAX_RETRIES), "--control", str(self.control)],
            cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        match = re.search(r"socket://127\.0\.0\.1:\d+", first)
        if not match:
            self.close()
            raise RuntimeError(f"emulator did not start: {first!r}")
        self.url = match.group(0)

    def ask(self, do: str) -> dict[str, Any]:
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5.0)
            sock.connect(str(self.control))
            sock.sendall(json.dumps({"do": do}).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        return json.loads(data)

    def close(self) -> None:
        children.stop(self.proc, 5.0)


class Daemon:
    """`mjtable run` on the real clock; killed with SIGKILL, restarted on the same state."""

    def __init__(self, config: Path, state: Path, speed: float,
                 on_line: Callable[[str], None]) -> None:
        self.config, self.state, self.speed = config, state, speed
        self.on_line = on_line
        self.socket = state / statedir.SOCKET_NAME
        self.proc: subprocess.Popen[str] | None = None
        self.lines: Lines | None = None

    def start(self) -> None:
        exe = Path(sys.executable).parent / "mjtable"
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "mjtable.cli"]
        self.proc = children.spawn(
            [*cmd, "--state-dir", str(self.state), "run", "--plain", "--config",
             str(self.config), "--socket", str(self.socket), "--speed", str(self.speed)],
            cwd=self.state, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "MJTABLE_LANG": "en"})   # the lines below are read in English
        self.lines = Lines(self.proc, self.on_line)

    def kill(self) -> None:
        """The power cut: no signal handler, no clean stop, no last journal write."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None:
            children.stop(self.proc, 10.0)

    def api(self, technician: tuple[str, str] | None = None) -> Client:
        return Client(self.socket, timeout=5.0, technician=technician)


class Failure(Exception):
    """One instant's check failed; the message says which and why."""


class PowerCutBench:
    def __init__(self, workdir: Path, speed: float = 5.0, seed: int = 1,
                 log: Any = None, play_time_s: float = 10.0) -> None:
        self.workdir, self.speed = workdir, speed
        self.rng = random.Random(seed)
        self.log = log or (lambda _msg: None)
        self.state = workdir / "state"
        self.token = secrets.token_hex(16)
        Technicians(self.state / statedir.TECHNICIANS_NAME).add(TECHNICIAN, self.token)
        self.board = Board(workdir, speed, seed, play_time_s)
        config = bench_config(workdir / "daemon.toml", self.board.url, play_time_s)
        self.daemon = Daemon(config, self.state, speed, self._look_at)
        # Handoff checks that failed in the reader thread, raised by the next wait_for.
        self.late: list[str] = []
        self.handoffs_checked = 0
        self.wrong_handoffs = 0
        self.refeeds = 0
        self.other_faults: Counter[str] = Counter()

    # -- waiting on the daemon's lines ----------------------------------------------

    def _wall(self, table_s: float) -> float:
        return table_s / self.speed

    def wait_for(self, pattern: str, table_s: float) -> str:
        """Read lines until one matches; every handoff on the way is checked."""
        assert self.daemon.lines is not None
        deadline = time.monotonic() + self._wall(table_s)
        while True:
            line = self.daemon.lines.next(deadline - time.monotonic())
            if line is None:
                raise Failure(f"daemon exited (rc {self.daemon.proc.wait()}) waiting for "
                              f"{pattern!r}; last lines: {self.daemon.lines.log[-5:]}")
            if line == "":
                raise Failure(f"no {pattern!r} within {table_s} table s; "
                              f"last lines: {self.daemon.lines.log[-5:]}")
            if self.late:
                raise Failure(self.late.pop(0))
            if re.search(pattern, line):
                return line

    def _look_at(self, line: str) -> None:
        """Each line as the daemon prints it (the reader thread)."""
        handoff = re.search(r" handoff hand (\d+) set ", line)
        if handoff:
            try:
                self.check_handoff(int(handoff.group(1)))
            except (Failure, OSError, ValueError) as exc:
                self.late.append(str(exc))
        match = re.search(r"FAULT \S+ (\S+) at", line)
        if match and match.group(1) not in BENIGN:
            self.other_faults[match.group(1)] += 1

    # -- checks -----------------------------------------------------------------------

    def check_handoff(self, cycle: int) -> None:
        """The record handed off is the walls standing on the table, tile for tile."""
        self.handoffs_checked += 1
        physical = self.board.ask("walls")
        record = self._record(cycle)
        problem = None
        sets = {tile[1] for wall in physical["walls"] for stack in wall for tile in stack}
        codes = [[[tile[0] for tile in stack] for stack in wall] for wall in physical["walls"]]
        if not physical["up"]:
            problem = "walls not fully up on the table"
        elif record is None:
            problem = "no handoff record in the handoff file"
        elif sets != {record["table"]["set"]}:
            problem = f"sets on the table {sorted(sets)}, record says {record['table']['set']}"
        elif record["walls"] != codes:
            problem = "the record's walls differ from the table's"
        if problem:
            self.wrong_handoffs += 1
            raise Failure(f"wrong handoff: {problem}")

    def _record(self, cycle: int) -> dict[str, Any] | None:
        path = self.state / "handoffs.jsonl"
        for _ in range(200):     # the consumer appends just after the event line
            lines = path.read_text().splitlines() if path.exists() else []
            for line in reversed(lines[-3:]):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if record["table"]["cycle"] == cycle:
                    return record
            time.sleep(0.01)
        return None

    def check_files(self) -> dict[str, Any]:
        """After the cut: the journal parses and the event log passes its integrity check."""
        try:
            journal = json.loads((self.state / JOURNAL_NAME).read_text())
        except (OSError, ValueError) as exc:
            raise Failure(f"journal unreadable after the cut: {exc}") from None
        if journal.get("clean"):
            raise Failure("journal says clean after a SIGKILL")
        db = sqlite3.connect(self.state / statedir.EVENT_LOG_NAME)
        try:
            verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            raise Failure(f"event log does not open: {exc}") from None
        finally:
            db.close()
        if verdict != "ok":
            raise Failure(f"event log integrity: {verdict}")
        return journal

    def check_journal_kept(self, before: dict[str, Any]) -> None:
        """Learned timings and fault history survived: the new journal continues the old."""
        after = json.loads((self.state / JOURNAL_NAME).read_text())
        for mechanism, runs in before.get("timings", {}).get("runs", {}).items():
            now = after.get("timings", {}).get("runs", {}).get(mechanism)
            if now is None or not _continues(runs, now):
                raise Failure(f"learned timing {mechanism} lost: {runs[-3:]} -> "
                              f"{(now or [])[-3:]}")
        if set(before.get("timings", {}).get("degraded", [])) - set(
                after.get("timings", {}).get("degraded", [])):
            raise Failure("degraded-sensor list lost")
        old = [_fault_key(f) for f in before.get("faults", [])]
        new = [_fault_key(f) for f in after.get("faults", [])]
        if not _continues(old, new):
            raise Failure(f"fault history lost: {len(old)} faults before the cut, "
                          f"{len(set(old) & set(new))} of them after")
        if after.get("cycle", 0) < before.get("cycle", 0):
            raise Failure(f"cycle counter went back {before.get('cycle')} -> "
                          f"{after.get('cycle')}")

    def check_rehomed(self) -> dict[str, Any]:
        """Lid down and every cam home, seen through the API."""
        deadline = time.monotonic() + self._wall(20.0)
        last: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                with self.daemon.api() as api:
                    last = api.call("status")
            except ClientError:
                time.sleep(0.02)
                continue
            values = {name: s["value"] for name, s in last["signals"].items()}
            cams = all(values[f"side.{n}.{c}"] for n in REFERENCE.sides
                       for c in ("head_home", "plate_home"))
            if (last["lid"] == LidState.CLOSED and values["lid.lower"] and cams
                    and last["state"] != CycleState.HOMING):
                return last
            time.sleep(0.02)
        off = [name for name, s in last.get("signals", {}).items()
               if name.endswith(("head_home", "plate_home")) and not s["value"]]
        raise Failure(f"not re-homed: cycle {last.get('state')}, lid {last.get('lid')}, "
                      f"plates {last.get('plates')}, sides "
                      f"{[s['state'] for s in last.get('sides', [])]}, off home {off}; "
                      f"last lines: {self.daemon.lines.log[-8:] if self.daemon.lines else []}")

    def technician(self) -> None:
        """Refeed on the table and clear through the API wherever the firmware holds."""
        with self.daemon.api((TECHNICIAN, self.token)) as api:
            active = api.call("faults")["active"]
            ids = {f["id"] for f in active if f["diagnosis"]["severity"] != "warning"}
            if "build.extra_tiles" in ids:
                self.board.ask("remove_extra")
            if ids:     # a hold after a cut (or a count gone wrong): refeed, then clear
                self.board.ask("refeed")
                self.refeeds += 1
            for fault_id in sorted(ids):
                api.call("clear", {"fault": fault_id, "refed": True})

    # -- one instant ------------------------------------------------------------------

    def instant(self, phase: str, previous: str) -> dict[str, Any]:
        """Cut in `phase`; `previous` is the last line waited for (a handoff starts play)."""
        line = previous if phase == "play" and " handoff hand " in previous else \
            self.wait_for(rf"\b{re.escape(TRIGGER[phase])}\b", 400.0)
        delay = self.rng.uniform(0.0, WINDOW_S[phase])
        time.sleep(self._wall(delay))
        self.daemon.kill()
        before = self.check_files()
        at = {"phase": phase, "after": line.split(None, 1)[-1], "delay_s": round(delay, 2),
              "build": before.get("build"), "cycle": before.get("cycle")}
        self.daemon.start()
        self.wait_for(r"FAULT I92 power\.recovered", 60.0)
        self.check_journal_kept(before)
        self.check_rehomed()
        self.technician()
        at["next"] = self.wait_for(r" handoff hand ", 400.0)
        state = self.board.ask("state")
        if not state["tiles_accounted"]:
            raise Failure("tiles not accounted for on the table")
        return at

    def recover_after_failure(self) -> str:
        """Put the table back in working order so the next instant means something."""
        try:
            # A daemon that still runs may be stuck where the failure left it: stop it
            # cleanly, as a technician would switch the table off and on.
            self.daemon.stop()
            self.late.clear()
            self.daemon.start()
            self.wait_for(r"\bstart\b", 60.0)
            self.technician()
            return self.wait_for(r" handoff hand ", 400.0)
        except (Failure, ClientError, OSError) as exc:
            self.log(f"  could not recover: {exc}")
            return ""

    def _tiles(self) -> dict[str, int]:
        """Where the tiles physically are (for a failure's report); {} if unknown."""
        try:
            return self.board.ask("where")["where"]
        except (OSError, ValueError, KeyError):
            return {}

    def run(self, instants: int, phases: tuple[str, ...] = PHASES) -> dict[str, Any]:
        wall_start = time.monotonic()
        per_phase: Counter[str] = Counter()
        failed: Counter[str] = Counter()
        builds_cut = 0
        failures: list[dict[str, Any]] = []
        self.daemon.start()
        try:
            previous = self.wait_for(r" handoff hand ", 400.0)
            for i in range(instants):
                phase = phases[i % len(phases)]
                per_phase[phase] += 1
                try:
                    at = self.instant(phase, previous)
                    previous = at["next"]
                    builds_cut += at["build"] in RUNNING
                    self.log(f"{i + 1:4d} {phase:8s} ok   (+{at['delay_s']} s after "
                             f"{at['after']!r}, build {at['build']})")
                except (Failure, ClientError, OSError) as exc:
                    failed[phase] += 1
                    failures.append({"instant": i + 1, "phase": phase, "reason": str(exc),
                                     "tiles": self._tiles()})
                    self.log(f"{i + 1:4d} {phase:8s} FAIL {exc}")
                    previous = self.recover_after_failure()
        finally:
            self.daemon.stop()
            self.board.close()
        return {"instants": instants, "failures": len(failures),
                "per_phase": {p: {"tried": per_phase[p], "failed": failed[p]} for p in phases},
                "cut_during_build": builds_cut, "refeeds": self.refeeds,
                "handoffs_checked": self.handoffs_checked,
                "wrong_handoffs": self.wrong_handoffs,
                "other_faults": dict(self.other_faults), "speed": self.speed,
                "wall_time_s": round(time.monotonic() - wall_start, 1),
                "failure_list": failures}


def _fault_key(fault: dict[str, Any]) -> tuple[Any, ...]:
    return (fault.get("id"), fault.get("where"), fault.get("cycle"), fault.get("sim_time_s"))


def _continues(old: list[Any], new: list[Any], cap: int = 50) -> bool:
    """`new` is `old` with entries appended; only a full list (`cap`) drops its oldest."""
    if len(new) < cap:
        return new[:len(old)] == old
    return any(old[dropped:] == new[:len(old) - dropped] for dropped in range(len(old)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.faults.bench_powercut",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--instants", type=int, default=200)
    parser.add_argument("--speed", type=float, default=5.0,
                        help="table seconds per wall second for both processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--phases", default=",".join(PHASES),
                        help=f"comma-separated, in this order: {','.join(PHASES)}")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    children.install()
    phases = tuple(p for p in args.phases.split(",") if p)
    if not phases or set(phases) - set(PHASES):
        parser.error(f"--phases: choose from {', '.join(PHASES)}")
    with tempfile.TemporaryDirectory(prefix="mjtable-powercut-") as tmp:
        bench = PowerCutBench(Path(tmp), args.speed, args.seed,
                              log=None if args.json else lambda m: print(m, flush=True))
        report = bench.run(args.instants, phases)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"instants {report['instants']}, failures {report['failures']}, "
              f"wall {report['wall_time_s']} s at speed {report['speed']}")
        for phase, counts in report["per_phase"].items():
            print(f"  {phase:8s} tried {counts['tried']:4d} failed {counts['failed']:3d}")
        print(f"  cut during a build {report['cut_during_build']}, refeeds "
              f"{report['refeeds']}, handoffs checked {report['handoffs_checked']}, "
              f"wrong {report['wrong_handoffs']}, other faults {report['other_faults']}")
        for failure in report["failure_list"]:
            print(f"  FAIL #{failure['instant']} {failure['phase']}: {failure['reason']}")
            print(f"    tiles then: {failure['tiles']}")
    return 0 if report["failures"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
