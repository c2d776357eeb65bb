"""The deal history anchored outside the handoff file: each commitment is in the
hash-chained event log from the moment its walls rose, so whoever can write the
handoff file can no longer rewrite a hand and compute every later commitment again
(keeping even the display's prefix); and every hand is dealt again from its walls and
dice, so hands edited under untouched walls fail too."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import itertools
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from firmware.hands.handoff import display_text
from firmware.state.eventlog import EventLog, LogReader
from mjtable.cli import main
from mjtable_core.config import load_config
from rules.commit import PREFIX_DICE, canonical_layout
from simulator.harness.runner import assemble
from tests.conftest import quick


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Five hands played, with the handoff file and the event log the daemon keeps."""
    folder = tmp_path_factory.mktemp("anchored")
    path, log_path = folder / "handoff.jsonl", folder / "events.sqlite"
    config = quick(load_config(), play_time_s=1.0)
    config = dataclasses.replace(config, rules=dataclasses.replace(
        config.rules, handoff_file=str(path)))
    bench = assemble(config, seed=12)
    log = EventLog(log_path)
    ctl = bench.controller
    log.attach(ctl)
    ctl.start()
    bench.players.start()
    bench.clock.run_until(20000.0, until=lambda: len(ctl.handoff.records) >= 5)
    assert log.flush()
    log.close()
    return path, log_path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def verify(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    code = main(["verify-deals", *argv])
    out = capsys.readouterr()
    return code, out.out + out.err


def nonce_keeping_prefix(record: dict[str, Any], previous: str | None,
                         shown: str) -> tuple[str, str]:
    """What the red team did: a fresh nonce whose commitment shows the same 4 hex
    digits on the display (`shown`) as the commitment the players saw."""
    layout = canonical_layout(record["walls"])
    for n in itertools.count():
        nonce = f"forged{n}"
        message = f"{PREFIX_DICE}|{nonce}|{previous or ''}|{record['next_dice_commitment']}|"
        digest = "sha256:" + hashlib.sha256((message + layout).encode("ascii")).hexdigest()
        if display_text(digest) == shown:
            return nonce, digest
    raise AssertionError("unreachable")


def rewritten(records: list[dict[str, Any]], hand: int) -> list[dict[str, Any]]:
    """Hand `hand`'s walls changed (two tiles swapped, dealt again), and every later
    commitment computed again from new nonces chosen to keep the display's prefix."""
    from tests.security.test_deals import redeal

    forged = copy.deepcopy(records)
    walls = copy.deepcopy(records[hand]["walls"])
    walls[0][0], walls[1][0] = walls[1][0], walls[0][0]
    forged[hand] = redeal(records[hand], walls, "x")
    for i in range(hand, len(forged)):
        previous = forged[i - 1]["commitment"] if i else None
        forged[i]["previous_commitment"] = previous
        nonce, digest = nonce_keeping_prefix(forged[i], previous,
                                             display_text(records[i]["commitment"]))
        forged[i]["commitment"] = digest
        if i + 1 < len(forged):
            forged[i + 1]["revealed"] = {**forged[i + 1]["revealed"], "nonce": nonce}
    return forged


def test_an_honest_history_passes_with_its_log(table: Any,
                                               capsys: pytest.CaptureFixture) -> None:
    path, log = table
    head = LogReader(log).chain_head()
    code, out = verify(capsys, str(path), "--log", str(log), "--head", head)
    assert code == 0, out
    assert f"event log: {len(lines(path))} commitments recorded when the walls rose" in out


def test_a_rewritten_file_with_new_nonces_fails_given_the_log(
        table: Any, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path, log = table
    records = lines(path)
    forged = rewritten(records, 2)
    assert [display_text(r["commitment"]) for r in forged] == [
        display_text(r["commitment"]) for r in records]
    bad = tmp_path / "forged.jsonl"
    write(bad, forged)
    code, out = verify(capsys, str(bad))
    assert code == 0, out           # the file alone cannot tell (the red team's break)
    assert "not checked against the event log" in out
    code, out = verify(capsys, str(bad), "--log", str(log))
    assert code == 1
    assert "line 3: its commitment" in out and "never published in the event log" in out


def test_edited_hands_fail(table: Any, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path, log = table
    records = lines(path)
    forged = copy.deepcopy(records)
    hands = forged[1]["hands"]
    hands["E"][0], hands["S"][0] = hands["S"][0], hands["E"][0]
    assert hands != records[1]["hands"]
    bad = tmp_path / "hands.jsonl"
    write(bad, forged)
    for argv in ([str(bad)], [str(bad), "--log", str(log)]):
        code, out = verify(capsys, *argv)
        assert code == 1
        assert "line 2 (hand" in out and "its hands are not what its walls and dice deal" in out


def test_records_cut_off_the_end_fail_given_the_log(
        table: Any, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path, log = table
    bad = tmp_path / "cut.jsonl"
    write(bad, lines(path)[:-2])
    code, out = verify(capsys, str(bad), "--log", str(log))
    assert code == 1 and "handoffs the file does not have" in out


def test_a_log_that_does_not_reach_the_noted_head_fails(
        table: Any, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path, log = table
    head_id, chain = LogReader(log).chain_head().split(":")
    other = "0" * 64 if chain != "0" * 64 else "1" * 64
    code, out = verify(capsys, str(path), "--log", str(log), "--head", f"{head_id}:{other}")
    assert code == 1 and "does not reach the chain head" in out
    code, out = verify(capsys, str(path), "--log", str(log), "--head", "latest")
    assert code == 2 and len(out.strip().splitlines()) == 1
    # A log whose rows were edited fails its own chain first.
    copy_path = tmp_path / "events.sqlite"
    copy_path.write_bytes(log.read_bytes())
    with sqlite3.connect(copy_path) as conn:
        conn.execute("UPDATE events SET data = '{}' WHERE kind = 'walls.committed'")
    code, out = verify(capsys, str(path), "--log", str(copy_path))
    assert code == 1 and "not intact" in out


def test_the_nonce_reaches_the_log_only_at_the_reveal(table: Any) -> None:
    path, log = table
    rows = LogReader(log).query(limit=10_000)
    for record, after in itertools.pairwise(lines(path)):
        nonce = after["revealed"]["nonce"]
        committed = next(r["seq"] for r in rows if r["kind"] == "walls.committed"
                         and r["commitment"] == record["commitment"])
        first = next(r for r in rows if nonce in json.dumps(r))
        assert first["kind"] == "handoff.revealed" and first["seq"] > committed
