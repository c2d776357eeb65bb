# The board's pins on a Raspberry Pi Pico (RP2040) under MicroPython.
#
# Inputs a motion stops on interrupt on both edges; the handler (a soft IRQ, run by
# MicroPython's scheduler between bytecodes) hands the change to the board, which
# stops an armed motor before anything else. Expander inputs are read every few ms
# from the main loop. Outputs on an expander are written from a shadow of its latch.
#
# The board is not re-entrant, and a soft IRQ runs between any two bytecodes of the
# loop: one that ran the board while the loop was inside it gave two frames the same
# sequence number (the host dropped the second as a duplicate), changed the stops
# under the loop's iteration, or lost a latch bit the loop was setting. So the loop
# enters the board only through call(); an edge that comes meanwhile is queued with
# its time and handed to the board as soon as the loop's call returns.

import time

import machine

ZERO = b"\x00"
ONE = b"\x01"
_IODIR = 0x00
_GPPU = 0x0C
_GPIO = 0x12
_OLAT = 0x14


class Pins:
    def __init__(self, pinmap):
        self.map = pinmap
        # MicroPython's 256-byte buffers are too small: a uart.write that finds its
        # buffer full gives the rest of its bytes up within a millisecond (four heads'
        # STOPPED reports at once are some 400 bytes, 35 ms of line), and bytes that
        # come while the loop collects its heap must wait somewhere.
        self.uart = machine.UART(pinmap.UART_ID, baudrate=pinmap.BAUD,
                                 tx=machine.Pin(pinmap.UART_TX), rx=machine.Pin(pinmap.UART_RX),
                                 txbuf=pinmap.UART_TXBUF, rxbuf=pinmap.UART_RXBUF)
        self.tx_lost = 0                # bytes a full buffer refused (said on the console)
        self.i2c = machine.I2C(pinmap.I2C_ID, sda=machine.Pin(pinmap.I2C_SDA),
                               scl=machine.Pin(pinmap.I2C_SCL), freq=pinmap.I2C_FREQ)
        self.names = pinmap.NAMES
        self.board = None
        # (board ms, ticks_ms) at the last reading: one load and one store, so a handler
        # that reads the clock in the middle of the loop's reading gets a whole pair.
        self._clock = (0, time.ticks_ms())
        self._busy = False              # the board is running: an edge waits in _edges
        self._edges: list = []          # (channel, value, board ms) not yet handed over
        self._latch: dict = {}          # expander address -> bytearray(2): output latch
        self._ports: dict = {}          # expander address -> (port A, port B) views of it
        self._inputs_of: dict = {}      # expander address -> [(channel, bit, active_low)]
        self._values: dict = {}         # channel -> bytes, every input and output
        self._gpio_pin: dict = {}       # channel -> (machine.Pin, active_low)
        self._next_slow = 0
        self.outputs = {0: ZERO}
        for ch in pinmap.OUTPUTS:
            self.outputs[ch] = ZERO
        self.inputs = tuple(sorted(pinmap.INPUTS))
        for where in (pinmap.LID_UP_PIN, pinmap.LID_DOWN_PIN):
            self._output_pin(where)
        for ch in pinmap.OUTPUTS:
            self._output_pin(pinmap.OUTPUTS[ch])
        for ch in self.inputs:
            self._input_pin(ch, pinmap.INPUTS[ch])
        for address in self._latch:
            self._expander_setup(address)
        for ch in self.outputs:
            self.write(ch, self.outputs[ch])
        for ch in self.inputs:
            self._values[ch] = self._sample(ch)

    # -- set-up -----------------------------------------------------------------------

    def _output_pin(self, where):
        if where[0] == "gpio":
            machine.Pin(where[1], machine.Pin.OUT, value=1 if where[2] else 0)
        elif where[1] not in self._latch:
            self._latch[where[1]] = bytearray(2)

    def _input_pin(self, ch, where):
        if where[0] == "gpio":
            pin = machine.Pin(where[1], machine.Pin.IN, machine.Pin.PULL_UP)
            self._gpio_pin[ch] = (pin, where[2])
            pin.irq(handler=self._handler(ch),
                    trigger=machine.Pin.IRQ_RISING | machine.Pin.IRQ_FALLING)
        else:
            bits = self._inputs_of.get(where[1])
            if bits is None:
                bits = self._inputs_of[where[1]] = []
                if where[1] not in self._latch:
                    self._latch[where[1]] = bytearray(2)
            bits.append((ch, where[2], where[3]))

    def _expander_setup(self, address):
        # Views of each port's latch byte, made once: a write needs no allocation.
        latch = memoryview(self._latch[address])
        self._ports[address] = (latch[0:1], latch[1:2])
        direction = bytearray(2)
        for _ch, bit, _low in self._inputs_of.get(address, ()):
            direction[bit >> 3] |= 1 << (bit & 7)
        self.i2c.writeto_mem(address, _IODIR, direction)
        self.i2c.writeto_mem(address, _GPPU, direction)

    def attach(self, board):
        self.board = board

    def all_off(self):
        """Every output to its safe value, without the board (its loop has stopped)."""
        for ch in self.outputs:
            self.write(ch, self.outputs[ch])

    # -- the board's side -------------------------------------------------------------

    def now_ms(self):
        ms, last = self._clock
        tick = time.ticks_ms()
        ms += time.ticks_diff(tick, last)
        self._clock = (ms, tick)
        return ms

    def call(self, work):
        """Run `work()` (the loop's turn in the board) with the pins' handlers held
        off it, then hand the board every edge that came meanwhile; work's result."""
        self._busy = True
        try:
            result = work()
        finally:
            self._busy = False
        self._settle()
        return result

    def _settle(self):
        edges = self._edges
        board = self.board
        while edges and board is not None:
            self._busy = True
            try:
                ch, value, at = edges.pop(0)
                board.on_input(ch, value, at)
            finally:
                self._busy = False

    def send(self, data):
        sent = self.uart.write(data)
        if sent != len(data):
            self.tx_lost += len(data) - (sent or 0)

    def read(self, ch):
        return self._values[ch]

    def write(self, ch, value):
        if ch not in self.outputs:
            raise ValueError("not an output")
        if len(value) != 1 or value[0] > (2 if ch == 0 else 1):
            raise ValueError("bad value")
        if ch == 0:     # the lid: off, up or down; both lines off before either goes on
            self._line(self.map.LID_UP_PIN, False)
            self._line(self.map.LID_DOWN_PIN, False)
            if value[0]:
                self._line(self.map.LID_UP_PIN if value[0] == 1 else self.map.LID_DOWN_PIN,
                           True)
        else:
            self._line(self.map.OUTPUTS[ch], value[0] == 1)
        self._values[ch] = ONE if value[0] == 1 else (ZERO if not value[0] else bytes(value))

    def _line(self, where, on):
        if where[0] == "gpio":
            machine.Pin(where[1]).value(1 if on != where[2] else 0)
            return
        latch = self._latch[where[1]]
        port = where[2] >> 3
        mask = 1 << (where[2] & 7)
        if on != where[3]:
            latch[port] |= mask
        else:
            latch[port] &= ~mask
        # Only the port the line is on: one byte less on the bus before a motor stops.
        self.i2c.writeto_mem(where[1], _OLAT + port, self._ports[where[1]][port])

    # -- inputs -----------------------------------------------------------------------

    def _sample(self, ch):
        where = self.map.INPUTS[ch]
        if where[0] == "gpio":
            pin, low = self._gpio_pin[ch]
            return ONE if pin.value() != low else ZERO
        data = self.i2c.readfrom_mem(where[1], _GPIO, 2)
        return ONE if bool(data[where[2] >> 3] & (1 << (where[2] & 7))) != where[3] else ZERO

    def _handler(self, ch):
        pin, low = self._gpio_pin[ch]

        def changed(_pin):
            self._changed(ch, ONE if pin.value() != low else ZERO)
        return changed

    def _changed(self, ch, value):
        if self._values[ch] == value:
            return
        self._values[ch] = value
        if self.board is None:
            return
        at = self.now_ms()
        if self._busy or self._edges:
            # The board is busy (or older edges wait): in order, after the loop's call.
            self._edges.append((ch, value, at))
            return
        self._busy = True
        try:
            self.board.on_input(ch, value, at)
        finally:
            self._busy = False

    def poll_slow(self):
        """Read the expanders' inputs every SLOW_POLL_MS."""
        now = self.now_ms()
        if now < self._next_slow:
            return
        self._next_slow = now + self.map.SLOW_POLL_MS
        for address in self._inputs_of:
            data = self.i2c.readfrom_mem(address, _GPIO, 2)
            for ch, bit, low in self._inputs_of[address]:
                on = bool(data[bit >> 3] & (1 << (bit & 7))) != low
                self._changed(ch, ONE if on else ZERO)
