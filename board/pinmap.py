# Which pin is which signal on the reference Raspberry Pi Pico board (docs/board.md).
#
# Channel numbers are the protocol's (docs/protocol.md, append-only). A pin is
#   ("gpio", GPIO number, active_low)            on the RP2040 itself, or
#   ("mcp", I2C address, bit 0-15, active_low)   on an MCP23017 expander (bit 8-15: port B).
# Every input a motion stops on (the lid's stops, the cams, the counters) and the case
# switch is on a GPIO with an interrupt; motors and lamps on expanders (an I2C write at
# 400 kHz takes about 0.1 ms); keys and slow sensors on an expander read every few ms.
# Inputs come through opto-isolators that pull the GPIO low when active.

UART_ID = 0
UART_TX = 0
UART_RX = 1
BAUD = 115200
UART_TXBUF = 4096       # a whole window of frames retransmitted at once fits
UART_RXBUF = 1024       # 90 ms of line while the loop is busy
I2C_ID = 1
I2C_SDA = 26
I2C_SCL = 27
I2C_FREQ = 400000
HEARTBEAT_LIMIT_MS = 500
SLOW_POLL_MS = 5
WATCHDOG_MS = 1000

OUT = 0x20      # MCP23017: every motor
LAMPS = 0x21    # MCP23017: lamps, buzzer and the 17th motor line
KEYS = 0x22     # MCP23017: keys and slow sensors

# motor.lid (channel 0) takes two lines: up and down, never both.
LID_UP_PIN = ("mcp", OUT, 0, False)
LID_DOWN_PIN = ("mcp", OUT, 1, False)

OUTPUTS = {
    1: ("mcp", OUT, 2, False),       # motor.disc
    2: ("mcp", OUT, 3, False),       # motor.ring
    3: ("mcp", OUT, 4, False),       # motor.dice
    4: ("mcp", LAMPS, 0, False),     # lamp.ready
    5: ("mcp", LAMPS, 1, False),     # lamp.building
    6: ("mcp", LAMPS, 2, False),     # buzzer
}
INPUTS = {
    8: ("gpio", 2, True),            # lid.upper
    9: ("gpio", 3, True),            # lid.lower
    10: ("gpio", 4, True),           # dice.spin
    11: ("mcp", KEYS, 0, True),      # key.lift.0
    12: ("mcp", KEYS, 1, True),      # key.lift.1
    13: ("mcp", KEYS, 2, True),      # reset
    14: ("gpio", 5, True),           # case_open
    # The case switch's normally-closed contact ([table] case_contacts = 2); unwired, its
    # pull-up reads it inactive and a one-contact table never looks at it.
    59: ("gpio", 18, True),          # case_open_nc
}
NAMES = {0: "motor.lid", 1: "motor.disc", 2: "motor.ring", 3: "motor.dice",
         4: "lamp.ready", 5: "lamp.building", 6: "buzzer", 7: "display", 8: "lid.upper",
         9: "lid.lower", 10: "dice.spin", 11: "key.lift.0", 12: "key.lift.1", 13: "reset",
         14: "case_open", 59: "case_open_nc"}

_SIDE_NAMES = ("lamp.dealer.", "key.dice.", "motor.side.", "motor.side.", "motor.side.",
               "side.", "side.", "side.", "side.", "side.", "side.")
_SIDE_TAILS = ("", "", ".conveyor", ".head", ".plate", ".full", ".count", ".head_home",
               ".plate_home", ".face_up", ".tile_id")

for _n in range(4):
    _base = 15 + 11 * _n
    for _i in range(11):
        NAMES[_base + _i] = _SIDE_NAMES[_i] + str(_n) + _SIDE_TAILS[_i]
    OUTPUTS[_base] = ("mcp", LAMPS, 3 + _n, False)                 # lamp.dealer.N
    INPUTS[_base + 1] = ("mcp", KEYS, 3 + _n, True)                # key.dice.N
    if _n < 3:
        OUTPUTS[_base + 2] = ("mcp", OUT, 5 + _n, False)           # conveyor
    else:
        OUTPUTS[_base + 2] = ("mcp", LAMPS, 7, False)
    OUTPUTS[_base + 3] = ("mcp", OUT, 8 + _n, False)               # head
    OUTPUTS[_base + 4] = ("mcp", OUT, 12 + _n, False)              # plate
    INPUTS[_base + 5] = ("mcp", KEYS, 7 + _n, True)                # side.N.full
    INPUTS[_base + 6] = ("gpio", 6 + _n, True)                     # side.N.count
    INPUTS[_base + 7] = ("gpio", 10 + _n, True)                    # side.N.head_home
    INPUTS[_base + 8] = ("gpio", 14 + _n, True)                    # side.N.plate_home
    INPUTS[_base + 9] = ("mcp", KEYS, 11 + _n, True)               # side.N.face_up
