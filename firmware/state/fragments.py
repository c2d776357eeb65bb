"""The journal's text, encoding again only what changed since the last save.

The journal is saved several times a hand and most of it (the learned timings, the
wear trends) barely moves between two saves; encoding it whole each time was a tenth
of a simulated hand's CPU. The text is exactly `json.dumps(state)`'s, byte for byte:
dicts keyed by strings are written key by key; a list of atoms (strings, numbers,
booleans, None, and tuples of those) keeps its text while it holds the very same
objects, and each element keeps its own text while it stays in the list (a window of
runs slides by one). Atoms are immutable, so the same objects give the same text, and
a tuple of atoms keeps its text while it is the very same tuple: a part that hands
the journal the same tuple until its window moves costs one comparison a save.
Anything else is encoded whole by `json.dumps`, which still refuses what JSON cannot
hold.
"""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from operator import is_
from typing import Any

DEPTH = 4       # dicts nested deeper are encoded whole (json.dumps finds any cycle)
INFINITY = float("inf")

_dumps = json.dumps
_key_text = encode_basestring_ascii     # what dumps does to a str


class _Whole:
    """json.dumps for what is encoded whole (a dict of atoms, a list of lists), with
    the C encoder dumps makes at every call made once: dumps's text (it is dumps's own
    one-shot path), without the encoder built again a dozen times a save. Anything it
    refuses goes to dumps itself, which refuses it as ever."""

    def __init__(self, sort_keys: bool) -> None:
        self.sort_keys = sort_keys
        self._encode = self._encoder()

    def _encoder(self) -> Any:
        if c_make_encoder is None:      # no C accelerator: dumps itself
            return None
        plain = json.JSONEncoder(sort_keys=self.sort_keys)
        return c_make_encoder({}, plain.default, encode_basestring_ascii, None,
                              plain.key_separator, plain.item_separator, self.sort_keys,
                              plain.skipkeys, plain.allow_nan)

    def __call__(self, value: Any) -> str:
        encode = self._encode
        if encode is not None and type(value) is not str:
            try:
                return "".join(encode(value, 0))
            except Exception:
                # Its cycle markers may still hold the refused value: a new encoder.
                self._encode = self._encoder()
        return _dumps(value, sort_keys=self.sort_keys)


_STR = {str}
_CONTAINERS = frozenset({list, tuple, dict})


def _float_text(value: float) -> str:
    # As json's encoder writes a float (allow_nan, its default).
    if value != value:
        return "NaN"
    if value == INFINITY:
        return "Infinity"
    if value == -INFINITY:
        return "-Infinity"
    return float.__repr__(value)


# Exactly these types, as json.dumps writes them (a subclass is encoded by dumps itself).
ATOM_TEXT: dict[type, Any] = {
    str: _key_text, int: int.__repr__, float: _float_text,
    bool: lambda value: "true" if value else "false", type(None): lambda _value: "null",
}
_ATOMS = frozenset(ATOM_TEXT)


def _atom_text(value: Any) -> str | None:
    """The text of an atom or a tuple of atoms; None for anything else."""
    text = ATOM_TEXT.get(type(value))
    if text is not None:
        return text(value)
    if type(value) is tuple:
        parts = [_atom_text(v) for v in value if type(v) is not tuple]
        if len(parts) == len(value) and None not in parts:
            return "[" + ", ".join(parts) + "]"     # type: ignore[arg-type]
    return None


# What the last save kept, key by key as the state nests: for a list of atoms, its
# elements as saved, its text and each element's text (a tuple); for a dict of atoms,
# an _Atoms; for a dict walked, the same for its own keys. Rebuilt at every save from
# what the save used: what is gone goes.
_Kept = dict[str, Any]


class _Atoms:
    """A dict of atoms as saved: its keys and values (the very objects), and its text."""

    __slots__ = ("keys", "text", "values")

    def __init__(self, value: dict[str, Any], text: str) -> None:
        self.keys = tuple(value)
        self.values = tuple(value.values())
        self.text = text

    def holds(self, value: dict[str, Any]) -> bool:
        return (len(self.keys) == len(value) and all(map(is_, self.keys, value))
                and all(map(is_, self.values, value.values())))


