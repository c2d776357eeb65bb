"""A side door into the emulated table, for test harnesses: the physical truth.

The I/O-board emulator process (`python -m simulator.rigs.ioboard_emulator --control PATH`)
serves this on a Unix socket. One JSON object per line in, one per line out:

- `{"do": "walls"}` → the walls standing on the table: per side a list of stacks, each
  `[[code, set], [code, set]]` (top, bottom), plus whether they are fully up;
- `{"do": "refeed"}` → the technician empties belts, heads and tracks onto the disc
  (a build is never trusted after a power loss: docs/mechanics.md, step 10);
- `{"do": "remove_extra"}` → the technician takes foreign tiles out of the table;
- `{"do": "state"}` → tiles accounted, motors off, board failsafe latched, powered;
- `{"do": "where"}` → how many tiles are in each place (disc, belt.N, track.N, ...).

It runs inside the emulator's event loop, so it sees the table between two events,
never half-way through one. It is not part of the board: a real table has no such door.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from simulator.physics.table import SimTable


def walls(table: SimTable) -> dict[str, Any]:
    return {"walls": [[[[t.code, t.set_name] for t in stack] for stack in wall]
                      for wall in table.raised_walls()],
            "up": table.walls_up()}


def answer(table: SimTable, board: Any, request: dict[str, Any]) -> dict[str, Any]:
    """The reply to one request; unknown requests get an error, never a guess."""
    do = request.get("do")
    if do == "walls":
        return walls(table)
    if do == "refeed":
        return {"moved": table.refeed()}
    if do == "remove_extra":
        return {"removed": table.remove_foreign_tiles()}
    if do == "where":
        places = Counter(f"{table.where.get(t.id, 'nowhere')} {t.set_name}" for t in table.tiles)
        return {"where": dict(sorted(places.items()))}
    if do == "state":
        return {"tiles_accounted": table.tiles_accounted(), "motors_off": table.motors_off(),
                "failsafe": bool(getattr(board, "failsafe", False)),
                "powered": table.powered}
    return {"error": f"unknown request {do!r}"}


async def serve(path: str | Path, table: SimTable, board: Any) -> asyncio.AbstractServer:
    """Listen on the Unix socket `path` (replacing a stale one)."""
    path = Path(path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                try:
                    reply = answer(table, board, json.loads(line))
                except ValueError as exc:
                    reply = {"error": f"bad request: {exc}"}
                writer.write(json.dumps(reply).encode() + b"\n")
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    return await asyncio.start_unix_server(client, path=str(path))
