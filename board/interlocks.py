# Board-side interlocks: rules the host declares at connect and the board enforces on
# every SET, every ARM and every input change, with or without the host.
#
# A rule is four bytes: output channel, output value (0xFF: any value but its safe
# one), input channel, the value that input must read. "Output X may run (at value
# W) only while input Y reads V." Several rules on one output must all hold.

from board.wire import crc16

ANY = 0xFF
RULE_SIZE = 4


class Interlocks:
    def __init__(self):
        self.rules: tuple = ()
        self.table = b""
        self.hash = crc16(b"")

    def load(self, table):
        """Install the table the host sent; False (and nothing installed) if malformed."""
        if len(table) % RULE_SIZE:
            return False
        rules: list = []
        for i in range(0, len(table), RULE_SIZE):
            rules.append((table[i], table[i + 1], table[i + 2], table[i + 3]))
        self.rules = tuple(rules)
        self.table = bytes(table)
        self.hash = crc16(self.table)
        return True

    def forbids(self, out_ch, value, safe, read):
        """The first rule (its input channel) that forbids `out_ch` at `value`, or None.

        `value` and `safe` are the output's one-byte codes; `read(ch)` an input's."""
        if value == safe:
            return None
        for rule in self.rules:
            if rule[0] != out_ch or (rule[1] != ANY and rule[1] != value):
                continue
            if read(rule[2]) != rule[3]:
                return rule[2]
        return None

    def watched(self, in_ch):
        """Does any rule read input `in_ch`?"""
        return any(rule[2] == in_ch for rule in self.rules)
