"""The venue agent's systemd unit: its own user, a memory limit, this install's paths."""

from __future__ import annotations


def test_the_agents_unit_is_its_own_user_with_a_memory_limit() -> None:
    import contextlib
    import io

    from firmware.service.systemd_unit import main as unit_main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert unit_main(["--agent", "--config", "/etc/mjtable/t1.toml"]) == 0
    text = out.getvalue()
    assert "mjtable agent --config /etc/mjtable/t1.toml" in text
    assert "User=mjtable-agent" in text and "MemoryMax=" in text
    assert "@" not in text.replace("mjtable-agent", "")
