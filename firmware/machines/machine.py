"""One way to build the firmware's state machines with `transitions`.

Every machine module declares its STATES, TRANSITIONS and INITIAL as data; the same
data builds the running machine here and the mermaid diagram in `diagrams.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transitions import Machine

Transition = dict[str, Any]


def attach(model: object, states: list[str], transitions: list[Transition], initial: str,
           on_exception: Callable[[Any], None] | None = None, **options: Any) -> Machine:
    """Make `model` a state machine.

    auto_transitions=False: a generated `to_<state>` would bypass every guard.
    queued=True: callbacks may fire triggers, which then run after the current one.
    send_event=True: every callback and condition gets one EventData; trigger
    arguments travel as keywords in `event.kwargs`.
    """
    return Machine(model=model, states=states, transitions=transitions, initial=initial,
                   auto_transitions=False, queued=True, send_event=True,
                   on_exception=on_exception, **options)


def recover_transitions(dests: list[str]) -> list[Transition]:
    """`recover`: from `fault` back to each of `dests`, the one named by `to=`.

    Declared, so recovery runs the same entry callbacks and guards as any other
    transition and the diagrams show it; the caller passes where the machine was."""
    return [{"trigger": "recover", "source": "fault", "dest": dest,
             "conditions": "recovering_to"} for dest in dests]


class Recoverable:
    """The condition every `recover` transition uses."""

    def recovering_to(self, event: Any) -> bool:
        return bool(event.transition.dest == event.kwargs.get("to"))


def from_fault(event: Any) -> bool:
    """Whether this transition is a recovery (its source is `fault`)."""
    return event.transition is not None and event.transition.source == "fault"
