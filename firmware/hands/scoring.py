"""The game at this table: each ended hand's score, the tallies, and the next dealer.

Players enter a hand's result (a declared win, or a drawn hand) between the lid opening
after the hand and the next walls rising (API `score`). A failed declaration that the
variant fines (错和, 诈和) is booked in the tallies at once and leaves the hand open.
The rules engine checks the win against the set the table dealt - no tile beyond its
copies, flowers only where the variant has them, the hand's own 混 or 金 - scores it,
and books it in the session
(rules/scoring/session.py), which names the next dealer: his lamp lights when the next
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

from firmware.faults.recovery import plan
from firmware.i18n import _
from rules.errors import RulesError
from rules.scoring import read_declared, score_declared, score_request
from rules.scoring.declared import WIND_LETTERS, Declared
from rules.scoring.session import Session

if TYPE_CHECKING:
    from firmware.controller import Controller

SCHEMA = "mjtable.hand-score/1"


class ScoreRefused(Exception):
    """A score the table cannot take now or at all; the message is for the player."""


class TableScore:
    def __init__(self, ctl: Controller) -> None:
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
        # game is not booked again as the first of the next.
        if self.session is not None and self.session.hands and (
                self.session.hands[-1]["cycle"] == cycle):
            raise ScoreRefused(_("the hand of cycle {cycle} is already scored").format(
                cycle=cycle))
        # A copy: the session changes only once the hand's line is on disk.
        if self._current() is None:
            session = Session(self.ctl.config.rules.variant, first_dealer=dealer)
        else:
            session = Session.from_dict(self.session.as_dict())
        session.dealer = dealer     # the table's fact: who threw the dice
        if isinstance(result, dict) and "win" in result and any(
                f["cycle"] == cycle and f["declarer"] == seat for f in session.fines):
            # "错和…即予停和…错和者陪打别人和牌后，按规定付分": no win this hand.
            raise ScoreRefused(_("position {seat} was fined this hand and plays on without "
                                 "winning (停和)").format(seat=seat))
        winner, payments, answer = self._result(seat, result, record, session)
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
        booked = session.record(winner, payments, cycle=cycle)
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
                self.ctl.fault("storage.failed", "scores", None,
                               {"error": f"{type(exc).__name__}: {exc.strerror or exc}"})
                raise ScoreRefused(_("the score could not be written: {error}").format(
                    error=exc.strerror or exc)) from None

    def _homing_onto_a_hand(self) -> bool:
        """Homing with a set on the table (a boot, say, after a cut mid-hand): homing ends
        in play, and the journal does not say whether that hand had ended."""
        cycle = self.ctl.cycle
        state = cycle.state
        if state == "fault":
            state = plan(self.ctl).get("cycle", state)
        return state == "homing" and cycle.set_in_play is not None

    def _result(self, seat: int, result: dict[str, Any], record: dict[str, Any],
                session: Session) -> tuple[str | None, dict[str, int], dict | None]:
        if not isinstance(result, dict) or set(result) not in ({"draw"}, {"win"}):
            raise ScoreRefused(_("give either \"draw\": true or \"win\": a declared win "
                                 "(docs/scoring.md)"))
        if "draw" in result:
            if result["draw"] is True:
                return None, {}, None
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
            return None, answer["payments"], answer
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
        return wind, answer["payments"], answer


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
