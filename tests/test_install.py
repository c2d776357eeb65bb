"""An install outside the source tree works: a wheel into a fresh venv, run from elsewhere.

The wheel is built from a copy of the tree (so the build leaves nothing in it) with
this venv's setuptools, then installed into a new venv with its dependencies only
(transitions, pyserial, argon2-cffi, babel: no rich or textual, the headless table of a
venue). The commands run in an empty folder, so nothing can come from the source tree:
the reference config and the example scenarios must be package data. The systemd unit
rendered by that install must pass `systemd-analyze verify`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEBRIS = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__",
                                ".pytest_cache", ".ruff_cache", ".hypothesis")


def left_out(folder: str, names: list[str]) -> set[str]:
    """What the copy leaves out: build debris anywhere, and a table's state folder at the
    top (firmware/state/ is source)."""
    top = {"state"} if Path(folder) == ROOT else set()
    return set(DEBRIS(folder, names)) | (top & set(names))


def _run(*cmd: str | Path, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding mjtable from a wheel; returns its bin folder."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=left_out)
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "--quiet", "-w", tmp / "dist", src, cwd=tmp)
    assert built.returncode == 0, built.stderr
    # Every folder of data is named in pyproject.toml: no setuptools banner over the
    # first `make run` (the same build as its `pip install -e`).
    assert "would be ignored" not in built.stdout + built.stderr, built.stderr
    (wheel,) = (tmp / "dist").glob("mjtable-*.whl")
    venv = tmp / "venv"
    # This venv's pip installs into the new one (`--python`): the same install, without
    # the ~7 s of CPU that seeding a pip into every fresh venv costs.
    made = _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp)
    assert made.returncode == 0, made.stderr
    shutil.rmtree(src)      # nothing of the tree is left to fall back on
    pip = _run(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install",
               "--quiet", wheel, cwd=tmp)
    assert pip.returncode == 0, pip.stderr
    return venv / "bin"


def test_headless_install_has_a_console(installed: Path, tmp_path: Path) -> None:
    """A technician at a headless table clears a fault without the console extra."""
    probe = _run(installed / "python", "-c",
                 "import importlib.util as u; print(u.find_spec('rich'), u.find_spec('textual'))",
                 cwd=tmp_path)
    assert probe.stdout.split() == ["None", "None"], probe.stdout + probe.stderr
    state, sock = tmp_path / "state", tmp_path / "api.sock"
    console = [installed / "mjtable", "console", "--state-dir", state, "--socket", sock]
    added = subprocess.run([*map(str, console), "add-technician", "li"], cwd=tmp_path,
                           input="li-token-0123\n", capture_output=True, text=True,
                           timeout=120)
    assert added.returncode == 0, added.stderr
    daemon = subprocess.Popen([str(installed / "mjtable"), "--state-dir", str(state), "run",
                               "--plain", "--speed", "20", "--socket", str(sock)],
                              cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while _run(*console, "status", cwd=tmp_path).returncode != 0:
            assert time.monotonic() < deadline, "the daemon did not answer"
            time.sleep(0.1)
        status = _run(*console, "status", cwd=tmp_path)
        assert "side 0 " in status.stdout and "\ncommitment: " in status.stdout
        assert status.stdout.rstrip().endswith("no active faults"), status.stdout
        assert "active:" in _run(*console, "faults", cwd=tmp_path).stdout
        clear = subprocess.run([*map(str, console), "--technician", "li", "clear", "E21"],
                               cwd=tmp_path, capture_output=True, text=True, timeout=120,
                               env={**os.environ, "MJTABLE_TOKEN": "li-token-0123"})
        assert clear.returncode == 1 and "no active fault “E21”" in clear.stderr, clear.stderr
        assert _run(*console, "technicians", cwd=tmp_path).stdout.split() == ["li"]
    finally:
        daemon.terminate()
        daemon.wait(timeout=60)
    verify = _run(*console, "verify-log", cwd=tmp_path)
    assert verify.returncode == 0 and ": intact: " in verify.stdout, verify.stderr
    # Only the TUI needs the extra, and says so in one line.
    tui = _run(*console, "tui", cwd=tmp_path)
    assert tui.returncode == 2 and tui.stdout == ""
    assert tui.stderr.splitlines() == [
        "mjtable console: the TUI needs the console extra (rich is missing): "
        "pip install 'mjtable[console]'"]


def test_simulate_from_outside_the_tree(installed: Path, tmp_path: Path) -> None:
    result = _run(installed / "mjtable", "simulate", "--cycles", "2", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["cycles_completed"] == 2 and report["faults"] == []


def test_example_scenario_from_outside_the_tree(installed: Path, tmp_path: Path) -> None:
    probe = _run(installed / "python", "-c",
                 "from simulator.scenario import example_scenarios as e; print(len(e()))",
                 cwd=tmp_path)
    assert probe.returncode == 0, probe.stderr
    assert int(probe.stdout) == len(list((ROOT / "tests" / "scenarios").glob("*.toml")))


def test_run_from_outside_the_tree(installed: Path, tmp_path: Path) -> None:
    result = _run(installed / "mjtable", "--state-dir", tmp_path / "state", "run", "--plain",
                  "--cycles", "1", "--speed", "20", "--socket", tmp_path / "api.sock",
                  cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "handoff hand 1 set A sha256:" in result.stdout
    assert result.stdout.rstrip().endswith("mjtable: stopped, every motor off")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (Debian: apt-get install systemd)")
def test_systemd_unit_of_the_install_verifies(installed: Path, tmp_path: Path) -> None:
    unit = tmp_path / "mjtable.service"
    made = _run(installed / "python", "-m", "firmware.service.systemd_unit", "--config",
                tmp_path / "table.toml", "--output", unit, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    text = unit.read_text()
    assert f"ExecStart={installed}/mjtable run" in text
    assert f"ExecStopPost={installed}/python -m firmware.service.safe_outputs" in text
    verify = _run("systemd-analyze", "verify", unit, cwd=tmp_path, timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    sysusers = _run(installed / "python", "-m", "firmware.service.systemd_unit", "--sysusers",
                    cwd=tmp_path)
    assert "mjtable" in sysusers.stdout


def test_python_m_inside_a_source_checkout(installed: Path, tmp_path: Path) -> None:
    # docs/raspberry-pi.md clones into /opt/mjtable and installs from it: `python -m`
    # run in that folder imports the checkout's packages ahead of the install, and
    # the checkout has the package data only as its folders (config/, systemd/, …).
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT, checkout, ignore=left_out)
    unit = _run(installed / "python", "-m", "firmware.service.systemd_unit", "--sysusers",
                cwd=checkout)
    assert unit.returncode == 0 and "mjtable" in unit.stdout, unit.stderr
    probe = _run(installed / "python", "-c",
                 "import firmware, mjtable_core.config as c, simulator.scenario as s; "
                 "print(firmware.__file__, c.DEFAULT_CONFIG.is_file(), "
                 "len(s.example_scenarios()))", cwd=checkout)
    assert probe.returncode == 0, probe.stderr
    where, found, examples = probe.stdout.split()
    assert where.startswith(str(checkout))       # the checkout's own, as on the Pi
    assert found == "True" and int(examples) > 0


def test_the_dashboards_assets_are_in_the_package(installed: Path) -> None:
    # `mjtable venue` serves its page from the package: no build step, no CDN.
    (site,) = (installed.parent / "lib").glob("python3*/site-packages")
    static = site / "venue" / "desk" / "web" / "static"
    assert {p.name for p in static.iterdir()} >= {"desk.js", "desk.css"}
    # Its fault words are data (generated from the kinds, venue/desk/faults/faultwords.py).
    assert (site / "venue" / "desk" / "faults" / "faultwords.json").is_file()
