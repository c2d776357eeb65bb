"""A technicians file damaged while the daemon runs (a power cut mid-write by hand, an
SD card going bad): a technician who logs in is told which file and what is wrong,
not "login failed inside the daemon (JSONDecodeError)"."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from firmware.api.auth import Cost, Technicians
from firmware.api.client import Client, ClientError

from .conftest import TOKEN, start_daemon


def test_a_damaged_technicians_file_is_named_at_login(tmp_path: Path) -> None:
    daemon, stop = start_daemon(tmp_path)
    try:
        path = tmp_path / "technicians.json"
        path.write_bytes(b'{"technicians": {"li": ')
        with Client(daemon.socket, technician=("li", TOKEN)) as client, \
                pytest.raises(ClientError) as refused:
            client.call("clear", {"fault": 1})
        assert refused.value.code == "refused"
        assert str(refused.value).endswith(
            f"cannot use {path}: the file is damaged (Expecting value: line 1 column 24 "
            "(char 23)); move it aside")
    finally:
        stop()


def test_a_right_token_gets_in_on_a_card_gone_read_only(tmp_path: Path,
                                                        monkeypatch) -> None:
    """A token hashed with less work than the firmware now asks is re-hashed at login;
    on a read-only card that save fails, and it refused the technician who came to
    clear E96 (an internal error) although the token was right."""
    path = tmp_path / "technicians.json"
    Technicians(path, Cost(memory_kib=8, passes=1)).add("li", TOKEN)
    stronger = Technicians(path, Cost(memory_kib=16, passes=1))

    def read_only(table) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(stronger, "_save", read_only)
    assert stronger.verify("li", TOKEN)
    assert not stronger.verify("li", "wrong-token-123")
