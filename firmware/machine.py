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
