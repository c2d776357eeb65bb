"""One schema mechanism for every TOML file mjtable reads: the table's config,
scenario files and a variant's overrides.

Every option is declared on a dataclass with its type and limits (`option`). Whatever
the file holds that is not declared is an error, never ignored: a typo must stop with
a message that names the file, section, key and what is allowed. Rules that tie
options together live in the schema too: a dataclass's `check()` raises `Invalid`
naming the key to change, and the reader turns it into the same kind of message.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mjtable_core.i18n import N_, _

# Items of an array of tables are read as sections named "fault #2".
_ITEM = re.compile(r"^(.*) #(\d+)$")


class ConfigError(Exception):
    """A config problem a technician can fix; `str()` is the whole message."""

    def __init__(self, file: str, section: str | None, key: str | None, problem: str) -> None:
        super().__init__(f"{file}: {_where(section, key)}{problem}")
        self.file, self.section, self.key, self.problem = file, section, key, problem


def _where(section: str | None, key: str | None) -> str:
    if not section:
        return f"{key}: " if key else ""
    item = _ITEM.match(section)
    shown = f"[[{item.group(1)}]] #{item.group(2)}" if item else f"[{section}]"
    return shown + (f" {key}" if key else "") + ": "


class Invalid(Exception):
    """Raised by a schema's `check()`: option `key` contradicts another.

    `section` names another section than the one being read (a rule across sections).
    """

    def __init__(self, key: str | None, problem: str, section: str | None = None) -> None:
        super().__init__(problem)
        self.key, self.problem, self.section = key, problem, section


def option(default: Any = dataclasses.MISSING, *, minval: float | None = None,
           maxval: float | None = None, choices: typing.Collection[Any] | None = None,
           shown: str = "", key: str = "", doc: str = "") -> Any:
    """Declare an option with its limits (read by `load_section`).

    `choices` may be any collection (a catalogue); `shown` then says in a few words
    what is allowed instead of listing it. `key` is the option's name in the file
    when it differs from the attribute (`[[fault]]` tables fill `faults`).
    """
    meta = {"minval": minval, "maxval": maxval, "choices": choices, "shown": shown,
            "key": key, "doc": doc}
    if isinstance(default, list | dict):
        value = default
        return dataclasses.field(default_factory=lambda: type(value)(value), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


# TOML types as the error names them, in the technician's language.
TYPE_NAMES = {bool: N_("true/false"), int: N_("integer"), float: N_("number"),
              str: N_("string"), dict: N_("TOML table"), type(None): N_("nothing")}


def _type_name(tp: Any) -> str:
    if typing.get_origin(tp) in (list, tuple):
        (inner, *_rest) = typing.get_args(tp)
        return _("list of {type}").format(type=_type_name(inner))
    if isinstance(tp, types.UnionType):
        return _(" or ").join(_type_name(a) for a in typing.get_args(tp))
    if tp in TYPE_NAMES:
        return _(TYPE_NAMES[tp])
    return getattr(tp, "__name__", str(tp))


def _check_type(value: Any, tp: Any) -> Any | None:
    """Return the value converted to `tp`, or None when it does not fit."""
    if isinstance(tp, types.UnionType):
        for arg in typing.get_args(tp):
            converted = _check_type(value, arg)
            if converted is not None:
                return converted
        return None
    origin = typing.get_origin(tp)
    if origin in (list, tuple):
        if not isinstance(value, list):
            return None
        inner = typing.get_args(tp)[0]
        items = [_check_type(v, inner) for v in value]
        return None if any(i is None for i in items) else origin(items)
    # TOML's booleans are ints to Python; keep them apart.
    if tp is bool:
        return value if isinstance(value, bool) else None
    if tp is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if ok else None
    if tp is str:
        return value if isinstance(value, str) else None
    if tp is dict:
        return value if isinstance(value, dict) else None
    return None


def _limits(meta: typing.Mapping[str, Any]) -> str:
    lo, hi, choices = meta.get("minval"), meta.get("maxval"), meta.get("choices")
    if meta.get("shown"):
        return _(meta["shown"])
    if choices:
        return _("one of {choices}").format(choices=", ".join(repr(c) for c in choices))
    if lo is not None and hi is not None:
        return _("from {lo} to {hi}").format(lo=lo, hi=hi)
    if lo is not None:
        return _("at least {lo}").format(lo=lo)
    if hi is not None:
        return _("at most {hi}").format(hi=hi)
    return _("any value")


def not_allowed(value: Any, choices: typing.Iterable[Any]) -> str:
    """The message for a value outside `choices`, as the reader words it."""
    return _("got {value!r}, allowed: {limits}").format(
        value=value, limits=_limits({"choices": tuple(choices)}))


def _key(field: dataclasses.Field) -> str:
    return field.metadata.get("key") or field.name


def _in_file(field: dataclasses.Field, tp: Any) -> bool:
    # Fields declared without `option` (a file's name, say) are not read from the file.
    return "doc" in field.metadata or dataclasses.is_dataclass(tp)


def _tables(tp: Any) -> type | None:
    """The dataclass of an array of tables (`tuple[FaultSpec, ...]`), else None."""
    if typing.get_origin(tp) in (list, tuple):
        inner = typing.get_args(tp)[0]
        if dataclasses.is_dataclass(inner):
            return inner
    return None


@functools.cache
def _options(cls: type) -> dict[str, tuple[dataclasses.Field, Any, str]]:
    """The keys a file may hold for dataclass `cls`: each with its field, its type and
    how it is read ("section", "tables" or "value"). Worked out once per class: a
    rules audit reads a variant's overrides for every record."""
    hints = typing.get_type_hints(cls)
    options = {}
    for field in dataclasses.fields(cls):
        tp = hints[field.name]
        if not _in_file(field, tp):
            continue
        how = ("section" if dataclasses.is_dataclass(tp)
               else "tables" if _tables(tp) is not None else "value")
        options[_key(field)] = (field, tp, how)
    return options


