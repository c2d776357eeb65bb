# The board's pins on a Raspberry Pi Pico (RP2040) under MicroPython.
#
# Inputs a motion stops on interrupt on both edges. The handler is a hard IRQ: it runs
# at once, even inside a long C call of the loop (the heap's collection, a UART write),
# and allocates nothing (MicroPython raises MemoryError in a hard IRQ that does). It
# counts the edges of the stop armed on its input (preallocated counters) and, on the
# one that ends it, writes the motor's line off on its expander, one I2C write; a stop
# with a confirmation dwell instead starts a one-shot hard timer there, which makes the
# same cut when the dwell is over if the input held (an edge back cancels it). It
# queues the edge, with its time, for the board, which a scheduled call (a soft IRQ)
# hands over: the board then decides the stop and reports it as before (this is only
# the early cut). The loop's own I2C transfers run with interrupts off (a fraction of
# a millisecond), and so does a cut, so no two meet on the bus. Expander inputs are
# read every few ms from the main loop. Outputs on an expander are written from a
# shadow of its latch.
#
# The board is not re-entrant, and a soft IRQ runs between any two bytecodes of the
# loop: one that ran the board while the loop was inside it gave two frames the same
# sequence number (the host dropped the second as a duplicate), changed the stops
# under the loop's iteration, or lost a latch bit the loop was setting. So the loop
# enters the board only through call(); an edge that comes meanwhile is queued with
# its time and handed to the board as soon as the loop's call returns.

import array
import time

import machine
import micropython

