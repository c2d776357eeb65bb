"""Names that read the same: the skeleton of Unicode TR39 (section 4).

Two technician names whose skeletons are equal look alike on a screen or in the event
log (`ai` in Latin, `аі` in Cyrillic; `Al` and `AI`): a second technician must not be
added under a name that passes for the first. skeleton(X) is NFD(X), each character
replaced by the prototype it is confusable with, NFD again.

The confusables data is Unicode's confusables.txt as the confusable-homoglyphs package
ships it (JSON, both directions of each line). Each line maps one source character to
its prototype, and a prototype is never a source, so every group of look-alikes is a
star around its prototype: the centre of a group of three or more, or the one of
several characters. In a group of two single characters either may be the prototype;
one is chosen, which keeps equal skeletons equal. Loaded once, on first use (adding a
technician), never in the table's loop.
"""

from __future__ import annotations

import functools
import unicodedata

# The package wraps right-to-left characters in LEFT-TO-RIGHT MARKs for display.
LRM = "\u200e"


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> the prototype it reads as."""
    from confusable_homoglyphs.confusables import confusables_data

    group: dict[str, set[str]] = {}
    for key, entries in confusables_data.items():
        node = key.replace(LRM, "")
        for entry in entries:
            other = entry["c"].replace(LRM, "")
            group.setdefault(node, set()).add(other)
            group.setdefault(other, set()).add(node)
    prototype: dict[str, str] = {}
    for node, others in group.items():
        if len(node) != 1 or len(others) != 1:
            continue            # several characters, or a centre: a prototype itself
        (other,) = others
        if len(other) > 1 or len(group[other]) > 1:
            prototype[node] = other
        else:                   # a pair of single characters: the smaller stands for both
            prototype[node] = min(node, other)
    # The package keeps a prototype as its comment shows it, composed (ž for z + caron)
    # and spelt with one of a pair chosen above: decompose and map it until it holds
    # still, so that a skeleton's skeleton is itself.
    def settled(text: str) -> str:
        for _round in range(8):
            mapped = "".join(prototype.get(c, c) for c in unicodedata.normalize("NFD", text))
            if mapped == text:
                break
            text = mapped
        return text

    return {ch: settled(proto) for ch, proto in prototype.items() if ch != proto}


def skeleton(text: str) -> str:
    """TR39's skeleton: equal for two strings that read the same."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)
