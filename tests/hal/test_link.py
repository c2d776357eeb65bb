"""The link layer on the virtual clock: order, retransmission, and death by silence."""

from __future__ import annotations

import random

from hal.link import LinkEnd
from hal.protocol import Decoder, Msg
from mjtable_core.clock import VirtualClock

DELAY_S = 0.002


class Wire:
    """Two link ends joined by a cable that loses whole writes with probability `loss`."""

    def __init__(self, clock: VirtualClock, loss: float = 0.0, seed: int = 1) -> None:
        self.clock, self.loss, self.rng = clock, loss, random.Random(seed)
        self.cut = False
        self.got: dict[str, list[tuple[int, bytes]]] = {"a": [], "b": []}
        self.dead: dict[str, str] = {}
        self.ends = {name: self._end(name) for name in ("a", "b")}
        self.decoders = {"a": Decoder(), "b": Decoder()}

    def _end(self, name: str) -> LinkEnd:
        other = "b" if name == "a" else "a"
        return LinkEnd(self.clock, lambda data: self._carry(other, data),
                       on_message=lambda m, p: self.got[name].append((m, p)),
                       on_dead=lambda reason, ev: self.dead.setdefault(name, reason),
                       retransmit_s=0.05, max_retries=5, heartbeat_s=0.1, silence_s=0.5)

    def _carry(self, to: str, data: bytes) -> None:
        if self.cut or self.rng.random() < self.loss:
            return
        self.clock.call_later(DELAY_S, lambda: [self.ends[to].on_frame(f)
                                                for f in self.decoders[to].feed(data)])


def test_every_message_arrives_once_and_in_order_over_a_lossy_cable():
    clock = VirtualClock()
    wire = Wire(clock, loss=0.2)
    for end in wire.ends.values():
        end.start()
    for i in range(200):       # more than the window: some wait their turn
        clock.call_at(i * 0.01, lambda i=i: wire.ends["a"].send(Msg.INPUT, bytes((i % 256,))))
    clock.run_until(10.0, until=lambda: len(wire.got["b"]) >= 200
                    and wire.ends["a"].pending == 0)
    inputs = [p[0] for m, p in wire.got["b"] if m == Msg.INPUT]
    assert inputs == [i % 256 for i in range(200)]
    assert wire.ends["a"].stats.retransmits > 0
    assert wire.dead == {}


def test_a_cut_cable_is_noticed_by_silence_within_the_limit():
    clock = VirtualClock()
    wire = Wire(clock)
    for end in wire.ends.values():
        end.start()
    clock.run_until(1.0)
    wire.cut = True
    clock.run_until(1.0 + 0.5 + 0.11)   # silence limit plus one heartbeat period
    assert wire.dead == {"a": "silence", "b": "silence"}


def test_a_deaf_peer_is_given_up_after_the_retries():
    clock = VirtualClock()
    wire = Wire(clock)
    a = wire.ends["a"]
    a.silence_s = 100.0         # keep silence out of it: only the retries count
    a.start()                   # b never starts: it drops every frame
    a.send(Msg.SET, b"\x01\x01")
    clock.run_until(5.0)
    assert wire.dead == {"a": "retries"}
    assert a.stats.retransmits == 5
