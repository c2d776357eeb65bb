"""Every broken config in tests/bad_configs/ stops `mjtable run` before anything starts.

Each file's first line is `# expect: <part of the error>`. For every file the command
must exit 2, print nothing on stdout (the daemon's first line comes only once the HAL
is open) and say on stderr, in one line, the file and what is wrong. Most files run
in-process for speed, with the daemon replaced by a tripwire; a few run as the real
command in a subprocess.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mjtable import cli
from tests.conftest import ROOT

CORPUS = ROOT / "tests" / "bad_configs"
FILES = sorted(CORPUS.glob("*.toml"))
# Configs that parse but name something the HAL cannot open: refused by the real
# command when it opens the HAL, still before anything starts.
AT_START = sorted((CORPUS / "at_start").glob("*.toml"))
# One of each family, run as the real command: a typo, a non-text file, a contradiction.
SUBPROCESS = ("table_key_typo.toml", "binary.toml", "pins_line_used_twice.toml")


def expected(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode()
    assert first.startswith("# expect: "), f"{path.name}: first line must be '# expect: ...'"
    return first.removeprefix("# expect: ")


def check_refusal(path: Path, code: int, out: str, err: str, expect: str) -> None:
    assert code == cli.EXIT_CONFIG, f"{path.name}: exit {code}, stderr {err!r}"
    assert out == "", f"{path.name}: something started: {out!r}"
    assert err.endswith("\n") and err.count("\n") == 1, f"{path.name}: not one line: {err!r}"
    assert str(path) in err, f"{path.name}: the error does not name the file: {err!r}"
    assert expect in err, f"{path.name}: {expect!r} not in {err!r}"


@pytest.fixture
def no_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reaching the daemon at all means the config was accepted: fail loudly."""
    import firmware.service.daemon

    def tripwire(*_: object, **__: object) -> int:
        raise AssertionError("the daemon started on a bad config")

    monkeypatch.setattr(firmware.service.daemon, "run", tripwire)


def test_the_corpus_covers_many_mistakes() -> None:
    assert len(FILES) >= 30
    assert all(expected(path) for path in FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_bad_config_is_refused(path: Path, no_daemon: None,
                               capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["run", "--plain", "--config", str(path)])
    out, err = capsys.readouterr()
    check_refusal(path, code, out, err, expected(path))


@pytest.mark.parametrize(("content", "expect"), [
    (b"", "[table]: missing section"),                          # zero bytes
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "not a text file"),
    (b"\xef\xbb\xbf[table]\ntiles = 144\n", "not valid TOML"),    # a BOM is not TOML
])
def test_files_without_room_for_a_comment(tmp_path: Path, content: bytes, expect: str,
                                          no_daemon: None,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(content)
    code = cli.main(["run", "--plain", "--config", str(path)])
    out, err = capsys.readouterr()
    check_refusal(path, code, out, err, expect)


def test_the_real_command_refuses_them() -> None:
    paths = [CORPUS / name for name in SUBPROCESS] + AT_START
    # In parallel: each start-up costs an interpreter and the firmware's imports.
    procs = [subprocess.Popen([sys.executable, "-m", "mjtable.cli", "run", "--plain",
                               "--config", str(path)], cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for path in paths]
    for path, proc in zip(paths, procs, strict=True):
        out, err = proc.communicate(timeout=60)
        check_refusal(path, proc.returncode, out, err, expected(path))
