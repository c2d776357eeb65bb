# Runs the board's firmware through a recorded session, in MicroPython or CPython.
#
# The same file is executed by the MicroPython WebAssembly VM (run_wasm.mjs) and by
# CPython (tests/board/test_board_micropython.py); both print every byte the board
# sends and every pin it drives, and the test requires the two transcripts to be
# identical. Kept to what MicroPython has: no f-strings with format specs, no typing.
#
# A recording is one step a line: `<ms> rx <hex>` (bytes from the host), `<ms> in
# <channel> <value>` (an input changes) or `<ms> end`. Between steps the board is
# polled at every time it asks for, as its main loop would.

from board.core import Board
from board.wire import crc16

# The reference table's channels this script wires up (docs/protocol.md).
OUTPUTS = {0: b"\x00", 1: b"\x00", 2: b"\x00", 17: b"\x00", 18: b"\x00", 19: b"\x00"}
INPUTS = {8: b"\x00", 9: b"\x01", 14: b"\x00", 22: b"\x01", 23: b"\x01"}


def hexs(data):
    return "".join([f"{b:02x}" for b in data])


def unhex(text):
    return bytes([int(text[i:i + 2], 16) for i in range(0, len(text), 2)])


class ScriptPins:
    def __init__(self, out):
        self.t = 0
        self.out = out
        self.outputs = OUTPUTS
        self.inputs = tuple(sorted(INPUTS))
        self.names = {0: "motor.lid", 1: "motor.disc", 8: "lid.upper", 9: "lid.lower"}
        self.values = {}
        for ch in OUTPUTS:
            self.values[ch] = OUTPUTS[ch]
        for ch in INPUTS:
            self.values[ch] = INPUTS[ch]

    def now_ms(self):
        return self.t

    def boot_token(self):
        return 0x1234

    def read(self, ch):
        return self.values[ch]

    def write(self, ch, value):
        if len(value) != 1 or value[0] > (2 if ch == 0 else 1):
            raise ValueError("bad value")
        if self.values[ch] != value:
            self.out.append(f"{self.t} pin {ch} {hexs(value)}")
        self.values[ch] = bytes(value)

    def send(self, data):
        self.out.append(f"{self.t} tx {hexs(data)}")


def run(lines):
    out = ["crc {:04x}".format(crc16(b"123456789"))]
    pins = ScriptPins(out)
    board = Board(pins, heartbeat_limit_ms=500)
    for line in lines:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        at = int(words[0])
        due = board.next_due()
        while due is not None and due <= at:
            pins.t = max(pins.t, due)
            board.poll()
            due = board.next_due()
        pins.t = at
        if words[1] == "rx":
            board.feed(unhex(words[2]))
        elif words[1] == "in":
            ch = int(words[2])
            value = unhex(words[3])
            if pins.values[ch] != value:
                pins.values[ch] = value
                board.on_input(ch, value, at)
        board.poll()
    out.append(f"stopped {board.stopped_reports} failsafe {int(board.failsafe)}")
    return out


def main(path):
    with open(path) as f:
        lines = f.read().split("\n")
    for line in run(lines):
        print(line)
