"""`Quick`, a declared step taken without the generic dispatch, does what its trigger does."""

from __future__ import annotations

from typing import Any

import pytest
from transitions import EventData, MachineError

from firmware.machines.machine import Quick, attach

STATES = ["feeding", "stacking", "full", "fault"]
TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": "arrived", "source": "feeding", "dest": "stacking"},
    {"trigger": "done", "source": "stacking", "dest": "full", "conditions": "complete"},
    {"trigger": "done", "source": "stacking", "dest": "feeding", "unless": "waiting"},
    {"trigger": "done", "source": "stacking", "dest": None},
    {"trigger": "fail", "source": "*", "dest": "fault"},
    {"trigger": "after_too", "source": "feeding", "dest": "full", "after": "noted"},
]


class Side:
    def __init__(self) -> None:
        self.seen: list[str] = []
        self.errors: list[EventData] = []
        self.is_complete = False
        self.is_waiting = False
        self.fail_on_enter = False
        self.raise_on_enter: Exception | None = None
        self.machine = attach(self, STATES, TRANSITIONS, "feeding", self.errors.append)

    def complete(self, _event: Any) -> bool:
        return self.is_complete

    def waiting(self, _event: Any) -> bool:
        return self.is_waiting

    def noted(self, _event: Any) -> None:
        self.seen.append("noted")

    def on_enter_stacking(self, event: EventData) -> None:
        assert event.transition is not None
        self.seen.append(f"enter stacking from {event.transition.source}")
        if self.fail_on_enter:
            self.fail()     # queued: runs once this step is over
            self.seen.append(f"after fail: {self.state}")
        if self.raise_on_enter is not None:
            raise self.raise_on_enter

    def on_enter_full(self, _event: EventData) -> None:
        self.seen.append("enter full")


def both(setup: Any, trigger: str, source: str) -> tuple[Side, Side]:
    """The same step by its trigger and by `Quick`, from the same start."""
    by_trigger, by_quick = Side(), Side()
    for side in (by_trigger, by_quick):
        setup(side)
    getattr(by_trigger, trigger)()
    Quick(by_quick.machine, trigger, source)(by_quick)
    return by_trigger, by_quick


def same(a: Side, b: Side) -> None:
    assert (a.state, a.seen) == (b.state, b.seen)
    assert [(e.event.name, e.state.name, repr(e.error)) for e in a.errors] == \
        [(e.event.name, e.state.name, repr(e.error)) for e in b.errors]


def test_an_arrival_enters_stacking_as_its_trigger_does() -> None:
    a, b = both(lambda s: None, "arrived", "feeding")
    same(a, b)
    assert b.state == "stacking" and b.seen == ["enter stacking from feeding"]


@pytest.mark.parametrize(("complete", "waiting", "dest"), [
    (True, False, "full"), (False, False, "feeding"), (False, True, "stacking")])
def test_a_turn_done_takes_the_first_transition_whose_conditions_hold(
        complete: bool, waiting: bool, dest: str) -> None:
    def setup(side: Side) -> None:
        side.machine.set_state("stacking", model=side)
        side.is_complete, side.is_waiting = complete, waiting
    a, b = both(setup, "done", "stacking")
    same(a, b)
    assert b.state == dest


def test_a_trigger_fired_inside_the_step_runs_after_it() -> None:
    def setup(side: Side) -> None:
        side.fail_on_enter = True
    a, b = both(setup, "arrived", "feeding")
    same(a, b)
    assert b.seen == ["enter stacking from feeding", "after fail: stacking"]
    assert b.state == "fault"


def test_an_exception_in_the_step_goes_to_on_exception() -> None:
    def setup(side: Side) -> None:
        side.raise_on_enter = ValueError("a bug")
    a, b = both(setup, "arrived", "feeding")
    same(a, b)
    assert [(e.event.name, e.state.name) for e in b.errors] == [("arrived", "stacking")]


def test_from_another_state_the_trigger_itself_refuses() -> None:
    def setup(side: Side) -> None:
        side.machine.set_state("full", model=side)
    a, b = both(setup, "arrived", "feeding")
    same(a, b)
    assert isinstance(b.errors[0].error, MachineError)


def test_a_step_with_callbacks_of_its_own_is_refused() -> None:
    with pytest.raises(ValueError, match="not a plain step"):
        Quick(Side().machine, "after_too", "feeding")
