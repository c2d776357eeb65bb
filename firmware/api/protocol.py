"""The API's wire format: one JSON object per line, both ways.

A request:  {"id": 7, "method": "status", "params": {...},
             "auth": {"name": "li", "token": "..."}}          (auth only where needed)
A reply:    {"id": 7, "ok": true, "result": {...}}
       or   {"id": 7, "ok": false, "error": {"code": "refused", "message": "..."}}
A stream message (after `subscribe`): {"stream": "event", "event": {...}},
            {"stream": "signals", "t": ..., "signals": {name: value}} or
            {"stream": "status", "status": {...}}.

Lines are UTF-8 and at most MAX_LINE bytes; longer ones are answered with an error
and skipped up to the next newline. A request nested deeper than MAX_DEPTH, or
holding a string that is not valid Unicode (a lone surrogate escape such as
"\ud800"), is refused as a bad request.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_LINE = 64 * 1024
INT_LIMIT = 2 ** 63
MAX_DEPTH = 16
VERSION = 1

# Error codes a client can act on.
BAD_REQUEST = "bad_request"        # not JSON, not an object, unknown method, bad params
TOO_LONG = "too_long"              # a line over MAX_LINE
UNAUTHORIZED = "unauthorized"      # no credential where one is needed
FORBIDDEN = "forbidden"            # a wrong credential, or the name is locked out
REFUSED = "refused"                # an interlock or the table's state says no
NOT_FOUND = "not_found"            # no such fault, mechanism, motor
NOT_AVAILABLE = "not_available"    # a feature this build does not have
INTERNAL = "internal"              # a bug: the daemon keeps running, the log has it


class ApiError(Exception):
    """An error reply: a code and a message a technician can act on."""

    def __init__(self, code: str, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id    # when the request got far enough to have one


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, default=str, separators=(",", ":")) + "\n").encode()


def encode_reply(request_id: Any, result_json: str) -> bytes:
    """A reply whose result is already JSON text (encoded outside the loop)."""
    return (f'{{"id":{json.dumps(request_id, default=str)},"ok":true,"result":'
            f"{result_json}}}\n").encode()


def decode_request(line: bytes) -> dict[str, Any]:
    """Parse one request line or raise ApiError(BAD_REQUEST)."""
    try:
        request = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(BAD_REQUEST, f"not a JSON line: {exc}") from None
    except ValueError:
        # An integer literal past Python's int-from-string limit (4,300 digits).
        raise ApiError(BAD_REQUEST, "a number in the request has too many digits") from None
    except RecursionError:
        raise ApiError(BAD_REQUEST, f"request nested deeper than {MAX_DEPTH} levels") from None
    try:
        _check_value(request, 0)
    except ApiError as exc:
        request_id = request.get("id") if isinstance(request, dict) else None
        raise ApiError(exc.code, exc.message,
                       request_id if isinstance(request_id, int | str) else None) from None
    if not isinstance(request, dict):
        raise ApiError(BAD_REQUEST, "a request must be a JSON object")
    method = request.get("method")
    if not isinstance(method, str):
        raise ApiError(BAD_REQUEST, "a request needs a \"method\" string")
    params = request.get("params")
    if params is None:
        request["params"] = {}
    elif not isinstance(params, dict):
        raise ApiError(BAD_REQUEST, "\"params\" must be an object")
    auth = request.get("auth")
    if auth is not None and not (isinstance(auth, dict)
                                 and isinstance(auth.get("name"), str)
                                 and isinstance(auth.get("token"), str)):
        raise ApiError(BAD_REQUEST, "\"auth\" must be {\"name\": ..., \"token\": ...}")
    return request


def _check_value(value: Any, depth: int) -> None:
    """Refuse deep nesting and strings no UTF-8 encoder can write (lone surrogates)."""
    if depth > MAX_DEPTH:
        raise ApiError(BAD_REQUEST, f"request nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ApiError(BAD_REQUEST, "a string in the request is not valid Unicode "
                           "(a lone surrogate escape such as \\ud800)") from None
    elif isinstance(value, int) and not isinstance(value, bool):
        # Past 64 bits no filter or count makes sense, and SQLite cannot bind it.
        if not -INT_LIMIT <= value < INT_LIMIT:
            raise ApiError(BAD_REQUEST, "an integer in the request is out of range "
                           "(64-bit signed)")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ApiError(BAD_REQUEST, "a number in the request is not finite "
                           "(NaN, Infinity or past 1e308)")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_value(key, depth + 1)
            _check_value(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_value(item, depth + 1)


def reply(request_id: Any, result: Any) -> dict[str, Any]:
    return {"id": request_id, "ok": True, "result": result}


def error(request_id: Any, code: str, message: str) -> dict[str, Any]:
    return {"id": request_id, "ok": False, "error": {"code": code, "message": message}}
