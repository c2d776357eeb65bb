// The Pico rig's chip: MicroPython's RP2040 image on rp2040js, stepped by the simulator.
//
// node chip.mjs IMAGE.uf2 BOOTROM.bin
//
// The simulator (simulator/rigs/pico_chip.py) is the master of time: it sends one JSON
// command a line on stdin and reads one JSON answer a line on stdout. Nothing here
// runs on its own: the chip advances only inside "run", to the chip time it is told
// (nanoseconds at 125 MHz), so a run is as repeatable as the simulator's own clock.
//
// What the board sees is what a Pico on the table sees:
//   - GPIO inputs the simulator drives ("gpio"), read by the firmware's pin IRQs;
//   - three MCP23017 expanders on I2C1 (0x20, 0x21, 0x22), emulated here register by
//     register, each byte taking its time on a 400 kHz bus; their output latches are
//     reported with the chip time of the byte that changed them;
//   - UART0 (GP0/GP1) as the host link: bytes in are paced at the line's baud rate;
//   - the USB serial (CDC), where MicroPython's REPL is, for flashing (raw REPL);
//   - the watchdog: a reset reboots the chip (its flash as it was: rp2040js does not
//     emulate writing it) and the expanders reset (their RESET wired to the Pico's RUN).
import { readFileSync } from 'fs';
import { createInterface } from 'readline';
import { Simulator, USBCDC, ConsoleLogger, LogLevel, I2CMode } from 'rp2040js';
import { decodeBlock } from 'uf2';

const [imagePath, bootromPath] = process.argv.slice(2);
const CYCLE_NS = 8;                  // 125 MHz
const BAUD = 115200;
const BYTE_NS = Math.round(10 * 1e9 / BAUD);     // 8N1: ten bits a byte
const I2C_BIT_NS = 2500;             // 400 kHz
const WDT_LOAD = 0x04;
const EXPANDERS = [0x20, 0x21, 0x22];

const bootrom = readFileSync(bootromPath);
const image = new Uint8Array(16 * 1024 * 1024).fill(0xff);
{
  const uf2 = readFileSync(imagePath);
  for (let at = 0; at + 512 <= uf2.length; at += 512) {
    const { flashAddress, payload } = decodeBlock(uf2.subarray(at, at + 512));
    image.set(payload, flashAddress - 0x10000000);
  }
}

// -- the expanders ----------------------------------------------------------------------
class MCP23017 {
  constructor(address) { this.address = address; this.reset(); }
  reset() {
    this.regs = new Uint8Array(0x16);
    this.regs[0x00] = 0xff; this.regs[0x01] = 0xff;     // IODIR: all inputs at power-on
    this.pointer = 0; this.first = true; this.pins = 0xffff;   // inputs the table drives
  }
  read() {
    const r = this.pointer;
    let v = this.regs[r];
    if (r === 0x12 || r === 0x13) {          // GPIO: inputs as driven, outputs as latched
      const port = r - 0x12;
      const dir = this.regs[port], pins = (this.pins >> (8 * port)) & 0xff;
      v = (pins & dir) | (this.regs[0x14 + port] & ~dir & 0xff);
    }
    this.pointer = (r + 1) % 0x16;
    return v;
  }
  write(value) {
    if (this.first) { this.pointer = value % 0x16; this.first = false; return false; }
    let r = this.pointer;
    if (r === 0x12 || r === 0x13) r += 2;    // writing GPIO writes the latch
    const before = this.latch();
    this.regs[r] = value;
    this.pointer = (this.pointer + 1) % 0x16;
    return this.latch() !== before;
  }
  latch() { return this.regs[0x14] | (this.regs[0x15] << 8); }
}
const expanders = new Map(EXPANDERS.map((a) => [a, new MCP23017(a)]));

// -- the chip ---------------------------------------------------------------------------
let sim, mcu, cdc;
let base = 0;                // chip time before the last reset (ns)
let resets = 0;
let events = [];             // [t_ns, kind, ...]
let tx = [];                 // UART0 bytes out
let console_ = [];           // USB serial bytes out
let rxQueue = [];            // UART0 bytes still to cross the line
let cdcQueue = [];           // USB serial bytes for the chip
let rxAlarm = null;
let cdcUp = false;
let cdcRead = null;          // the host's OUT transfer the device armed, waiting for bytes
let lastFeed = null;         // chip time of the last watchdog feed
const feeds = [];            // loop periods (ns), between watchdog feeds
const gpioIn = new Map();    // pin -> level the table drives (kept across resets)
let pendingReset = false;
let idleNs = 0;              // chip time the core spent asleep (WFI/WFE)
let entries = {};            // exception number -> times taken, since last asked ("irqs")

const now = () => base + sim.clock.nanos;

