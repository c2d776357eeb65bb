"""One way to build the firmware's state machines with `transitions`.

Every machine module declares its STATES, TRANSITIONS and INITIAL as data; the same
data builds the running machine here and the mermaid diagram in `diagrams.py`.

Its states are a StrEnum declared in its module (`LidState`), and STATES their values:
`transitions` is handed plain strings, because an Enum state it names by the member's
`.name` and keeps the member itself as `model.state`. So `model.state` stays the plain
string every journal, event and reply has always carried, and compares equal to its
member (`lid.state == LidState.CLOSED`). Peers compare with members, or ask the machine
(`lid.down()`, `build.staged`), never with a string typed in.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import partial
from typing import Any, ClassVar

from transitions import EventData, Machine

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


class Parkable:
    """Every machine's `fail` parks it in its states' FAULT (`FAULT`, set by each
    machine to its enum's member) until `reset` or `recover`."""

    FAULT: ClassVar[str]
    state: str

    @property
    def faulted(self) -> bool:
        return self.state == self.FAULT


class Recoverable(Parkable):
    """The condition every `recover` transition uses."""

    def recovering_to(self, event: Any) -> bool:
        return bool(event.transition.dest == event.kwargs.get("to"))


def from_fault(event: Any) -> bool:
    """Whether this transition is a recovery (its source is `fault`)."""
    return event.transition is not None and event.transition.source == "fault"


class Quick:
    """One event of a machine from one source state, taken without `transitions`'
    generic dispatch: for the steps a machine takes per tile, where its dispatch (the
    event data, callbacks resolved by name, a dozen debug records) cost more than the
    step itself.

    Taken as declared: the event's transitions from `source` in their order, the first
    whose conditions hold (a None dest stays), the dest's entry callbacks with the same
    event data; through the machine's own queue, so a trigger a callback fires still
    runs after this step, and an exception goes to `on_exception` as the trigger's
    would. Anything else (another state, a transition already under way) takes the
    trigger itself. What it can take is checked once, here: a transition with
    prepare/before/after callbacks, a source with exit callbacks, or machine-wide
    callbacks are refused, so the declared machine (and its diagram) stays the truth.
    """

    def __init__(self, machine: Machine, trigger: str, source: str) -> None:
        # A state enum's member as the plain string `transitions` names the state by.
        source = source.value if isinstance(source, Enum) else source
        self.machine = machine
        self.trigger = trigger
        self.source = source
        self.event = machine.events[trigger]
        wide = (machine.prepare_event, machine.before_state_change,
                machine.after_state_change, machine.finalize_event)
        transitions = self.event.transitions.get(source, [])
        dests = [machine.get_state(t.dest) for t in transitions if t.dest]
        names = [c.func for t in transitions for c in t.conditions]
        names += [name for state in dests for name in state.on_enter]
        if (not transitions or any(wide) or machine.on_final or machine.get_state(source).on_exit
                or any(t.prepare or t.before or t.after for t in transitions)
                or any(state.final for state in dests)
                or not all(isinstance(name, str) for name in names)):
            raise ValueError(f"{trigger} from {source}: not a plain step")
        # (transition, its conditions as (name, must be), the dest's entry callbacks)
        self.paths = [(t, [(str(c.func), c.target) for c in t.conditions],
                       [str(name) for name in machine.get_state(t.dest).on_enter]
                       if t.dest else [])
                      for t in transitions]

    def __call__(self, model: Any) -> None:
        machine = self.machine
        if model.state != self.source or machine._transition_queue:
            getattr(model, self.trigger)()
            return
        machine._process(partial(self._take, model))

    def _take(self, model: Any) -> bool:
        machine = self.machine
        event = EventData(machine.get_state(self.source), self.event, machine, model, (), {})
        try:
            for transition, conditions, enter in self.paths:
                event.transition = transition
                if all(getattr(model, name)(event) == target for name, target in conditions):
                    if transition.dest:
                        model.state = transition.dest
                        event.state = machine.get_state(transition.dest)
                        for name in enter:
                            getattr(model, name)(event)
                    event.result = True
                    break
        except BaseException as err:    # as Event._trigger: the machine's on_exception
            event.error = err   # type: ignore[assignment]  # transitions stores any
            if not machine.on_exception:
                raise
            machine.callbacks(machine.on_exception, event)
        return bool(event.result)
