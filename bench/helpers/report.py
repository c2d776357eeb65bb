"""How a bench's command line prints its report: one JSON object, or `key: value` lines."""

from __future__ import annotations

import json
from typing import Any


def print_report(report: dict[str, Any], as_json: bool) -> int:
    """Print `report`; the exit code is 0 when its `ok` holds."""
    if as_json:
        print(json.dumps(report, indent=1))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0 if report["ok"] else 1
