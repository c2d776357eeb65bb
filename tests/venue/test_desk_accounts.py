"""The venue's staff accounts, sessions and integrators' API keys."""

from __future__ import annotations

import pytest

from venue.desk.accounts.integrators import Integrators
from venue.desk.accounts.sessions import Sessions
from venue.desk.accounts.staff import LOCKED, WRONG, Cost, LoginRefused, Staff
from venue.desk.office import Office
from venue.desk.sections import StaffSection

CHEAP = Cost(memory_kib=64, passes=1)       # argon2id still, at a test's cost


class Wall:
    def __init__(self) -> None:
        self.now = 1_764_600_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def desk() -> tuple[Office, Staff, Sessions, Wall]:
    wall = Wall()
    office = Office(wall=wall, echo=False)
    section = StaffSection(lockout_failures=3, lockout_s=600.0, session_idle_s=600.0,
                           session_max_s=3600.0)
    return office, Staff(office, section, CHEAP, wall), Sessions(office, section, wall), wall


def test_a_password_is_stored_as_an_argon2id_hash_only(desk) -> None:
    office, staff, _sessions, _wall = desk
    staff.add("王姐", "counter-password-1")
    (stored,) = [r[0] for r in office.db.execute("SELECT hash FROM staff")]
    assert stored.startswith("$argon2id$") and "counter-password-1" not in stored
    assert staff.verify("王姐", "counter-password-1") == "王姐"


def test_a_name_is_locked_after_wrong_passwords_even_for_the_right_one(desk) -> None:
    office, staff, _sessions, wall = desk
    staff.add("li", "counter-password-1")
    whys = []
    for _attempt in range(3):
        with pytest.raises(LoginRefused) as refused:
            staff.verify("li", "guess-guess-guess")
        whys.append(refused.value.why)
    assert whys == [WRONG, WRONG, LOCKED]
    with pytest.raises(LoginRefused) as refused:
        staff.verify("li", "counter-password-1")
    assert refused.value.why == LOCKED
    assert [r["who"] for r in office.rows("staff.locked")] == ["li"]
    wall.now += 601
    assert staff.verify("li", "counter-password-1") == "li"


def test_an_unknown_name_locks_like_a_real_one(desk) -> None:
    _office, staff, _sessions, _wall = desk
    for _attempt in range(3):
        with pytest.raises(LoginRefused):
            staff.verify("nobody", "guess-guess-guess")
    assert staff.locked("nobody")


@pytest.mark.parametrize("name, password", [("", "long-enough-pw"), ("li", "short"),
                                            ("a b", "long-enough-pw"), ("lі", "long-enough-pw")])
def test_bad_names_and_passwords_are_refused_with_a_reason(desk, name, password) -> None:
    _office, staff, _sessions, _wall = desk
    with pytest.raises(ValueError, match=r"name|password"):
        staff.add(name, password)


def test_a_session_expires_when_idle_and_at_its_end(desk) -> None:
    _office, _staff, sessions, wall = desk
    sid, session = sessions.open("li")
    assert sessions.find(sid) == (session, False)
    wall.now += 500
    assert sessions.find(sid)[0] == session        # used: the idle clock starts again
    wall.now += 601
    assert sessions.find(sid) == (None, True)
    assert sessions.find(sid) == (None, False)     # forgotten once expired
    sid, session = sessions.open("li")
    for _step in range(7):          # used every 500 s: alive until its hour is over
        wall.now += 500
        assert sessions.find(sid)[0] == session
    wall.now += 500
    assert sessions.find(sid) == (None, True)


def test_the_session_store_holds_no_usable_session_id(desk) -> None:
    office, _staff, sessions, _wall = desk
    sid, _session = sessions.open("li")
    (stored,) = [r[0] for r in office.db.execute("SELECT id_hash FROM sessions")]
    assert sid not in stored and sessions.find(stored) == (None, False)


def test_a_csrf_token_must_match_exactly(desk) -> None:
    _office, _staff, sessions, _wall = desk
    _sid, session = sessions.open("li")
    assert session.csrf_ok(session.csrf)
    assert not session.csrf_ok(None) and not session.csrf_ok("")
    assert not session.csrf_ok(session.csrf[:-1] + "x")


def test_an_api_key_is_stored_hashed_and_stops_working_when_revoked(desk) -> None:
    office, _staff, _sessions, _wall = desk
    integrators = Integrators(office)
    key = integrators.issue("miniapp")
    assert key.startswith("mjk_")
    assert key.split("_", 2)[2] not in str(office.all("SELECT * FROM integrators"))
    assert integrators.check(key).name == "miniapp"
    forged = key[:-2] + ("AA" if not key.endswith("AA") else "BB")
    assert integrators.check(forged) is None
    assert integrators.check("mjk_000000000000_x") is None
    assert integrators.check("Bearer nonsense") is None
    assert integrators.revoke("miniapp") == 1
    assert integrators.check(key) is None
    with pytest.raises(ValueError, match="integrator name"):
        integrators.issue("../etc")


def test_a_sweep_keeps_a_live_lockout_and_forgets_spent_ones(desk) -> None:
    office, staff, sessions, wall = desk
    staff.add("li", "counter-password-1")
    for name, tries in (("li", 3), ("zoe", 1)):
        for _attempt in range(tries):
            with pytest.raises(LoginRefused):
                staff.verify(name, "guess-guess-guess")
    sessions.open("li")
    staff.sweep()
    sessions.sweep()
    assert staff.locked("li")
    assert [r[0] for r in office.db.execute("SELECT name FROM lockout")] == ["li"]
    wall.now += 3601
    staff.sweep()
    sessions.sweep()
    assert office.all("SELECT * FROM lockout") == []
    assert office.all("SELECT * FROM sessions") == []


def test_the_office_does_not_wait_for_the_disk_at_every_log_row(tmp_path) -> None:
    # A flood of forged keys must not fsync per refusal on the venue's event loop;
    # the hand records keep theirs.
    from venue.desk.office import own_connection
    from venue.desk.tables.store import Store

    store = Store(tmp_path / "venue.sqlite")
    office = Office(own_connection(store.db), echo=False)
    office.log("integrator.refused", remote="192.168.1.50")
    assert office.db.execute("PRAGMA synchronous").fetchone()[0] == 1     # NORMAL
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2      # FULL
    assert store.db.execute("SELECT kind FROM log").fetchall() == [("integrator.refused",)]
