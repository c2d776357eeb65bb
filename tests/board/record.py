"""The host's side of the conformance session: frames made by the host's own encoder.

`python -m tests.board.record > tests/board/recording.txt` writes the recording both
VMs replay; a test checks the file still equals what `hal/protocol.py` makes.
"""

from __future__ import annotations

from hal.protocol import (
    LID_UP,
    VERSION,
    Frame,
    Msg,
    encode_ack,
    encode_arm,
    encode_hello,
    encode_outputs,
    encode_resume,
    encode_rule,
    encode_signal,
)

TABLE = (encode_rule("motor.disc", "case_open", False)
         + encode_rule("motor.side.0.plate", "lid.lower", True)
         + encode_rule("motor.lid", "side.0.plate_home", True, output_value=LID_UP))

BUILD = encode_outputs(("motor.side.0.conveyor", "motor.ring"))


def _rx(at: int, seq: int, msg: Msg, payload: bytes = b"") -> str:
    return f"{at} rx {Frame(seq, msg, payload).encode().hex()}"


def recording() -> str:
    """A session: handshake, a head stopped on its home edge, a plate held on home
    for its dwell through a bounce, an interlock trip, a motion that runs out of
    time, a refused SET, a build's stop fenced ahead of its SAFE, then silence until
    the failsafe, an edge the board records, and RESUME."""
    lines = [
        "# handshake: the version alone, then with the interlock table",
        _rx(0, 0, Msg.HELLO, encode_hello()),
        _rx(1, 0, Msg.HELLO, encode_hello(VERSION, TABLE)),
        _rx(2, 0, Msg.SET, encode_signal("motor.disc", True)),
        "# a head turn: home edge ends it, edges within 5 ms of the start do not count",
        _rx(3, 1, Msg.ARM, encode_arm(7, "motor.side.0.head", True, "side.0.head_home",
                                      True, edges=1, blank_ms=5, max_ms=450)),
        "4 in 22 00",
        "5 in 22 01",
        "6 in 22 00",
        _rx(7, 0, Msg.ACK, encode_ack(3)),
        "100 in 22 01",
        _rx(101, 0, Msg.ACK, encode_ack(5)),
        "# a plate turn: home must hold 60 ms; a bounce restarts the dwell",
        _rx(110, 2, Msg.ARM, encode_arm(8, "motor.side.0.plate", True, "side.0.plate_home",
                                        True, edges=1, confirm_ms=60, max_ms=2500)),
        "120 in 23 00",
        _rx(121, 0, Msg.ACK, encode_ack(6)),
        _rx(300, 0, Msg.HEARTBEAT, b"\x00"),
        "400 in 23 01",
        "430 in 23 00",
        "440 in 23 01",
        _rx(520, 0, Msg.ACK, encode_ack(10)),
        "# the lid leaves its lower stop under a running plate: the board stops it",
        _rx(530, 3, Msg.SET, encode_signal("motor.side.0.plate", True)),
        "540 in 9 00",
        "# the case opens: the disc stops, and stays stopped",
        "560 in 14 01",
        _rx(570, 4, Msg.SET, encode_signal("motor.disc", True)),
        _rx(575, 0, Msg.ACK, encode_ack(15)),
        "# the ring armed on the upper stop, which never comes: max_time",
        _rx(600, 5, Msg.ARM, encode_arm(9, "motor.ring", True, "lid.upper", True,
                                        max_ms=200)),
        _rx(650, 6, Msg.CANCEL, bytes((42,))),
        "# a SET naming an input is refused; then the host falls silent",
        _rx(700, 7, Msg.SET, encode_signal("lid.upper", True)),
        _rx(810, 0, Msg.ACK, encode_ack(16)),
        "# a build's stop: SAFE_NOW names the conveyor and the ring ahead of SAFE #11;",
        "# the ring's SET sent before it and late (a resend) starts nothing, the lid's does",
        _rx(815, 8, Msg.SET, encode_signal("motor.side.0.conveyor", True)),
        _rx(820, 0, Msg.SAFE_NOW, bytes((11,)) + BUILD),
        _rx(825, 9, Msg.SET, encode_signal("motor.ring", True)),
        _rx(826, 10, Msg.SET, encode_signal("motor.lid", LID_UP)),
        _rx(830, 11, Msg.SAFE, BUILD),
        _rx(835, 12, Msg.SET, encode_signal("motor.ring", True)),
        "# a SAFE whole but ahead of a gap (#13 garbled) stops the ring at once; #13,",
        "# resent, starts nothing until that SAFE is in",
        _rx(840, 14, Msg.SAFE, encode_outputs(("motor.ring",))),
        _rx(845, 13, Msg.SET, encode_signal("motor.ring", True)),
        _rx(850, 14, Msg.SAFE, encode_outputs(("motor.ring",))),
        "# silent: the failsafe holds, and the board keeps a record of what follows;",
        "# the host back says RESUME with the board's session and reads it (protocol 5)",
        "1450 in 14 00",
        _rx(1500, 0, Msg.RESUME, encode_resume(0x1234, TABLE)),
        "1600 end",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(recording(), end="")