ZERO = b"\x00"
ONE = b"\x01"
_IODIR = 0x00
_GPPU = 0x0C
_GPIO = 0x12
_OLAT = 0x14
_RING = 32              # edges the handler may queue before the board takes them
_WRAP = 1024            # the queue's counters run modulo this (a multiple of _RING)
_ONE_SHOT = machine.Timer.ONE_SHOT


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
        # The hard handlers' state, made once (they may not allocate): a slot a GPIO
        # input, its armed stop, the edges it has counted, its dwell's timer and the
        # line it cuts.
        gpio_inputs = [ch for ch in sorted(pinmap.INPUTS) if pinmap.INPUTS[ch][0] == "gpio"]
        n = len(gpio_inputs)
        self._slot_of = {ch: i for i, ch in enumerate(gpio_inputs)}
        self._h_armed = bytearray(n)    # written last when arming, first when not
        self._h_level = bytearray(n)    # the input value that ends the stop
        self._h_edges = bytearray(n)    # 0: the level alone; else the edges to count
        self._h_seen = bytearray(n)     # edges counted past blank_ms (as ArmedStop.seen)
        self._h_last = bytearray(n)     # the input value the handler last saw
        self._h_addr = bytearray(n)     # the expander, port and masks of the cut
        self._h_port = bytearray(n)
        self._h_and = bytearray(n)
        self._h_or = bytearray(n)
        self._h_start = array.array("i", bytes(4 * n))    # ticks_ms at arming
        self._h_blank = array.array("i", bytes(4 * n))
        self._h_dwell = array.array("i", bytes(4 * n))  # confirm_ms; 0: cut on the edge
        self._h_stop = [None] * n       # the board's ArmedStop a slot is armed for
        self._h_out: dict = {}          # output channel -> the slot that may cut it
        self._h_timer = [machine.Timer(-1) for _ in range(n)]   # a dwell's end, each (soft timers)
        self._h_pin: list = [None] * n  # (machine.Pin, active_low) of each slot
        self._h_fired: list = [None] * n    # each timer's callback, bound once
        self._h_count = 0               # slots holding a stop
        self._ring = array.array("i", bytes(4 * 3 * _RING))   # channel, value, ticks_ms
        self._ends = array.array("i", bytes(4 * 2))     # taken, queued (modulo _WRAP)
        self._flags = bytearray(2)      # a hand-over scheduled; edges the queue lost
        self._cut_out = bytearray(2)   # the cut's I2C write: OLAT register, latch byte
        self._line_out = bytearray(2)  # ... and the loop's
        self._in_data = bytearray(2)   # an expander's inputs, as last read
        self._hand_over_ref = self._hand_over          # bound once: scheduling allocates not
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
        for ch, slot in self._slot_of.items():
            self._h_last[slot] = self._values[ch][0]
            self._h_pin[slot] = self._gpio_pin[ch]
            self._h_fired[slot] = self._dwell_handler(slot)

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
                    trigger=machine.Pin.IRQ_RISING | machine.Pin.IRQ_FALLING, hard=True)
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
        self._after()
        return result

    def _after(self):
        """The edges that came while the board ran, then the hard handlers' stops from
        the board's. _arm_hard runs held like the board: a hand-over that ran inside it
        (between any two bytecodes) ended a stop it was arming and freed the slot, and
        it then armed the slot for that ended stop, an early cut nothing disarmed."""
        while True:
            self._settle()
            self._busy = True
            try:
                self._arm_hard()
            finally:
                self._busy = False
            if not self._edges or self.board is None:
                return

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
        slot = self._h_out.get(ch)
        if slot is not None and self._h_armed[slot]:
            stop = self._h_stop[slot]
            if stop is not None and stop.out_ch == ch:
                # The board drives the line itself (its stop ended, was cancelled or
                # replaced): no early cut of the handlers' may follow it.
                self._disarm(slot)
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
        # Interrupts off: a handler's cut changes this latch byte and uses the bus. No
        # allocation meanwhile (a collection with interrupts off would hold every stop).
        out = self._line_out
        state = machine.disable_irq()
        try:
            if on != where[3]:
                latch[port] |= mask
            else:
                latch[port] &= ~mask
            # Only the port the line is on: one byte less on the bus before a motor stops.
            out[0] = _OLAT + port
            out[1] = latch[port]
            self.i2c.writeto(where[1], out)
        finally:
            machine.enable_irq(state)

    # -- inputs -----------------------------------------------------------------------

    def _sample(self, ch):
        where = self.map.INPUTS[ch]
        if where[0] == "gpio":
            pin, low = self._gpio_pin[ch]
            return ONE if pin.value() != low else ZERO
        data = self._read_expander(where[1])
        return ONE if bool(data[where[2] >> 3] & (1 << (where[2] & 7))) != where[3] else ZERO

    def _read_expander(self, address):
        """The expander's two GPIO bytes, in a buffer the next read overwrites."""
        data = self._in_data
        state = machine.disable_irq()       # the bus is the handlers' too (_cut)
        try:
            self.i2c.readfrom_mem_into(address, _GPIO, data)
        finally:
            machine.enable_irq(state)
        return data

    def _handler(self, ch):
        # Few closed-over names: MicroPython calls a closure of more than four (with its
        # argument) by copying them to the heap, and a hard IRQ may not allocate.
        slot = self._slot_of[ch]

        def changed(_pin):
            self._edge(slot, ch)
        return changed

    def _edge(self, slot, ch):
        """In a hard IRQ (no allocation: arrays, bytearrays and small ints only): count
        the edge for the stop armed on this input as ArmedStop.reached does; on the one
        that ends it, cut (or, with a dwell, start the dwell's timer); queue the edge."""
        pin, low = self._gpio_pin[ch]
        value = 1 if pin.value() != low else 0
        tick = time.ticks_ms()
        if self._h_armed[slot] and value != self._h_last[slot]:
            if value == self._h_level[slot]:
                need = self._h_edges[slot]
                seen = self._h_seen[slot]
                if need and seen < need:
                    if time.ticks_diff(tick, self._h_start[slot]) >= self._h_blank[slot]:
                        seen += 1
                        self._h_seen[slot] = seen
                    else:
                        seen = -1           # inside the blank: not counted
                if not need or seen >= need:
                    dwell = self._h_dwell[slot]
                    if dwell:
                        self._h_timer[slot].init(mode=_ONE_SHOT, period=dwell,
                                                 callback=self._h_fired[slot], hard=True)
                    else:
                        self._h_armed[slot] = 0
                        self._cut(slot)
            elif self._h_dwell[slot]:
                self._h_timer[slot].deinit()    # the hold broke (the count stays)
        self._h_last[slot] = value
        ends, flags = self._ends, self._flags
        queued = ends[1]
        if (queued - ends[0]) % _WRAP < _RING:
            ring, at = self._ring, queued % _RING * 3
            ring[at] = ch
            ring[at + 1] = value
            ring[at + 2] = tick  # type: ignore[call-overload]
            ends[1] = (queued + 1) % _WRAP
        elif flags[1] < 255:
            flags[1] += 1
        if not flags[0]:
            flags[0] = 1
            micropython.schedule(self._hand_over_ref, 0)

    def _cut(self, slot):
        """In a hard IRQ: the armed motor's line off, one I2C write. Interrupts off: a
        pin's handler may preempt a timer's, and the latch byte and bus are shared."""
        address, port = self._h_addr[slot], self._h_port[slot]
        latch = self._latch[address]
        out = self._cut_out
        state = machine.disable_irq()
        latch[port] = (latch[port] & self._h_and[slot]) | self._h_or[slot]
        # Register and value in one buffer: writeto_mem joins its two on the heap.
        out[0] = _OLAT + port
        out[1] = latch[port]
        try:    # noqa: SIM105 (no contextlib on MicroPython)
            self.i2c.writeto(address, out)
        except Exception:   # a bus fault: raising here would disable the handler
            pass
        machine.enable_irq(state)

    def _dwell_handler(self, slot):
        def fired(_timer):
            self._dwell_end(slot)
        return fired

    def _dwell_end(self, slot):
        """In a hard IRQ, the dwell's timer: cut if the stop is still armed and its
        input still at its level (an edge back would have cancelled the timer; read
        again all the same, with interrupts off so no edge comes between)."""
        pin, low = self._h_pin[slot]
        state = machine.disable_irq()
        if self._h_armed[slot] and (1 if pin.value() != low else 0) == self._h_level[slot]:
            self._h_armed[slot] = 0
            self._cut(slot)
        machine.enable_irq(state)

    def _disarm(self, slot):
        # Interrupts off: a handler may be starting this timer again meanwhile.
        state = machine.disable_irq()
        self._h_armed[slot] = 0
        self._h_timer[slot].deinit()
        machine.enable_irq(state)

    def _hand_over(self, _arg):
        """Scheduled by a handler: the queued edges to the board, in order."""
        self._flags[0] = 0
        ring, ends = self._ring, self._ends
        while ends[0] != ends[1]:
            at = ends[0] % _RING * 3
            ch, value, tick = ring[at], ring[at + 1], ring[at + 2]
            ends[0] = (ends[0] + 1) % _WRAP
            ms, last = self._clock
            self._changed(ch, ONE if value else ZERO, ms + time.ticks_diff(tick, last))
        if self._flags[1]:
            print("board edges lost", self._flags[1])
            self._flags[1] = 0

    def _arm_hard(self):
        """The hard handlers' stops from the board's: each armed stop on a GPIO input
        whose output is off on one expander port, with its edges counted so far and
        its dwell. The board keeps deciding every stop; this only makes the cut
        earlier. Run after every turn of the loop, so the usual case is short: no stop,
        or the same stops as last time."""
        board = self.board
        stops = board.stops if board is not None else None
        if not stops and not self._h_count:
            return
        armed, held = self._h_armed, self._h_stop
        seen = 0
        for stop in stops.values() if stops else ():
            slot = self._slot_of.get(stop.in_ch)
            if slot is None:
                continue
            old = held[slot]
            if old is stop:
                seen += 1
                continue            # armed for it already, or cut and not yet handed over
            self._disarm(slot)
            if old is not None and stops.get(old.out_ch) is old:
                continue            # two stops on one input: the board's alone
            if old is None:
                self._h_count += 1
            held[slot] = stop
            seen += 1
            cut = self._cut_of(stop)
            if cut is None:
                continue            # a GPIO output, or two ports: the board's alone
            ms, tick = self._clock
            self._h_level[slot] = stop.level
            self._h_edges[slot] = stop.edges
            self._h_seen[slot] = min(stop.seen, stop.edges)
            self._h_start[slot] = time.ticks_add(  # type: ignore[call-overload]
                tick, stop.started - ms)
            self._h_blank[slot] = stop.blank_ms
            self._h_dwell[slot] = stop.confirm_ms
            self._h_addr[slot], self._h_port[slot] = cut[1], cut[2]
            self._h_and[slot], self._h_or[slot] = cut[3], cut[4]
            self._h_out[stop.out_ch] = slot
            if stop.held_since is not None and stop.confirm_ms:
                # Held already (the edge reached the board before this): the rest of
                # the dwell on the timer, started as the slot is armed (an edge back
                # and forth between the two would have its full dwell cut short).
                left = stop.held_since + stop.confirm_ms - self.now_ms()
                state = machine.disable_irq()
                armed[slot] = 1
                self._h_timer[slot].init(mode=_ONE_SHOT, period=max(1, left),
                                         callback=self._h_fired[slot], hard=True)
                machine.enable_irq(state)
            else:
                armed[slot] = 1
        if seen == self._h_count:
            return
        # A stop the board no longer holds: its slot is free.
        count = 0
        for slot in range(len(held)):
            old = held[slot]
            if old is not None and not (stops and stops.get(old.out_ch) is old):
                self._disarm(slot)
                held[slot] = None
            elif old is not None:
                count += 1
        self._h_count = count

    def _cut_of(self, stop):
        """(stop, address, port, and-mask, or-mask) that turns its output to its safe
        value in one write, or None."""
        ch = stop.out_ch
        safe = self.outputs.get(ch)
        if safe != ZERO or stop.value == 0:
            return None
        lines = (self.map.LID_UP_PIN, self.map.LID_DOWN_PIN) if ch == 0 else (
            self.map.OUTPUTS[ch],)
        address = port = None
        keep, force = 0xFF, 0
        for where in lines:
            if where[0] != "mcp" or (address is not None
                                     and (where[1], where[2] >> 3) != (address, port)):
                return None
            address, port = where[1], where[2] >> 3
            mask = 1 << (where[2] & 7)
            keep &= ~mask & 0xFF
            if where[3]:            # active low: off is high
                force |= mask
        return (stop, address, port, keep, force)

    def _changed(self, ch, value, at=None):
        if self._values[ch] == value:
            return
        self._values[ch] = value
        if self.board is None:
            return
        if at is None:
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
        self._after()

    def poll_slow(self):
        """Read the expanders' inputs every SLOW_POLL_MS."""
        now = self.now_ms()
        if now < self._next_slow:
            return
        self._next_slow = now + self.map.SLOW_POLL_MS
        for address in self._inputs_of:
            data = self._read_expander(address)
            for ch, bit, low in self._inputs_of[address]:
                on = bool(data[bit >> 3] & (1 << (bit & 7))) != low
                self._changed(ch, ONE if on else ZERO)