function boot() {
  sim = new Simulator();
  mcu = sim.rp2040;
  mcu.logger = new ConsoleLogger(LogLevel.Error);
  mcu.loadBootrom(new Uint32Array(bootrom.buffer, bootrom.byteOffset, bootrom.length / 4));
  mcu.flash.set(image);
  for (const [pin, level] of gpioIn) mcu.gpio[pin].setInputValue(level);
  mcu.uart[0].onByte = (b) => { tx.push(b); };
  for (const uart of mcu.uart) paceTx(uart);
  cdcUp = false;
  cdc = new USBCDC(mcu.usbCtrl);
  cdc.onDeviceConnected = () => { cdcUp = true; };
  cdc.onSerialData = (data) => { for (const b of data) console_.push(b); };
  // A USB host sends nothing on an OUT endpoint until it has data (it NAKs the
  // device's request); rp2040js's CDC host answers at once with an empty packet, and
  // TinyUSB re-arms the endpoint: an interrupt every few microseconds that keeps the
  // core from ever sleeping. The read waits here until there are bytes to send.
  cdcRead = null;
  mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) return;
    cdcRead = { endpoint, size };
    cdcSend();
  };
  rxAlarm = sim.clock.createAlarm(feedRx);
  if (rxQueue.length) rxAlarm.schedule(BYTE_NS);
  const wdt = mcu.peripherals[0x40058];
  // rp2040js re-arms the watchdog's periodic alarm 0 ns ahead once its counter is at 0,
  // and would fire it forever inside one clock tick: the chip resets instead.
  wdt.onWatchdogTrigger = () => { pendingReset = true; wdt.alarm.enable = false; };
  const write = wdt.writeUint32.bind(wdt);
  wdt.writeUint32 = (offset, value) => {
    if (offset === WDT_LOAD) {
      const t = now();
      if (lastFeed !== null) feeds.push(t - lastFeed);
      lastFeed = t;
    }
    write(offset, value);
  };
  wireI2C(mcu.i2c[1]);
  const entry = mcu.core.exceptionEntry.bind(mcu.core);
  mcu.core.exceptionEntry = (n) => { entries[n] = (entries[n] || 0) + 1; entry(n); };
  mcu.core.PC = 0x10000000;
}

// The UART's transmitter as the PL011 has it, where rp2040js sends every byte the
// instant it is written and says its FIFO is always empty: a 32-byte FIFO and the
// shift register, one byte out every ten bit times; UARTFR says full, empty and busy;
// the TX interrupt is raised when the FIFO falls to its trigger level (4 bytes,
// pico-sdk's) and cleared by writing above it or by UARTICR. MicroPython fills the
// FIFO from its own buffer (txbuf) in that interrupt, and a uart.write that finds the
// buffer full gives up after its timeout with the rest of the bytes unsent: what a
// burst of frames does on a real Pico, which an instant line would never show.
const TX_DEPTH = 33;         // the FIFO and the shift register
const TX_LEVEL = 4;
const TXINTR = 1 << 5, TXFF = 1 << 5, TXFE = 1 << 7, BUSY = 1 << 3, RXFF = 1 << 6, RXFE = 1 << 4;

function paceTx(uart) {
  const line = [];           // bytes written and not yet out, the first on the wire
  const alarm = sim.clock.createAlarm(() => {
    alarm.scheduled = false;
    const byte = line.shift();
    if (uart.onByte) uart.onByte(byte);
    if (line.length) alarm.schedule(BYTE_NS);
    if (line.length === TX_LEVEL) { uart.interruptStatus |= TXINTR; uart.checkInterrupts(); }
  });
  Object.defineProperty(uart, 'flags', {
    get: () => (uart.rxFIFO.full ? RXFF : 0) | (uart.rxFIFO.empty ? RXFE : 0)
      | (line.length >= TX_DEPTH ? TXFF : 0) | (line.length <= 1 ? TXFE : 0)
      | (line.length ? BUSY : 0),
  });
  // rp2040js raises the TX interrupt again on every interrupt check: only the FIFO's
  // fall to its level raises it here.
  uart.checkInterrupts = function () {
    this.rp2040.setInterrupt(this.irq, !!(this.interruptStatus & this.interruptMask));
  };
  const write = uart.writeUint32.bind(uart);
  uart.writeUint32 = (offset, value) => {
    if (offset !== 0) { write(offset, value); return; }
    if (line.length < TX_DEPTH) line.push(value & 0xff);    // a full FIFO loses it
    if (!alarm.scheduled) alarm.schedule(BYTE_NS);
    if (line.length > TX_LEVEL) uart.interruptStatus &= ~TXINTR;
    uart.checkInterrupts();
  };
}

function cdcSend() {
  // The host's pending OUT transfer, once the host has bytes for it.
  if (cdcRead === null || cdc.txFIFO.empty) return;
  const { endpoint, size } = cdcRead;
  cdcRead = null;
  const buffer = new Uint8Array(Math.min(size, cdc.txFIFO.itemCount));
  for (let i = 0; i < buffer.length; i++) buffer[i] = cdc.txFIFO.pull();
  mcu.usbCtrl.endpointReadDone(endpoint, buffer);
}

