"""What `verify-log` found in the event log's hash chain, as a person reads it.

The finding is data in English (the API and scripts keep it as it is), one of these
templates filled in; the console says it again in the reader's language (`say`).
"""

from __future__ import annotations

from firmware.i18n import N_, _
from firmware.why import sentence_form

CHAIN_NONE = N_("the log has no hash chain (written by an older firmware)")
CHAIN_UNDER = N_("row {row} was added before the chain's anchor (row {anchor}); nothing "
                 "there is ever written")
CHAIN_REMOVED = N_("row {row} was removed (the next row is {next}); {checked} rows before "
                   "it are intact")
CHAIN_CHANGED = N_("row {row} was changed or moved (its hash does not follow row "
                   "{before}); {checked} rows before it are intact")
CHAIN_CUT = N_("rows after {row} were removed (the recorded head is row {head})")
CHAIN_INTACT = N_("{checked} rows intact from row {first}; head {head}")
CHAIN_YOUNG = N_("rotation deleted rows only {age} h older than the newest (up to row "
                 "{row}), younger than the {keep} h kept; a flood of rows may have pushed "
                 "the table's history out")
FORMS = tuple((sentence_form(t), t) for t in (
    CHAIN_NONE, CHAIN_UNDER, CHAIN_REMOVED, CHAIN_CHANGED, CHAIN_CUT, CHAIN_INTACT,
    CHAIN_YOUNG))


def say(found: str) -> str:
    """A finding of `verify_chain` in the current language."""
    for form, template in FORMS:
        match = form.fullmatch(found)
        if match:
            return _(template).format(**match.groupdict())
    return found
