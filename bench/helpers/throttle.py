"""Hold a process to a share of one core, as a Pi-class board would give the daemon.

In order of preference: a transient cgroup v2 group (`cpu.max`), a cgroup v1 `cpu`
group (`cpu.cfs_quota_us`), or, where neither may be created, a duty cycle of SIGSTOP
and SIGCONT from a thread. `hold` says which it used; `release` undoes it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

PERIOD_US = 100_000
V2 = Path("/sys/fs/cgroup")
V1 = Path("/sys/fs/cgroup/cpu")


class Throttle:
    def __init__(self, pid: int, share: float) -> None:
        self.pid = pid
        self.share = share
        self.method = "none"
        self._group: Path | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def hold(self) -> str:
        quota = int(PERIOD_US * self.share)
        name = f"mjtable-bench-{os.getpid()}-{self.pid}"
        with contextlib.suppress(OSError):
            if (V2 / "cgroup.controllers").exists():
                group = V2 / name
                group.mkdir()
                self._group = group
                (group / "cpu.max").write_text(f"{quota} {PERIOD_US}\n")
                (group / "cgroup.procs").write_text(f"{self.pid}\n")
                self.method = f"cgroup v2 cpu.max {quota} {PERIOD_US}"
                return self.method
        self._remove_group()
        with contextlib.suppress(OSError):
            if (V1 / "cpu.cfs_quota_us").exists():
                group = V1 / name
                group.mkdir()
                self._group = group
                (group / "cpu.cfs_period_us").write_text(f"{PERIOD_US}\n")
                (group / "cpu.cfs_quota_us").write_text(f"{quota}\n")
                # Every thread of the daemon (the event-log writer, executors).
                for task in os.listdir(f"/proc/{self.pid}/task"):
                    (group / "tasks").write_text(f"{task}\n")
                (group / "cgroup.procs").write_text(f"{self.pid}\n")
                self.method = f"cgroup v1 cpu.cfs_quota_us {quota}/{PERIOD_US}"
                return self.method
        self._remove_group()
        self._thread = threading.Thread(target=self._duty, daemon=True)
        self._thread.start()
        self.method = f"SIGSTOP/SIGCONT duty cycle {self.share:.0%} of {PERIOD_US // 1000} ms"
        return self.method

    def _duty(self) -> None:
        run_s = PERIOD_US * self.share / 1e6
        stop_s = PERIOD_US / 1e6 - run_s
        while not self._stop.is_set():
            time.sleep(run_s)
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGSTOP)
            time.sleep(stop_s)
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGCONT)

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGCONT)
        self._remove_group()

    def _remove_group(self) -> None:
        if self._group is None:
            return
        parent = self._group.parent
        # A group is removed only once it holds nothing: move what is left out.
        with contextlib.suppress(OSError):
            for line in (self._group / "cgroup.procs").read_text().split():
                (parent / "cgroup.procs").write_text(f"{line}\n")
        with contextlib.suppress(OSError):
            self._group.rmdir()
        self._group = None
