"""What a simulated run or a fuzz run found wrong, as a person reads it.

A report keeps its problems in English: they are data (scripts and the fuzz's
shrinker compare them), and each is one of the templates below filled in. Screens
say them through `say`, which matches the stored English against the same template
and fills the translated one (firmware/why.py does the same for a fault's why).
"""

from __future__ import annotations

from firmware.i18n import N_, _
from firmware.why import sentence_form

MOTORS_ON = N_("motors still on after {fault}")
WRONG_WALLS = N_("hand {hand}: walls handed off do not match the table (sets on table "
                 "{sets}, complete {complete})")
REFEREE = N_("referee: {rule} at t={t}: {detail}")
STALL = N_("stall in {phase} for {seconds} s (display shows {shown})")
CRASHED = N_("crashed: {error} at {where}")
OUT_OF_TIME = N_("ran out of wall time")
INTERRUPTED = N_("interrupted (Ctrl-C): the report covers what ran until then")
NOT_RAISED = N_("expected fault {fault} was not raised")
UNEXPECTED = N_("unexpected fault {fault}")
TOO_FEW = N_("{completed} cycles completed, expected {wanted}")
TILES = N_("tiles not accounted for")
TEMPLATES = (MOTORS_ON, WRONG_WALLS, REFEREE, STALL, CRASHED, OUT_OF_TIME, INTERRUPTED,
             NOT_RAISED,
             UNEXPECTED, TOO_FEW, TILES)
FORMS = tuple((sentence_form(t), t) for t in TEMPLATES)

# The fuzz's counters: what kind of failure each counts.
CLASS_NAMES = {
    "violations": N_("referee violations"), "stalls": N_("stalls"),
    "crashes": N_("crashes"), "timeouts": N_("out of wall time"),
    "wrong_handoffs": N_("wrong handoffs"),
    "tiles_not_accounted": N_("tiles not accounted for"),
    "wrong_fault": N_("wrong or missing fault"),
    "wrong_diagnosis": N_("wrong diagnosis"),
    "fault_flood": N_("fault floods"), "stale_display": N_("stale display"),
}


def say(problem: str) -> str:
    """A stored problem in the current language (as it is when no template fits)."""
    for form, template in FORMS:
        match = form.fullmatch(problem)
        if match:
            fields = match.groupdict()
            if "shown" in fields and fields["shown"] == "nothing":
                fields["shown"] = _("nothing (a silent stall)")
            return _(template).format(**fields)
    return problem


def class_name(name: str) -> str:
    """A fuzz counter's name in the current language."""
    label = CLASS_NAMES.get(name)
    return _(label) if label else name
