"""Why a fault or an event was raised, in the words of the person reading it.

A `why` in a fault's evidence or in an event (and a lost link's `reason`) is stored in
English: it is data, the same in every language, and its English is the msgid of
its translation. Screens, logs and the console say it through `worded`.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from firmware.i18n import N_, _


class InUse(Protocol):
    """A refusal of the owner's (firmware/machines/owner.py): who uses which mechanism."""

    mechanism: str
    user: str

# Why the link to the I/O board was declared lost (`reason` in link.lost's evidence:
# the HAL stores a short fixed word, the technician reads a sentence).
LINK_REASONS = {
    "retries": N_("the board acknowledged nothing, however often it was sent again"),
    "silence": N_("nothing heard from the board for longer than its limit"),
    "board failsafe": N_("the board heard nothing from the host and turned every output "
                         "off"),
}


# Whys recorded with a name or a number inside (the owner's refusals, the API's
# drops). The recorder formats one of these; the display matches the stored English
# against the same template and says it again in the current language.
HELD_BY = N_("{mechanism} is held by {holder} ({use})")
STOPPED_READING = N_("it took nothing for {seconds} s (stopped reading)")
SLOW_LINE = N_("a request line took over {seconds} s")
IDLE = N_("idle for {seconds} s")


def sentence_form(template: str) -> re.Pattern[str]:
    """The sentences `template` formats to, each of its fields a named group."""
    parts = re.split(r"\{(\w+)\}", template)    # text, field, text, field, ..., text
    return re.compile("".join(f"(?P<{part}>.*?)" if i % 2 else re.escape(part)
                              for i, part in enumerate(parts)))


WHY_FORMS = tuple((sentence_form(t), t) for t in (HELD_BY, STOPPED_READING, SLOW_LINE, IDLE))

# Fixed words events carry as data (why a table halted or a set is refed, how a jog
# stopped, who acted): English in the record, said in the reader's language.
EVENT_WORDS = {
    "test mode": N_("test mode"), "estop": N_("e-stop"), "e-stop": N_("e-stop"),
    "console": N_("console"),
    "panel": N_("panel"), "time up": N_("time up"),
    "both lift keys held at power-on": N_("both lift keys held at power-on"),
    "players (top-up)": N_("players (top-up)"),
    "refed after an unclean stop": N_("refed after an unclean stop"),
    "the count of the set being built cannot be trusted":
        N_("the count of the set being built cannot be trusted"),
    "leaving test mode": N_("leaving test mode"),
    # A refused login (firmware/api/server.py): why, in the refusal's event.
    "wrong name or token": N_("wrong name or token"), "locked out": N_("locked out"),
    "no credential": N_("no credential"), "session expired": N_("session expired"),
    "<unknown names>": N_("<unknown names>"),
}
EVENT_FORMS = tuple((sentence_form(t), t) for t in (
    N_("reached {sensor}"), N_("aborted: {why}"), N_("test {name}"),
    N_("fault {code} {id}")))
WORD_KEYS = ("reason", "stopped", "by", "detail", "name")


def event_word(value: str) -> str:
    """A fixed word or form of an event (`EVENT_WORDS`, `EVENT_FORMS`), in the current
    language; anything else (a technician's name) as it is."""
    if value in EVENT_WORDS:
        return _(EVENT_WORDS[value])
    for form, template in EVENT_FORMS:
        match = form.fullmatch(value)
        if match:
            return _(template).format(**{k: event_word(v)
                                         for k, v in match.groupdict().items()})
    return value


def worded(key: str, value: Any) -> Any:
    """An evidence or event value that is an English sentence (`why`, a link's
    `reason`), in the current language. The stored record keeps the English: it is
    data, and the msgid is the key to its translation."""
    if not isinstance(value, str):
        return value
    if key == "why":
        for form, template in WHY_FORMS:
            match = form.fullmatch(value)
            if match:
                return _(template).format(**match.groupdict())
        return _(value)
    if key == "reason" and value in LINK_REASONS:
        return _(LINK_REASONS[value])
    if key in WORD_KEYS:
        return event_word(value)
    return value


def fault_why(evidence: Any) -> str | None:
    """What the firmware saw that made it raise a fault, in words, or None."""
    if not isinstance(evidence, dict):
        return None
    for key in ("why", "reason"):
        if isinstance(evidence.get(key), str):
            return worded(key, evidence[key])
    return None


def in_use(busy: InUse) -> str:
    """A mechanism someone else uses, said at once (a refused jog, test or check)."""
    return _("{mechanism} is in use by {user}").format(mechanism=busy.mechanism,
                                                       user=busy.user)
