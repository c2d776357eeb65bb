"""The table's broker password out of world-readable files (venue/agent/secret.py).

Before: docs/raspberry-pi.md installed `table.toml` 0644 with `[venue] password` in it,
and any local user published a retained status as the table."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from mjtable_core.config import VenueSection, load_config
from tests.conftest import ROOT
from venue.agent.secret import SecretError, broker_password


def venue_with(**fields: str) -> VenueSection:
    config = load_config()
    return dataclasses.replace(config.venue, **fields)


def test_the_password_comes_from_a_private_file(tmp_path: Path) -> None:
    secret = tmp_path / "broker.password"
    secret.write_text("s3cret-of-t01\n")
    secret.chmod(0o600)
    assert broker_password(venue_with(password_file=str(secret)), "x") == (
        "s3cret-of-t01", None)
    secret.chmod(0o640)
    with pytest.raises(SecretError, match="can be read by other users"):
        broker_password(venue_with(password_file=str(secret)), "x")
    with pytest.raises(SecretError, match="cannot be read"):
        broker_password(venue_with(password_file=str(tmp_path / "none")), "x")


def test_a_password_in_a_world_readable_config_is_said(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text("")
    config.chmod(0o644)
    password, warning = broker_password(venue_with(password="pw"), str(config))
    assert password == "pw" and warning is not None and "every local user" in warning
    config.chmod(0o640)
    assert broker_password(venue_with(password="pw"), str(config)) == ("pw", None)


def test_the_install_steps_keep_the_secrets_private() -> None:
    text = (ROOT / "docs" / "raspberry-pi.md").read_text()
    modes = re.findall(r"install -m (\d+)", text)
    assert modes and set(modes) <= {"0640", "0600"}, modes    # the config was 0644
    assert "install -m 0600 -o mjtable-agent" in text
    assert 'password_file = "/etc/mjtable/broker.password"' in text
