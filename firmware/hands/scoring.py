"""The game at this table: each ended hand's score, the tallies, and the next dealer.

Players enter a hand's result (a declared win, or a drawn hand) between the lid opening
after the hand and the next walls rising (API `score`). A failed declaration that the
variant fines (错和, 诈和) is booked in the tallies at once and leaves the hand open.
The rules engine checks the win against the set the table dealt - no tile beyond its
copies, flowers only where the variant has them, the hand's own 混 or 金 - scores it,
and books it in the session
(rules/scorekeeper/session.py), which names the next dealer: his lamp lights when the next
walls rise, before the dice, and the dice wait for his key. Until a first hand is scored
the dealer is chosen as before, by the first dice key.

The session rides in the journal (saved whole and fsynced like the rest of the machine's
state); each scored hand is also a line beside the deal records (`<handoff file
stem>.scores.jsonl`, schema mjtable.hand-score/1) so `mjtable verify-deals --scores` can
show a hand's deal and its score together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware.faults.kinds.table import STORAGE_FAILED
from firmware.faults.recovery import plan
from firmware.i18n import _
from firmware.machines.cycle import CycleState
from rules.errors import RulesError
from rules.ring import SEATS
from rules.scorekeeper import read_declared, score_declared, score_request
from rules.scorekeeper.session import Session
from rules.scoring.declared import WIND_LETTERS, Declared
from rules.variants import REGISTRY

if TYPE_CHECKING:
    from firmware.hands.table import Scoring

SCHEMA = "mjtable.hand-score/1"


class ScoreRefused(Exception):
    """A score the table cannot take now or at all; the message is for the player."""


class TableScore:
    def __init__(self, ctl: Scoring) -> None:
        self.ctl = ctl
        self.session: Session | None = None
        # Where each scored hand's line goes (a HandoffFile beside the deal records).
        self.file: Callable[[dict[str, Any]], None] | None = None
        # The last dealt hand as the journal kept it: the deal records live in memory
        # only, and a power cut with the lid open must not leave that hand unscorable.
        self.restored_hand: dict[str, Any] | None = None

    # -- the journal ------------------------------------------------------------------

    def export(self) -> dict[str, Any] | None:
        hand = self._last_hand()
        if self.session is None and hand is None:
            return None
        saved = {} if self.session is None else self.session.as_dict()
        if hand is not None:
            # What scoring needs of the deal record, nothing secret: the indicator is
            # on show from the deal on, the commitment is published before it.
            saved["last_hand"] = {
                "table": {"cycle": hand["table"]["cycle"],
                          "dealer_position": hand["table"]["dealer_position"]},
                "commitment": hand["commitment"],
                "wild": None if not hand.get("wild") else {
                    "kind": hand["wild"]["kind"], "indicator": hand["wild"]["indicator"]}}
        return saved

    def restore(self, saved: dict[str, Any] | None) -> None:
        saved = dict(saved or {})
        self.restored_hand = saved.pop("last_hand", None)
        self.session = Session.from_dict(saved) if saved else None

    def _last_hand(self) -> dict[str, Any] | None:
        records = self.ctl.handoff.records
        return records[-1] if records else self.restored_hand

    # -- the next dealer --------------------------------------------------------------

    def next_dealer(self) -> int | None:
        """The position that deals the next hand, when a scored hand has named it."""
        current = self._current()
        if current is None or not current.hands:
            return None
        return current.dealer

    def _current(self) -> Session | None:
        """The game in progress at this table: not one that is over, nor one of another
        variant (the journal's game from before a change of `[rules] variant`)."""
        session = self.session
        if session is None or session.finished or (
                session.variant != self.ctl.config.rules.variant):
            return None
        return session

    # -- a hand's result --------------------------------------------------------------

    def score(self, seat: int, result: dict[str, Any], in_play: bool) -> dict[str, Any]:
        """Score the hand just ended for the player at `seat`: `result` is {"draw": true}
        or {"win": <declared win without variant and winds>}."""
        if in_play or self._homing_onto_a_hand():
            raise ScoreRefused(_("a hand is in play: score a hand after it ends, while the "
                                 "lid is open"))
        record = self._last_hand()
        if record is None:
            raise ScoreRefused(_("no hand has been dealt yet"))
        if not isinstance(seat, int) or isinstance(seat, bool) or (
                seat not in self.ctl.geometry.sides):
            raise ScoreRefused(_("seat: a position 0-3 of the hand just ended"))
        cycle, dealer = record["table"]["cycle"], record["table"]["dealer_position"]
        if cycle != self.ctl.cycle.number:
            # The engine refused the walls of the hand just played (handoff.refused): the
            # last record is an earlier hand's, with its own dealer and winds.
            raise ScoreRefused(_("the hand of cycle {cycle} has no deal record (its walls "
                                 "were refused): it cannot be scored").format(
                cycle=self.ctl.cycle.number))
        # Checked before a finished game gives way to a new one: the hand that ended the
        # game is not booked again as the first of the next - unless it is another win on
        # the same discard, where the variant lets several win (Guangdong's 一炮多响).
        if self.session is not None and self.session.hands and (
                self.session.hands[-1]["cycle"] == cycle):
            return self._another_winner(seat, result, record)
        # A copy: the session changes only once the hand's line is on disk.
        if self._current() is None:
            session = Session(self.ctl.config.rules.variant, first_dealer=dealer)
        else:
            session = Session.from_dict(self.session.as_dict())
        session.dealer = dealer     # the table's fact: who threw the dice
        if isinstance(result, dict) and "win" in result:
            _check_not_stopped(session, cycle, seat, result["win"])
        winner, payments, answer, declared = self._result(seat, result, record, session)
        if answer is not None and not answer["win"] and not answer.get("drawn"):
            if "penalty" not in answer:
                return {"answer": answer, "booked": False}
            # A failed declaration the rule book fines: in the scores now, and the hand
            # goes on ("该盘继续比赛") to be booked when it ends.
            fine = session.fine(winner, payments, answer["penalty"], cycle=cycle)
            self._write({"schema": SCHEMA, "cycle": cycle, "commitment": record["commitment"],
                         "declared": result, "answer": answer, "fine": fine})
            self.session = session
            self.ctl.emit("hand.fined", cycle=cycle, declarer=fine["declarer"],
                          fine=fine["fine"], payments=fine["payments"])
            self.ctl.save_journal()
            return {"answer": answer, "booked": False, "fine": fine,
                    "scores": list(session.scores)}
        booked = session.record(
            winner, payments, cycle=cycle,
            discarder=None if declared is None or declared.discarder is None else
            WIND_LETTERS[declared.seat_of(declared.discarder)],
            also_won=() if declared is None else tuple(WIND_LETTERS[c.seat]
                                                       for c in declared.also_won))
        return self._booked(session, booked, cycle, record, result, answer)

    def _another_winner(self, seat: int, result: dict[str, Any], record: dict[str, Any]
                        ) -> dict[str, Any]:
        """A second (or third) win on the discard that won the hand already booked: booked
        beside it when that win named this one among `also_won`, on the same discard, and
        the rule book lets both win ("允许一炮多响"); anything else was scored already."""
        cycle = record["table"]["cycle"]
        first = self.session.hands[-1]
        winners = {h["winner"] for h in self.session.hands if h["cycle"] == cycle}
        if seat not in first.get("also_won", ()) or seat in winners or not (
                isinstance(result, dict) and "win" in result):
            raise ScoreRefused(_("the hand of cycle {cycle} is already scored").format(
                cycle=cycle))
        _check_not_stopped(self.session, cycle, seat, result["win"])
        session = Session.from_dict(self.session.as_dict())
        winner, payments, answer, declared = self._result(seat, result, record, session)
        if declared is None or answer is None or not answer["win"]:
            # MCR's second in turn, Fuzhou's after a 金雀: not a win, nothing to book.
            return {"answer": answer, "booked": False}
        seats = len(SEATS)      # seats are a rule of the game, not the table's geometry
        named = {(first["dealer"] + c.seat) % seats for c in declared.also_won}
        if declared.discarder is None or first["discarder"] != (
                first["dealer"] + declared.seat_of(declared.discarder)) % seats or not (
                winners <= named):
            raise ScoreRefused(_("also_won: the win booked for this hand was on the discard "
                                 "of position {discarder}; name it as the discarder and the "
                                 "winners booked, {winners}, among also_won").format(
                discarder=first["discarder"], winners=sorted(winners)))
        booked = session.also_won(winner, payments, cycle=cycle)
        return self._booked(session, booked, cycle, record, result, answer)

    def _booked(self, session: Session, booked: dict[str, Any], cycle: int,
                record: dict[str, Any], result: dict[str, Any], answer: dict | None
                ) -> dict[str, Any]:
        self._write({"schema": SCHEMA, "cycle": cycle, "commitment": record["commitment"],
                     "declared": result, "answer": answer, "hand": booked})
        self.session = session
        self.ctl.emit("hand.scored", cycle=cycle, winner=booked["winner"],
                      payments=booked["payments"], next_dealer=session.dealer,
                      prevalent_wind=_wind(session.prevalent))
        self.ctl.save_journal()
        return {"answer": answer, "booked": True, "hand": booked,
                "scores": list(session.scores), "next_dealer": self.next_dealer()}

    def _write(self, line: dict[str, Any]) -> None:
        """The score line beside the deal records; not on disk, not booked."""
        if self.file is not None:
            try:
                self.file(line)
            except OSError as exc:
                # A score not on disk is not booked: the storage fault stops the table.
                self.ctl.fault(STORAGE_FAILED, "scores", None,
                               {"error": f"{type(exc).__name__}: {exc.strerror or exc}"})
                raise ScoreRefused(_("the score could not be written: {error}").format(
                    error=exc.strerror or exc)) from None

    def _homing_onto_a_hand(self) -> bool:
        """Homing with a set on the table (a boot, say, after a cut mid-hand): homing ends
        in play, and the journal does not say whether that hand had ended."""
        cycle = self.ctl.cycle
        state = cycle.state
        if state == CycleState.FAULT:
            state = plan(self.ctl).get("cycle", state)
        return state == CycleState.HOMING and cycle.set_in_play is not None

    def _result(self, seat: int, result: dict[str, Any], record: dict[str, Any],
                session: Session
                ) -> tuple[str | None, dict[str, int], dict | None, Declared | None]:
        if not isinstance(result, dict) or set(result) not in ({"draw"}, {"win"}):
            raise ScoreRefused(_("give either \"draw\": true or \"win\": a declared win "
                                 "(docs/scoring.md)"))
        if "draw" in result:
            if result["draw"] is True:
                return None, {}, None, None
            if not isinstance(result["draw"], dict):
                raise ScoreRefused(_("draw: expected true, or the drawn hand's facts "
                                     "(docs/scoring.md)"))
            if "params" in result["draw"]:
                raise ScoreRefused(_("params: the table scores by its variant's defaults; a "
                                     "player does not set them"))
            # What a rule book pays on a draw all the same (Tianjin's 铲).
            try:
                answer = score_request({**result["draw"], "variant": session.variant,
                                        "draw": True})
            except RulesError as exc:
                raise ScoreRefused(str(exc)) from None
            return None, answer["payments"], answer, None
        declared = result["win"]
        if not isinstance(declared, dict):
            raise ScoreRefused(_("win: expected a declared win (docs/scoring.md)"))
        if "params" in declared:
            # The winner would be setting the price of his own win.
            raise ScoreRefused(_("params: the table scores by its variant's defaults; a "
                                 "player does not set them"))
        # Seat winds count from the dealer, one side a step (docs/rules.md).
        steps = (seat - record["table"]["dealer_position"]) % self.ctl.geometry.side_count
        wind = WIND_LETTERS[steps]
        filled = {**declared, "variant": session.variant, "seat_wind": wind,
                  "prevalent_wind": _wind(session.prevalent)}
        wild = record.get("wild")
        if wild:
            key = "hun" if wild["kind"] == "hun" else "gold"
            if filled.get(key, wild["indicator"]) != wild["indicator"]:
                raise ScoreRefused(_("{key}: this hand's was {tile}").format(
                    key=key, tile=wild["indicator"]))
            filled[key] = wild["indicator"]
        try:
            checked = read_declared(filled)
            _dealt_flowers(checked, self.ctl.handoff.variant.flowers)
            answer = score_declared(checked).as_dict()
        except RulesError as exc:
            raise ScoreRefused(str(exc)) from None
        if answer["win"] and not answer["payments"]:
            raise ScoreRefused(_("discarder: name who discarded the winning tile (left, "
                                 "across, right)"))
        return wind, answer["payments"], answer, checked


def _check_not_stopped(session: Session, cycle: int, seat: int, declared: Any) -> None:
    """A player fined this hand does not win it: "错和…即予停和…错和者陪打别人和牌后，按规定付分"
    (MCR's rule book); the competition's supplement still lets him win by self-draw
    (""诈和""错和"后允许自摸和牌"), unless the fine disqualified him (有意诈和)."""
    fined = [f for f in session.fines if f["cycle"] == cycle and f["declarer"] == seat]
    if not fined:
        return
    fines = REGISTRY[session.variant].fines
    if fines is not None and fines.self_drawn_after and not any(
            f["disqualified"] for f in fined):
        if isinstance(declared, dict) and declared.get("self_drawn") is True:
            return
        raise ScoreRefused(_("position {seat} was fined this hand and can win it only by "
                             "self-draw (错和、诈和后允许自摸和牌)").format(seat=seat))
    raise ScoreRefused(_("position {seat} was fined this hand and plays on without "
                         "winning (停和)").format(seat=seat))


def _dealt_flowers(declared: Declared, codes: tuple[str, ...]) -> None:
    """The variant's flowers, and only those this table deals: a venue may play without
    them (`[rules.overrides] flowers = []`), and a flower never dealt scores nothing."""
    if declared.flowers and not codes:
        raise ScoreRefused(_("flowers: this table deals no flowers"))
    for code in declared.flower_tiles:
        if code not in codes:
            raise ScoreRefused(_("flowers: this table does not deal {code}").format(code=code))


def _wind(rounds: int) -> str:
    """The prevalent wind after `rounds` rounds (a finished game's fifth is East again)."""
    return WIND_LETTERS[rounds % len(WIND_LETTERS)]