def load_section(cls: type, raw: Any, file: str, section: str | None,
                 base: Any = None, **extra: Any) -> Any:
    """Build dataclass `cls` from the TOML table `raw`, checking every key.

    `section` None is the file's top level. `base` (an instance of `cls`) supplies
    what `raw` leaves out: a variant's overrides. `extra` sets fields that are not
    read from the file. Last, the instance's `check()` (if any) holds the rules that
    tie its options together.
    """
    if not isinstance(raw, dict):
        raise ConfigError(file, section, None, _("must be a table (a [section])"))
    options = _options(cls)
    unknown = sorted(set(raw) - options.keys())
    if unknown:
        allowed = ", ".join(sorted(options))
        raise ConfigError(file, section, unknown[0],
                          _("unknown option (valid options here: {allowed})").format(
                              allowed=allowed))
    values: dict[str, Any] = dict(extra)
    for key, (field, tp, how) in options.items():
        inner = f"{section}.{key}" if section else key
        if how == "section":
            values[field.name] = load_section(tp, raw.get(key, {}), file, inner)
            continue
        if key not in raw:
            required = (field.default is dataclasses.MISSING
                        and field.default_factory is dataclasses.MISSING)
            if base is not None:
                values[field.name] = getattr(base, field.name)
            elif required:
                raise ConfigError(file, section, key, _("missing; expected {type}").format(
                    type=_type_name(tp)))
            continue
        if how == "tables":
            values[field.name] = _load_tables(_tables(tp), raw[key], file, section, inner,
                                              key)
            continue
        value = _check_type(raw[key], tp)
        if value is None:
            raise ConfigError(file, section, key,
                              _("got {value!r}, expected {type}").format(
                                  value=raw[key], type=_type_name(tp)))
        _check_range(value, field.metadata, file, section, key)
        values[field.name] = value
    return checked(cls(**values), file, section)


def _load_tables(cls: type, raw: Any, file: str, section: str | None, inner: str,
                 key: str) -> tuple[Any, ...]:
    if not isinstance(raw, list):
        raise ConfigError(file, section, key,
                          _("must be an array of tables ([[{key}]])").format(key=key))
    return tuple(load_section(cls, item, file, f"{inner} #{i}")
                 for i, item in enumerate(raw, start=1))


def checked(obj: Any, file: str, section: str | None) -> Any:
    """`obj` once its `check()` passed; an `Invalid` becomes a ConfigError."""
    check: Callable[[], None] | None = getattr(obj, "check", None)
    if check is not None:
        try:
            check()
        except Invalid as exc:
            raise ConfigError(file, exc.section or section, exc.key, exc.problem) from None
    return obj


def _check_range(value: Any, meta: typing.Mapping[str, Any], file: str, section: str | None,
                 name: str) -> None:
    for item in value if isinstance(value, list | tuple) else [value]:
        lo, hi, choices = meta.get("minval"), meta.get("maxval"), meta.get("choices")
        number = isinstance(item, int | float) and not isinstance(item, bool)
        # TOML allows nan, and nan passes every comparison: refuse it outright.
        bad = (choices is not None and item not in choices) or (number and (
            item != item or (lo is not None and item < lo) or (hi is not None and item > hi)))
        if bad:
            raise ConfigError(file, section, name, _("got {value!r}, allowed: {limits}").format(
                value=item, limits=_limits(meta)))


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file, turning every read or syntax problem into a ConfigError."""
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(str(path), None, None, _("file not found")) from None
    except OSError as exc:
        raise ConfigError(str(path), None, None, _("cannot read: {error}").format(
            error=exc.strerror)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), None, None, _("not valid TOML: {error}").format(
            error=exc)) from None
    except UnicodeDecodeError as exc:   # tomllib decodes the bytes before parsing
        raise ConfigError(str(path), None, None,
                          _("not a text file (byte {byte} is not UTF-8); a config is TOML "
                            "text").format(byte=exc.start)) from None
    except RecursionError:              # arrays or tables nested past the parser
        raise ConfigError(str(path), None, None, _("not valid TOML: nested too deep")) from None
    except ValueError as exc:           # an integer past Python's 4,300 digits
        raise ConfigError(str(path), None, None, _("not valid TOML: {error}").format(
            error=str(exc)[:120])) from None
