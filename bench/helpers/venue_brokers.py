"""Brokers for the venue tests and benches: a real Mosquitto on a free 127.0.0.1 port with its own
generated config (never the system one), with per-table ACLs and no anonymous users."""

from __future__ import annotations

import getpass
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

# Children go through bench.helpers.children.spawn; the benches' mains call
# children.install(), so a killed bench stops its brokers and daemons too.
from bench.helpers import children

VENUE_USER, VENUE_PASSWORD = "venue", "venue-secret"


def own_machine(module: str, argv: list[str]) -> int:
    """Run `python -m module argv` in a session of its own whose autogroup is niced to
    -20 (root): Linux shares the CPU between sessions before nice values count, so on a
    machine loaded by other jobs this is the way to measure as on a venue's own one."""
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", module, *argv])
    return subprocess.run(["setsid", "-w", "sh", "-c",
                           f"echo -20 > /proc/self/autogroup && exec {command}"],
                          check=False).returncode


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def table_password(table: str) -> str:
    return f"pw-{table}"


class Mosquitto:
    """`mosquitto -c` on its own config; tables write only under mjt/v1/<their user>/."""

    def __init__(self, directory: Path, tables: list[str], extra: str = "",
                 port: int | None = None, users: dict[str, str] | None = None,
                 acl: str = "") -> None:
        self.directory = directory
        self.port = port or free_port()
        self.tables = tables
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)
        passwords = directory / "passwd"
        # Plain "user:password" lines, hashed in place at once (-U): fast for a fleet.
        passwords.write_text("".join(
            f"{user}:{password}\n" for user, password in [
                (VENUE_USER, VENUE_PASSWORD), *((t, table_password(t)) for t in tables),
                *(users or {}).items()]))
        subprocess.run(["mosquitto_passwd", "-U", str(passwords)], check=True,
                       capture_output=True)
        (directory / "acl").write_text(
            f"user {VENUE_USER}\ntopic readwrite mjt/v1/#\ntopic read homeassistant/#\n\n"
            f"{acl}\n"
            "pattern write mjt/v1/%u/#\npattern read mjt/v1/%u/cmd\n"
            # Home Assistant discovery (docs/venue.md): each table under its own node id.
            "pattern write homeassistant/+/%u/#\n")
        self.conf = directory / "mosquitto.conf"
        self.conf.write_text(
            # Started as root it would switch to the user "mosquitto": stay ourselves.
            f"user {getpass.getuser()}\n"
            f"listener {self.port} 127.0.0.1\nallow_anonymous false\n"
            f"password_file {passwords}\nacl_file {directory / 'acl'}\n"
            f"persistence true\npersistence_location {directory}/\n"
            f"log_dest file {directory / 'mosquitto.log'}\n{extra}")

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        self.proc = children.spawn(["mosquitto", "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.proc.stderr.read().decode()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not listen within 10 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def mosquitto_missing() -> str | None:
    """Why no Mosquitto can run here, or None."""
    if shutil.which("mosquitto") is None or shutil.which("mosquitto_passwd") is None:
        return "mosquitto is not installed (Debian: apt-get install mosquitto)"
    return None


class Amqtt:
    """The embedded pure-Python broker (`amqtt`), anonymous, on a free port: what a
    machine without Mosquitto runs (it has no per-user ACLs)."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        directory.mkdir(parents=True, exist_ok=True)
        self.conf = directory / "amqtt.yaml"
        self.conf.write_text(
            f"listeners:\n  default:\n    type: tcp\n    bind: 127.0.0.1:{self.port}\n"
            "plugins:\n  amqtt.plugins.authentication.AnonymousAuthPlugin:\n"
            "    allow_anonymous: true\n")
        self.log = directory / "amqtt.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Amqtt:
        self.proc = children.spawn(
            [sys.executable, "-c", "from amqtt.scripts.broker_script import main; main()",
             "-c", str(self.conf)],
            stdout=self.log.open("wb"), stderr=subprocess.STDOUT)
        _wait_listening(self.proc, self.port, "amqtt")
        return self

    def stop(self) -> None:
        _stop(self.proc)


def amqtt_missing() -> str | None:
    try:
        import amqtt.broker  # noqa: F401
    except ImportError:
        return "amqtt is not installed (pip install amqtt)"
    return None


def _wait_listening(proc: subprocess.Popen[bytes], port: int, name: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{name} did not listen within 15 s")


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
