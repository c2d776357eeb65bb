"""The venue's copy of the hand records: once each, acknowledged without gaps, billed
per day (venue/desk/tables/store.py)."""

from __future__ import annotations

import csv
import io
import time

import pytest

from venue.desk.tables.store import Store, day_of, records_csv, usage_csv

NOON = time.mktime((2026, 3, 14, 12, 0, 0, 0, 0, -1))     # local noon


def record(seq: int, start: float = NOON, boot: int = 1, duration: float = 300.0,
           booking: str | None = "B-7", table: str = "t1") -> dict:
    return {"table": table, "boot": boot, "seq": seq, "cycle": seq, "start": start,
            "end": start + duration, "duration_s": duration, "booking_id": booking,
            "variant": "mcr", "ended": "played"}


@pytest.fixture
def store(tmp_path) -> Store:
    store = Store(tmp_path / "venue.sqlite")
    yield store
    store.close()


def test_a_record_sent_twice_is_kept_once(store):
    assert store.add("t1", record(1))
    assert not store.add("t1", record(1))
    assert [r["hands"] for r in store.usage(day_of(NOON), day_of(NOON))] == [1]


def test_a_table_cannot_file_a_record_for_another(store):
    assert not store.add("t2", record(1, table="t1"))


@pytest.mark.parametrize("bad", [{}, {"boot": 1, "seq": "x", "start": NOON},
                                 {"boot": 1, "seq": 2}, "not a dict"])
def test_malformed_records_are_refused(store, bad):
    assert not store.add("t1", bad if isinstance(bad, dict) else {"seq": bad})


def test_the_ack_stops_below_a_gap_and_moves_on_when_it_is_filled(store):
    for seq in (1, 2, 4, 5):
        store.add("t1", record(seq))
    assert store.ackable("t1", 0) == 2          # 3 is missing: ask for it again
    store.add("t1", record(3))
    assert store.ackable("t1", 0) == 5


def test_the_ack_starts_from_what_the_table_says_is_held(store):
    # A venue store started after the table's first hundred records were acknowledged.
    store.add("t1", record(101))
    assert store.ackable("t1", 100) == 101
    assert store.ackable("t1", 0) == 0


def test_what_was_acknowledged_stays_acknowledged_across_restarts(tmp_path):
    store = Store(tmp_path / "venue.sqlite")
    store.add("t1", record(1))
    store.acknowledged("t1", 1)
    store.close()
    again = Store(tmp_path / "venue.sqlite")
    again.add("t1", record(2))
    assert again.ackable("t1", 0) == 2
    again.close()


def test_usage_per_table_and_day(store):
    store.add("t1", record(1, NOON, duration=600))
    store.add("t1", record(2, NOON + 900, duration=1200, booking="B-8"))
    store.add("t10", record(1, NOON, table="t10"))
    store.add("t2", record(1, NOON + 86400, table="t2"))
    first, second = day_of(NOON), day_of(NOON + 86400)
    assert store.usage(first, second) == [
        {"day": first, "table": "t1", "hands": 2, "play_s": 1800.0, "bookings": 2},
        {"day": first, "table": "t10", "hands": 1, "play_s": 300.0, "bookings": 1},
        {"day": second, "table": "t2", "hands": 1, "play_s": 300.0, "bookings": 1}]
    assert store.today(first) == {"t1": (2, 1800.0), "t10": (1, 300.0)}


def test_the_usage_csv_reads_in_a_spreadsheet(store):
    store.add("t1", record(1, NOON, duration=5400))
    rows = list(csv.DictReader(io.StringIO(usage_csv(store.usage(day_of(NOON),
                                                                 day_of(NOON))))))
    assert rows == [{"day": day_of(NOON), "table": "t1", "hands": "1", "play_s": "5400.0",
                     "play_h": "1.500", "bookings": "1",
                     "price_per_hour": "0.00", "amount": "0.00"}]


def test_a_booking_id_cannot_become_a_spreadsheet_formula(store):
    store.add("t1", record(1, booking='=HYPERLINK("http://x","y")'))
    store.add("t1", record(2, booking="@SUM(A1)"))
    rows = list(csv.DictReader(io.StringIO(records_csv(store.records(day_of(NOON),
                                                                     day_of(NOON))))))
    assert [r["booking_id"][0] for r in rows] == ["'", "'"]
    assert rows[0]["seq"] == "1" and rows[0]["start_local"].startswith(day_of(NOON))
