"""The embedded broker's last wills held to the same ACL as its publishes (amqtt).

amqtt checks every PUBLISH against `publish_acl`, but the will a client declares in
CONNECT is published by the broker itself when the client drops, and no plugin sees
it: the demo's read-only watcher sent fault pages, hand records and a retained
`offline` through its will. A CONNECT whose will its user may not publish is refused
(Mosquitto does the same with its ACL: tests/venue/test_will_acl.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amqtt.plugins.base import BaseAuthPlugin
from amqtt.plugins.topic_checking import TopicAccessControlListPlugin
from amqtt.session import Session


class WillAclPlugin(BaseAuthPlugin):
    async def authenticate(self, *, session: Session) -> bool | None:
        """False for a will its user may not publish; None (no say) without a will."""
        if not session.will_flag:
            return None
        topic = session.will_topic or ""
        allowed = self.config.publish_acl.get(session.username or "anonymous", [])
        return any(TopicAccessControlListPlugin.topic_ac(topic, pattern)
                   for pattern in allowed)

    @dataclass
    class Config:
        publish_acl: dict[str, list[str]] = field(default_factory=dict)