class Fragments:
    """Encodes a journal state as json.dumps would (with its `sort_keys`), reusing the
    text of lists that hold the same atoms as at the last save."""

    def __init__(self, sort_keys: bool = False) -> None:
        self.sort_keys = sort_keys
        self._whole = _Whole(sort_keys)
        self._kept: _Kept = {}
        # Each key's text and separator ('"key": '), made once: the same few dozen keys
        # at every save.
        self._keys: dict[str, str] = {}

    def encode(self, state: dict[str, Any]) -> str:
        kept: _Kept = {}
        text = self._value(state, 0, self._kept, kept, "")
        self._kept = kept       # only once the whole state encoded: a refusal keeps the last
        return text

    def _value(self, value: Any, depth: int, old: _Kept, new: _Kept, key: str) -> str:
        """The text of `value`, kept (if it is) in `new` under `key`; `old` holds what
        the last save kept beside it. Kept by key, level by level: a path of keys
        would be a tuple made and hashed for every value at every save."""
        kind = type(value)
        if kind is list or kind is tuple:
            return self._list(value, old.get(key), new, key)
        # Keys all str: a dict of atoms is kept while it holds the same ones, one with
        # a container among its values walked. The type checks in C (map), not in a
        # generator per key.
        if kind is dict and depth < DEPTH and set(map(type, value)) == _STR:
            kinds = set(map(type, value.values()))
            if kinds <= _ATOMS:
                return self._atoms(value, old.get(key), new, key)
            if _CONTAINERS.isdisjoint(kinds):
                return self._whole(value)       # atoms and a subclass, or a refusal
            was = old.get(key)
            if type(was) is not dict:
                was = {}
            kept: _Kept = {}
            new[key] = kept
            parts = []
            items = sorted(value.items()) if self.sort_keys else value.items()
            keys = self._keys
            for name, item in items:
                kind = type(item)
                text = ATOM_TEXT.get(kind)
                prefix = keys.get(name)
                if prefix is None:
                    prefix = keys[name] = _key_text(name) + ": "
                # An array straight to _list: most of a journal's values are.
                parts.append(prefix + (text(item) if text is not None
                                       else self._list(item, was.get(name), kept, name)
                                       if kind is list or kind is tuple
                                       else self._value(item, depth + 1, was, kept, name)))
            return "{" + ", ".join(parts) + "}"
        text = ATOM_TEXT.get(kind)
        # Anything else whole, in C: a dict too deep or not keyed by str, a subclass,
        # a refusal.
        return text(value) if text is not None else self._whole(value)

    def _atoms(self, value: dict[str, Any], saved: Any, new: _Kept, key: str) -> str:
        if type(saved) is _Atoms and saved.holds(value):
            new[key] = saved
            return saved.text
        text = self._whole(value)
        new[key] = _Atoms(value, text)
        return text

    def _list(self, value: list[Any] | tuple[Any, ...], saved: Any, new: _Kept,
              key: str) -> str:
        parts: list[str] | None = None
        if type(saved) is tuple:
            items, text, texts = saved
            # The very tuple kept (a tuple is kept as itself), or the same elements.
            if items is value or (len(items) == len(value) and all(map(is_, items, value))):
                new[key] = saved
                return text
            if value:
                parts = _slid(items, texts, value)
        if parts is None:
            parts = [_atom_text(item) for item in value]   # type: ignore[misc]
            if None in parts:       # not a list of atoms: encoded whole, not kept
                return self._whole(value)
        text = "[" + ", ".join(parts) + "]"
        new[key] = (value if type(value) is tuple else tuple(value), text, parts)
        return text


def _slid(items: tuple[Any, ...], texts: list[str],
          value: list[Any] | tuple[Any, ...]) -> list[str] | None:
    """The texts of `value`'s elements if it is the saved window slid on (its oldest
    elements gone, new ones appended), reusing the texts of the elements it still
    holds, in C but for the new ones; None if it is not, or a new one is no atom."""
    try:
        start = items.index(value[0])   # equal (atoms), then checked to be the same
    except ValueError:
        return None
    held = len(items) - start
    if held > len(value) or not all(map(is_, items[start:], value[:held])):
        return None
    new = [_atom_text(item) for item in value[held:]]
    if None in new:
        return None
    return texts[start:] + new      # type: ignore[operator]
