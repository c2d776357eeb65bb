"""A `log` reply bounded in bytes, encoded beside the loop.

One open `log` read over fat rows once returned 44 MB and grew the daemon by 150 MB,
all encoded in the loop the table runs on. Rows are now read one at a time and encoded
in the reading thread until REPLY_BYTES; the reply then says `truncated` and the `seq`
to ask on from (`after_seq`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from firmware.state.eventlog import LogReader

REPLY_BYTES = 1024 * 1024
ROW_BYTES = 64 * 1024       # a single row past this is sent as its seq and kind only


class Encoded:
    """A result already encoded as JSON text (the server sends it as it is)."""

    def __init__(self, text: str, cpu_s: float = 0.0) -> None:
        self.text = text
        self.cpu_s = cpu_s      # processor time spent on it (the server paces reads)


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, separators=(",", ":"))


def bounded_log(log: LogReader, filters: dict[str, Any],
                limit_bytes: int = REPLY_BYTES) -> Encoded:
    """The `log` result for `filters`, at most about `limit_bytes` of rows."""
    started = time.thread_time()
    parts: list[str] = []
    used = 0
    last_seq: int | None = None
    truncated = False
    for row in log.iter_query(**filters):
        text = _dumps(row)
        if len(text) > ROW_BYTES:
            text = _dumps({"seq": row["seq"], "run": row["run"], "wall": row["wall"],
                           "t": row["t"], "cycle": row["cycle"], "kind": row["kind"],
                           "chain": row["chain"], "oversized_bytes": len(text)})
        if used + len(text) > limit_bytes:
            truncated = True
            break
        parts.append(text)
        used += len(text) + 1
        last_seq = row["seq"]
    result = f'{{"run":{_dumps(log.run)},"rows":[{",".join(parts)}]'
    if truncated:
        result += f',"truncated":true,"next_after_seq":{_dumps(last_seq)}'
    return Encoded(result + "}", time.thread_time() - started)