function feedRx() {
  rxAlarm.scheduled = false;     // rp2040js leaves a fired alarm marked as scheduled
  if (!rxQueue.length) return;
  mcu.uart[0].feedByte(rxQueue.shift());
  if (rxQueue.length) rxAlarm.schedule(BYTE_NS);
}

let busStuck = false;        // an expander holds SCL low: no transfer ever completes

function wireI2C(i2c) {
  let device = null;
  const later = (ns, fn) => { if (!busStuck) sim.clock.createAlarm(fn).schedule(ns); };
  i2c.onStart = () => later(I2C_BIT_NS, () => i2c.completeStart());
  i2c.onConnect = (address, mode) => {
    device = expanders.get(address) || null;
    if (device) { device.first = mode === I2CMode.Write; }
    later(9 * I2C_BIT_NS, () => i2c.completeConnect(device !== null));
  };
  i2c.onWriteByte = (value) => later(9 * I2C_BIT_NS, () => {
    if (device && device.write(value)) events.push([now(), 'mcp', device.address, device.latch()]);
    i2c.completeWrite(device !== null);
  });
  i2c.onReadByte = () => later(9 * I2C_BIT_NS, () => i2c.completeRead(device ? device.read() : 0xff));
  i2c.onStop = () => later(I2C_BIT_NS, () => { device = null; i2c.completeStop(); });
}

function reboot() {
  // The watchdog (or machine.reset()) resets the chip: its flash, where the board's
  // files are, survives; so does nothing else. The expanders reset with it.
  pendingReset = false;
  resets += 1;
  image.set(mcu.flash);
  base = now();
  lastFeed = null;
  for (const e of expanders.values()) {
    const before = e.latch();
    e.reset();
    if (before !== 0) events.push([base, 'mcp', e.address, 0]);
  }
  busStuck = false;           // the expanders' RESET is wired to the Pico's RUN
  events.push([base, 'reset', resets]);
  boot();
}

function runTo(target) {
  let clock = sim.clock, core = mcu.core;
  while (now() < target) {
    if (pendingReset) {
      reboot();                  // a new chip: its own clock and core from now on
      clock = sim.clock; core = mcu.core;
      continue;
    }
    if (cdcUp && cdcQueue.length) {
      // As fast as the chip takes them: the device's FIFO drops what it has no room for.
      while (cdcQueue.length && !cdc.txFIFO.full) cdc.sendSerialByte(cdcQueue.shift());
      cdcSend();
    }
    const left = target - now();
    if (core.waiting) {
      // Asleep until the next alarm (none: until the target; rp2040js says 0).
      const next = clock.nanosToNextAlarm;
      const dt = next > 0 ? Math.min(next, left) : left;
      idleNs += dt;
      clock.tick(dt);
    } else {
      // A slice of instructions between looks at the queues and the target.
      for (let i = 0; i < 256 && !core.waiting; i++) {
        clock.tick(core.executeInstruction() * CYCLE_NS);
      }
    }
  }
}

const hex = (bytes) => Buffer.from(bytes).toString('hex');

function handle(cmd) {
  switch (cmd.op) {
    case 'run': runTo(cmd.to); break;
    case 'gpio':
      gpioIn.set(cmd.pin, !!cmd.v);
      mcu.gpio[cmd.pin].setInputValue(!!cmd.v);
      events.push([now(), 'in', cmd.pin, cmd.v ? 1 : 0]);
      break;
    case 'mcp': expanders.get(cmd.addr).pins = cmd.bits; break;
    case 'stuck': busStuck = !!cmd.v; break;
    case 'rx':
      for (const b of Buffer.from(cmd.hex, 'hex')) rxQueue.push(b);
      if (!rxAlarm.scheduled) rxAlarm.schedule(BYTE_NS);
      break;
    case 'cdc': for (const b of Buffer.from(cmd.hex, 'hex')) cdcQueue.push(b); break;
    case 'loop': {
      const out = feeds.splice(0);
      return { loop_ns: out, idle_ns: idleNs };
    }
    case 'irqs': { const out = entries; entries = {}; return { entries: out }; }
    case 'pc': return { pc: mcu.core.PC.toString(16), t: now(), resets, cdc: cdcUp };
    case 'quit': process.exit(0);
    default: return { error: 'unknown op ' + cmd.op };
  }
  const out = { t: now(), resets, cdc: cdcUp };
  if (events.length) { out.ev = events; events = []; }
  if (tx.length) { out.tx = hex(tx); tx = []; }
  if (console_.length) { out.con = hex(console_); console_ = []; }
  return out;
}

boot();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let answer;
  try { answer = handle(JSON.parse(line)); } catch (e) { answer = { error: String(e && e.stack || e) }; }
  process.stdout.write(JSON.stringify(answer) + '\n');
});
lines.on('close', () => process.exit(0));
