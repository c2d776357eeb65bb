"""Typed, self-checking reader for the table's TOML config.

Every option is declared with its type and range (see `config.py`). Whatever the file
holds that is not declared is an error, never ignored: a typo in a table's config must
stop start-up with a message that names the file, section, key and what is allowed.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from pathlib import Path
from typing import Any

from firmware.i18n import N_, _


class ConfigError(Exception):
    """A config problem a technician can fix; `str()` is the whole message."""

    def __init__(self, file: str, section: str | None, key: str | None, problem: str) -> None:
        where = f"[{section}]" + (f" {key}" if key else "") + ": " if section else ""
        super().__init__(f"{file}: {where}{problem}")
        self.file, self.section, self.key, self.problem = file, section, key, problem


def option(default: Any = dataclasses.MISSING, *, minval: float | None = None,
           maxval: float | None = None, choices: tuple[Any, ...] | None = None,
           doc: str = "") -> Any:
    """Declare a config option with its limits (read by `load_section`)."""
    meta = {"minval": minval, "maxval": maxval, "choices": choices, "doc": doc}
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
    if typing.get_origin(tp) is list:
        if not isinstance(value, list):
            return None
        (inner,) = typing.get_args(tp)
        items = [_check_type(v, inner) for v in value]
        return None if any(i is None for i in items) else items
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
    if choices:
        return _("one of {choices}").format(choices=", ".join(repr(c) for c in choices))
    if lo is not None and hi is not None:
        return _("from {lo} to {hi}").format(lo=lo, hi=hi)
    if lo is not None:
        return _("at least {lo}").format(lo=lo)
    if hi is not None:
        return _("at most {hi}").format(hi=hi)
    return _("any value")


def load_section(cls: type, raw: Any, file: str, section: str) -> Any:
    """Build dataclass `cls` from the TOML table `raw`, checking every key."""
    if not isinstance(raw, dict):
        raise ConfigError(file, section, None, _("must be a table (a [section])"))
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        allowed = ", ".join(sorted(fields))
        raise ConfigError(file, section, unknown[0],
                          _("unknown option (valid options here: {allowed})").format(
                              allowed=allowed))
    values: dict[str, Any] = {}
    for name, field in fields.items():
        tp = hints[name]
        if dataclasses.is_dataclass(tp):
            values[name] = load_section(tp, raw.get(name, {}), file, f"{section}.{name}")
            continue
        if name not in raw:
            required = (field.default is dataclasses.MISSING
                        and field.default_factory is dataclasses.MISSING)
            if required:
                raise ConfigError(file, section, name, _("missing; expected {type}").format(
                    type=_type_name(tp)))
            continue
        value = _check_type(raw[name], tp)
        if value is None:
            raise ConfigError(file, section, name,
                              _("got {value!r}, expected {type}").format(
                                  value=raw[name], type=_type_name(tp)))
        _check_range(value, field.metadata, file, section, name)
        values[name] = value
    return cls(**values)


def _check_range(value: Any, meta: typing.Mapping[str, Any], file: str, section: str,
                 name: str) -> None:
    for item in value if isinstance(value, list) else [value]:
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
