"""What a broker's refusal means, in one line a person can act on.

Mosquitto answers a wrong user or password with a reason code (MQTT 5: 134 "Bad user
name or password", 135 "Not authorized"; 3.1.1: 4 and 5); aiomqtt says it as
`[code:135] Not authorized`, which names neither the user nor where to fix it.
"""

from __future__ import annotations

from typing import Any

from firmware.i18n import _

LOGIN_REFUSED = frozenset({4, 5, 134, 135})


def login_refused(exc: BaseException) -> bool:
    """Whether the broker refused this user (a wrong password, an unknown user, or an
    ACL that lets it not connect): no retry makes that right."""
    rc: Any = getattr(exc, "rc", None)
    value = getattr(rc, "value", rc)
    return isinstance(value, int) and value in LOGIN_REFUSED


LOGIN_RETRY_S = 30.0     # the agent's pace of trying again after such a refusal


def refused_line(broker: str, user: str, where: str) -> str:
    return _("the broker {broker} refused the user “{user}”: wrong user name or password "
             "(check {where} and the broker's password file); trying again quietly").format(
                 broker=broker, user=user, where=where)
