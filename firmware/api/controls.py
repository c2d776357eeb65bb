"""What a console elsewhere (the phone's, served by the agent) needs to draw its
controls, in the caller's language: the symptoms a technician can name for a guided
diagnosis, and the motors a jog may turn with the directions each takes.

Both are open: they reveal nothing but the table's shape. The console asks for them
here instead of importing the firmware's diagnosis and maintenance.
"""

from __future__ import annotations

from typing import Any, Protocol

from firmware import words
from firmware.api.access import OPEN, method
from firmware.api.calls import Caller, Handler
from firmware.diagnosis.guided import SYMPTOMS
from firmware.i18n import _
from firmware.machines.maintenance import jog_directions, jog_motors
from mjtable_core.geometry import Geometry


class Table(Protocol):
    @property
    def geometry(self) -> Geometry: ...


class Server(Protocol):
    @property
    def ctl(self) -> Table: ...


def handlers(server: Server) -> dict[str, Handler]:
    @method(OPEN)
    async def symptoms(client: Caller, params: dict[str, Any], _who: str | None) -> Any:
        return {"symptoms": [{"name": name, "label": _(text)}
                             for name, text in SYMPTOMS.items()]}

    @method(OPEN)
    async def motors(client: Caller, params: dict[str, Any], _who: str | None) -> Any:
        return {"motors": [{"motor": motor, "label": words.motor(motor),
                            "directions": list(jog_directions(motor))}
                           for motor in jog_motors(server.ctl.geometry)]}

    return {"symptoms": symptoms, "jog_motors": motors}
