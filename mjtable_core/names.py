"""Technicians' names: one spelling for one person, and none that passes for another's.

The rules a name must keep, the same for the daemon's technicians file
(firmware/api/auth.py) and the venue's staff (venue/desk/accounts/staff.py); the tokens and
their hashes stay with the daemon.
"""

from __future__ import annotations

import unicodedata

from mjtable_core.i18n import _
from mjtable_core.printable import printable

MAX_NAME_CHARS = 32
# Besides letters and digits of any script (张师傅, Zoë): the marks names are spelt with.
NAME_MARKS = "._-·"


# Scripts that may share a name without one letter passing for another (Unicode's
# "highly restrictive" level): Latin with the East Asian scripts, as in Li张.
EAST_ASIAN = frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO"})


def technician_name(name: str) -> str:
    """A name as stored and looked up: compatibility-composed (NFKC), so 张师傅 typed on
    any keyboard is one name, and ｌｉ (an input method left in full width) is li."""
    return unicodedata.normalize("NFKC", name or "")


def scripts(name: str) -> set[str]:
    """The scripts of a name's letters, by their Unicode names (LATIN, CYRILLIC, CJK …)."""
    return {unicodedata.name(ch, "?").split()[0] for ch in name if ch.isalpha()}


def check_name(name: str) -> str:
    """The name as stored, or ValueError: letters of any script and digits, with
    '.', '_', '-', '·' inside; never a control or invisible character, a space, or
    more than MAX_NAME_CHARS characters."""
    name = technician_name(name)
    if not (0 < len(name) <= MAX_NAME_CHARS and name[0].isalnum()
            and all(ch.isalnum() or ch in NAME_MARKS for ch in name)):
        raise ValueError(_("technician name “{name}” is not valid: use 1–{most} letters "
                           "(any script, such as 张师傅 or li), digits, '.', '_', '-' or "
                           "'·', starting with a letter or digit").format(
                               name=printable(name[:MAX_NAME_CHARS * 2]),
                               most=MAX_NAME_CHARS))
    used = scripts(name)
    if len(used) > 1 and not used <= EAST_ASIAN:
        # Cyrillic і in li, Greek Ζ in Zoë: another technician that reads the same.
        raise ValueError(_("technician name “{name}” is not valid: it mixes letters of "
                           "scripts that can look alike (such as Latin and Cyrillic); use "
                           "one script (Latin may go with Chinese)").format(
                               name=printable(name)))
    return name
