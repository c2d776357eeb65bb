"""The table's config: every section and option, with types and limits.

`config/table.toml` is the reference four-mouth, two-set, 144-tile table. Firmware
expectations (`[timing]`) and the simulated machine (`[simulator]`) are separate on
purpose: a worn simulated motor must be able to differ from what the firmware expects.
"""

from __future__ import annotations

import base64
import dataclasses
import ipaddress
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mjtable_core import plugins
from mjtable_core.geometry import MODELS, REFERENCE_MODEL, Geometry
from mjtable_core.i18n import _
from mjtable_core.packagedata import data_folder
from mjtable_core.pins import PinMap, check_complete, parse_pins
from mjtable_core.schema import (
    ConfigError,
    Invalid,
    checked,
    load_section,
    not_allowed,
    option,
    read_toml,
)
from mjtable_core.signals import Signal, catalogue

# The reference configs are package data (config/ in the source tree), so an installed
# table finds them wherever pip put it.
REFERENCE_CONFIGS = "mjtable_core.configs"


def reference_config(name: str = "table.toml") -> Path:
    """The path of a reference config shipped with the package (e.g. "table-136.toml")."""
    return data_folder(REFERENCE_CONFIGS, "config") / name


DEFAULT_CONFIG = reference_config()


@dataclass(frozen=True, kw_only=True)
class TableSection:
    id: str = option("table-1", doc="name shown to technicians and venues")
    model: str = option(REFERENCE_MODEL, choices=tuple(MODELS),
                        doc="the table's shape: its mouths and sets (mjtable_core/geometry.py)")
    tiles: int = option(choices=(136, 144), doc="tiles per set (DIP switch on real tables)")
    stacks_per_wall: int = option(choices=(17, 18), doc="stacks per wall: tiles / 8")
    tile_reader: bool = option(False, doc="an RFID/camera reader at each head (side.N.tile_id)")
    face_up_sensor: bool = option(False, doc="a Hall sensor at each head (side.N.face_up)")
    case_contacts: int = option(1, choices=(1, 2),
                                doc="the case switch's contacts: 1 (case_open), or 2: also "
                                    "its normally-closed contact (case_open_nc); any "
                                    "disagreement stops the table (case.contacts)")


@dataclass(frozen=True, kw_only=True)
class HalSection:
    backend: str = option("auto", doc="auto: rpigpio on a Raspberry Pi, else the built-in "
                                      "simulator; or an entry point name in group "
                                      "mjtable.hal_backends (sim, rpigpio, ioboard)")


@dataclass(frozen=True, kw_only=True)
class IoboardSection:
    """The I/O board on a serial line (backend "ioboard"; docs/protocol.md)."""

    port: str = option("/dev/serial0",
                       doc="serial device or pyserial URL (socket://host:port, spy://...)")
    baud: int = option(115200, choices=(9600, 19200, 38400, 57600, 115200, 230400, 460800))
    heartbeat_s: float = option(0.1, minval=0.02, maxval=5.0, doc="host heartbeat period")
    link_timeout_s: float = option(0.5, minval=0.1, maxval=30.0,
                                   doc="no frame from the board this long: link.lost "
                                       "(keep it below the shortest motion watchdog)")
    retransmit_s: float = option(0.03, minval=0.005, maxval=5.0,
                                 doc="resend frames not acknowledged within this")
    max_retries: int = option(15, minval=1, maxval=100,
                              doc="a frame still unacknowledged after this many: link.lost")
    connect_timeout_s: float = option(3.0, minval=0.1, maxval=60.0,
                                      doc="wait this long for the board's handshake")
    resume_within_s: float = option(2.0, minval=0.0, maxval=30.0,
                                    doc="a board gone silent that answers RESUME within "
                                        "this carries on from its record (0: never); "
                                        "later, link.lost")


@dataclass(frozen=True, kw_only=True)
class TimingSection:
    """What the firmware expects of the machine; the supervisor starts from these."""

    lid_travel_s: float = option(1.5, minval=0.2, maxval=10.0)
    plate_turn_s: float = option(2.5, minval=0.5, maxval=10.0)
    head_turn_s: float = option(0.45, minval=0.1, maxval=3.0)
    dice_min_spin_s: float = option(3.0, minval=1.0, maxval=10.0,
                                    doc="shorter spins are refused: a held dice is a cheat")
    dice_max_spin_s: float = option(5.0, minval=1.0, maxval=15.0)
    build_fault_s: float = option(80.0, minval=20.0, maxval=600.0,
                                  doc="a build still running after this is a fault")
    belt_full_pause_s: float = option(0.5, minval=0.0, maxval=10.0,
                                      doc="all belts full this long: pause disc and ring")
    timeout_factor: float = option(2.0, minval=1.2, maxval=10.0,
                                   doc="a motion has failed when its sensor is not seen in k·T")
    key_chord_s: float = option(0.4, minval=0.05, maxval=2.0,
                                doc="both lift keys within this time count as pressed together")
    learn_window: int = option(50, minval=1, maxval=200,
                               doc="learned travel time T = mean of this many recent runs")
    drift_margin: float = option(0.3, minval=0.05, maxval=5.0,
                                 doc="a run slower than T·(1 + margin) warns timing.drift")
    degrade_after: int = option(2, minval=1, maxval=10,
                                doc="signs before a lid stop sensor is judged failed and the "
                                    "lid stops on a timer (sensor.degraded): each miss while "
                                    "the lid moved, and the travel back to the other stop "
                                    "taking its whole learned time, which is always required")
    count_debounce_s: float = option(0.005, minval=0.0, maxval=0.05,
                                     doc="count sensor edges closer than this are bounce")
    count_min_gap_s: float = option(0.06, minval=0.0, maxval=1.0,
                                    doc="two arrivals closer than this are a double count")
    blind_s: float = option(3.0, minval=0.5, maxval=60.0,
                            doc="a full belt with no count this long: count.blind")
    stall_s: float = option(10.0, minval=2.0, maxval=120.0,
                            doc="no arrival at any unfinished side this long: tiles missing")
    sweep_s: float = option(1.5, minval=0.0, maxval=10.0,
                            doc="after a build, run disc and belts this long to find extras")
    slow_factor: float = option(1.5, minval=1.1, maxval=10.0,
                                doc="a build this many times its learned time warns build.slow")

    def check(self) -> None:
        """Options that are each in range but contradict each other."""
        if self.dice_max_spin_s < self.dice_min_spin_s:
            raise Invalid("dice_max_spin_s", _("{max} is below dice_min_spin_s {min}").format(
                max=self.dice_max_spin_s, min=self.dice_min_spin_s))
        if 0 < self.count_min_gap_s <= self.count_debounce_s:
            # Every gap short enough to be a double count would be dropped as bounce first.
            raise Invalid("count_min_gap_s",
                          _("{gap} is not above count_debounce_s {debounce}: double counts "
                            "would pass as bounce (raise it, or 0 turns the check off)").format(
                              gap=self.count_min_gap_s, debounce=self.count_debounce_s))
        if 1 + self.drift_margin >= self.timeout_factor:
            # A run slower than T·(1 + margin) has already failed at k·T: no drift
            # warning could ever come before the fault.
            raise Invalid("drift_margin",
                          _("{margin} makes timing.drift impossible: a motion slower than "
                            "T·{slower:g} has already failed at T·timeout_factor = "
                            "T·{factor:g}; keep drift_margin below {below:g}").format(
                              margin=self.drift_margin, slower=1 + self.drift_margin,
                              factor=self.timeout_factor, below=self.timeout_factor - 1))


@dataclass(frozen=True, kw_only=True)
class RulesSection:
    # The variants are the rules engine's; it checks the name (rules.variants).
    variant: str = option("mcr", doc="the variant the rules engine deals (docs/rules.md)")
    prevalent_wind: str = option("E", choices=("E", "S", "W", "N"))
    overrides: dict = option({}, doc="venue overrides of the variant's parameters")
    engine: str = option("builtin", doc="in-process rules engine: an entry point name in "
                                        "group mjtable.rules_engines; empty = none")
    handoff_file: str = option("", doc="append each handoff record as a JSON line; empty "
                                       "= off; relative to the state directory")


class _Networks:
    """Comma-separated IP networks ("192.168.1.0/24, ::1/128"), as a `choices`."""

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        try:
            for item in value.split(","):
                if item.strip():
                    ipaddress.ip_network(item.strip(), strict=False)
        except ValueError:
            return False
        return True


NETWORKS = _Networks()


@dataclass(frozen=True, kw_only=True)
class ApiSection:
    """The technician console's API (docs/console.md)."""

    tcp: bool = option(False, doc="also listen on TCP; every request then needs a technician")
    tcp_host: str = option("127.0.0.1", doc="TCP address to listen on when tcp = true")
    tcp_port: int = option(7420, minval=1, maxval=65535)
    socket_group: str = option("", doc="group that owns the API socket (0660); under "
                                       "systemd \"mjtable\"; empty = the daemon's group")
    lockout_failures: int = option(5, minval=1, maxval=100,
                                   doc="wrong tokens in a row before a name is locked out")
    lockout_s: float = option(300.0, minval=1.0, maxval=86400.0,
                              doc="lockout length, on the controller's clock")
    log_max_rows: int = option(200_000, minval=1000, maxval=10_000_000,
                               doc="event log rows kept; the oldest are deleted first")
    tcp_net_prefix: int = option(24, minval=8, maxval=32,
                                 doc="TCP slots are counted per network of this prefix "
                                     "length (IPv4; IPv6 by /64): addresses are cheap")
    tcp_estop_networks: str = option(
        "", choices=NETWORKS, shown="networks such as \"192.168.1.0/24, ::1/128\"",
        doc="over TCP, addresses here may press the e-stop without a session; empty = "
            "none (docs/console.md)")


@dataclass(frozen=True, kw_only=True)
class VenueSection:
    """The venue's broker, its signed commands and the booking gate (docs/venue.md)."""

    broker: str = option("", doc="mqtt://host:port or mqtts://host:port (TLS); empty = "
                                 "`mjtable agent` has nowhere to go")
    username: str = option("", doc="this table's broker user (the ACL allows it "
                                   "mjt/v1/<username>/#); empty = [table] id")
    password: str = option("", doc="this table's broker password (better in password_file; "
                                   "here only in a table.toml installed 0640)")
    password_file: str = option("", doc="file holding this table's broker password, "
                                        "readable by the agent's user only (0600)")
    tls_ca: str = option("", doc="CA file that signed the broker's certificate (mqtts)")
    keepalive_s: int = option(30, minval=5, maxval=3600,
                              doc="MQTT keepalive: the broker says offline after 1.5 × this")
    status_every_s: float = option(1.0, minval=0.1, maxval=60.0,
                                   doc="status is published on change, at most this often")
    heartbeat_s: float = option(60.0, minval=1.0, maxval=3600.0,
                                doc="status is published at least this often")
    language: str = option("", choices=("", "en", "zh_CN"),
                           doc="language of fault causes and remedies sent to the venue; "
                               "empty = [display] language")
    console_url: str = option("", doc="the technician console's URL, told in the birth")
    keys: dict = option({}, doc="key id = base64 Ed25519 public key: the venue keys whose "
                                "signed commands this table accepts")
    command_max_s: float = option(300.0, minval=5.0, maxval=86400.0,
                                  doc="a signed command may be valid at most this long")
    gate: bool = option(False, doc="booking gate: a table not enabled finishes its hand, "
                                   "then starts no new build")
    ha_discovery: bool = option(False, doc="publish Home Assistant MQTT discovery configs "
                                           "(read-only sensors) for this table")
    ha_prefix: str = option("homeassistant", doc="Home Assistant's discovery prefix")
    # The phone console (docs/venue.md, "The phone console"): never outside the venue.
    phone_listen: str = option("127.0.0.1:8470", doc="host:port the agent serves the phone "
                               "console on: this table's LAN address (loopback by default); "
                               "empty = off; never a public address")
    phone_networks: str = option(
        "127.0.0.0/8, ::1/128, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7",
        choices=NETWORKS, shown="networks such as \"192.168.1.0/24, ::1/128\"",
        doc="addresses that may open the phone console (even its read-only views); "
            "others are refused")

    def check(self) -> None:
        """Every key must be a 32-byte Ed25519 public key in base64."""
        for key_id, text in self.keys.items():
            try:
                raw = base64.b64decode(str(text), validate=True)
            except ValueError:
                raw = b""
            if len(raw) != 32:
                raise Invalid("keys", _("{key}: not a base64 Ed25519 public key "
                                        "(32 bytes)").format(key=key_id))
        if not self.ha_prefix or any(c in self.ha_prefix for c in "+#\0") or (
                self.ha_prefix.strip("/") != self.ha_prefix):
            raise Invalid("ha_prefix", _("{prefix}: a topic prefix without wildcards or "
                                         "leading and trailing slashes").format(
                                             prefix=self.ha_prefix))
        if self.phone_listen:
            check_phone_listen(self.phone_listen)
        if self.broker and not self.broker.startswith(("mqtt://", "mqtts://")):
            raise Invalid("broker", _("{broker}: use mqtt://host:port or "
                                      "mqtts://host:port").format(broker=self.broker))


def check_phone_listen(text: str) -> None:
    """host:port of the phone console: an IP literal on the venue's side only."""
    host, _sep, port = text.rpartition(":")
    try:
        address = ipaddress.ip_address(host.strip("[]"))
        number = int(port)
    except ValueError:
        raise Invalid("phone_listen", _("{listen}: use an address and port such as "
                                        "192.168.1.31:8470").format(listen=text)) from None
    if not 0 < number < 65536:
        raise Invalid("phone_listen", _("{listen}: the port must be 1–65535").format(
            listen=text))
    if address.is_global or address.is_multicast or address.is_unspecified:
        raise Invalid("phone_listen", _("{listen}: the phone console is for the venue's "
                                        "own network: use this table's LAN address "
                                        "(private, such as 192.168.x.x) or "
                                        "127.0.0.1").format(listen=text))


@dataclass(frozen=True, kw_only=True)
class DisplaySection:
    """What people read (docs/languages.md)."""

    language: str = option("", choices=("", "en", "zh_CN"),
                           doc="en or zh_CN; empty: $MJTABLE_LANG, else the locale ($LANG)")


@dataclass(frozen=True, kw_only=True)
class SimulatorSection:
    """The simulated machine and players (used only when the sim backend runs)."""

    seed: int = option(1, minval=0)
    start: str = option("first_use", choices=("first_use",),
                        doc="first_use: set A on the disc, set B with the players")
    shuffle: str = option("nominal", choices=("nominal", "under_mixed"),
                          doc="under_mixed: a worn disc that barely mixes (for the audit)")
    arrival_rate_per_side: float = option(1.7, minval=0.1, maxval=20.0, doc="tiles/s")
    belt_capacity: int = option(6, minval=1, maxval=20)
    belt_transit_s: float = option(0.8, minval=0.0, maxval=10.0)
    lid_travel_s: float = option(1.5, minval=0.2, maxval=10.0)
    plate_turn_s: float = option(2.5, minval=0.5, maxval=10.0)
    head_turn_s: float = option(0.45, minval=0.1, maxval=3.0)
    count_dwell_s: float = option(0.05, minval=0.005, maxval=1.0,
                                  doc="how long the count sensor sees a passing tile")
    dice_settle_s: float = option(0.3, minval=0.0, maxval=2.0)
    play_time_s: float = option(300.0, minval=1.0, maxval=7200.0, doc="one hand of play")
    push_time_s: float = option(8.0, minval=0.5, maxval=120.0, doc="pushing a set into the hole")
    key_delay_s: float = option(1.5, minval=0.0, maxval=60.0, doc="players' reaction time")
    dealer_keeps: float = option(0.3, minval=0.0, maxval=1.0,
                                 doc="chance the dealer keeps the deal for the next hand")
    # At most ±20 %: the firmware takes a head home sooner than 0.7 of its learned turn
    # for a glitch (a motor is never that much faster), and at ±30 % a healthy fast turn
    # was rejected as one, until a head.jam stopped the table.
    timing_jitter: float = option(0.03, minval=0.0, maxval=0.2,
                                  doc="each motion differs from nominal by up to ± this")
    count_bounce: float = option(0.05, minval=0.0, maxval=1.0,
                                 doc="chance a count edge bounces (a 1–3 ms glitch)")


@dataclass(frozen=True, kw_only=True)
class Config:
    table: TableSection
    hal: HalSection = dataclasses.field(default_factory=HalSection)
    timing: TimingSection = dataclasses.field(default_factory=TimingSection)
    rules: RulesSection = dataclasses.field(default_factory=RulesSection)
    simulator: SimulatorSection = dataclasses.field(default_factory=SimulatorSection)
    api: ApiSection = dataclasses.field(default_factory=ApiSection)
    ioboard: IoboardSection = dataclasses.field(default_factory=IoboardSection)
    display: DisplaySection = dataclasses.field(default_factory=DisplaySection)
    venue: VenueSection = dataclasses.field(default_factory=VenueSection)
    pins: PinMap = dataclasses.field(default_factory=PinMap)   # signal → BCM line (rpigpio)
    source: str = "<defaults>"

    @property
    def geometry(self) -> Geometry:
        """The table's sides, sets and walls, from `[table]`."""
        return Geometry.from_table(self.table)

    @property
    def tiles_per_side(self) -> int:
        return self.geometry.tiles_per_side

    def signals(self) -> dict[str, Signal]:
        """The signals this table has (its readers and sensors as `[table]` says)."""
        return catalogue(self.table.tile_reader, self.table.face_up_sensor, self.geometry,
                         self.table.case_contacts)

    def with_play_time(self, play_time_s: float) -> Config:
        """The same table with the simulated players' hands this long (short hands run
        many cycles quickly: tests, benches, scenarios)."""
        return dataclasses.replace(self, simulator=dataclasses.replace(
            self.simulator, play_time_s=play_time_s))

    def check(self) -> None:
        """The rules that tie sections together (`mjtable_core.schema.checked` calls it)."""
        _cross_check(self)


_SECTIONS = {name: tp for name, tp in typing.get_type_hints(Config).items()
             if name != "source"}
_REQUIRED = ("table",)


def parse_config(raw: dict[str, Any], file: str) -> Config:
    """Build and cross-check a Config from parsed TOML."""
    unknown = sorted(set(raw) - set(_SECTIONS))
    if unknown:
        raise ConfigError(file, unknown[0], None,
                          _("unknown section (valid sections: {sections})").format(
                              sections=", ".join(_SECTIONS)))
    for name in _REQUIRED:
        if name not in raw:
            raise ConfigError(file, name, None, _("missing section"))
    classes = {name: cls for name, cls in _SECTIONS.items() if name != "pins"}
    sections = {name: load_section(cls, raw.get(name, {}), file, name)
                for name, cls in classes.items()}
    sections["pins"] = parse_pins(raw.get("pins", {}), file)   # keys are signal names
    return checked(Config(**sections, source=file), file, None)


def _cross_check(config: Config) -> None:
    """Rules across sections: raise Invalid naming the section and key to change."""
    table, geometry = config.table, config.geometry
    if table.stacks_per_wall != geometry.stacks_for(table.tiles):
        raise Invalid("stacks_per_wall",
                      _("{stacks} stacks per wall do not hold a {tiles}-tile set; use "
                        "{right}").format(stacks=table.stacks_per_wall, tiles=table.tiles,
                                          right=geometry.stacks_per_side), "table")
    backends = plugins.installed(plugins.HAL_BACKENDS)
    if config.hal.backend != "auto" and config.hal.backend not in backends:
        raise Invalid("backend", not_allowed(config.hal.backend, ("auto", *sorted(backends))),
                      "hal")
    if config.hal.backend == "ioboard":
        _check_link(config)
    if config.hal.backend == "rpigpio":
        if table.tile_reader:   # before check_complete, which would ask for its lines
            raise Invalid("tile_reader", _("the rpigpio backend cannot read tiles; set "
                                           "tile_reader = false or use the ioboard "
                                           "backend"), "table")
        check_complete(config.pins, config.signals(), config.source)
    if config.rules.engine:
        plugins.require(plugins.RULES_ENGINES, config.rules.engine, config.source, "rules",
                        "engine")
    # Checks other packages add (the rules engine checks [rules]); they raise
    # ConfigError themselves, with the file.
    for entry in plugins.installed(plugins.CONFIG_CHECKS).values():
        entry.load()(config)


def shortest_motion_watchdog_s(timing: TimingSection) -> tuple[str, float]:
    """The motion whose watchdog (k·T, nominal T) fires first, and after how long."""
    travel = {"lid_travel_s": timing.lid_travel_s, "plate_turn_s": timing.plate_turn_s,
              "head_turn_s": timing.head_turn_s}
    name = min(travel, key=travel.__getitem__)
    return name, travel[name] * timing.timeout_factor


def check_link(config: Config) -> None:
    """The ioboard backend's rule across sections, for a run that chooses that backend
    itself (`simulate --hal ioboard`) rather than by `[hal] backend`; a ConfigError
    names the file, section and key."""
    try:
        _check_link(config)
    except Invalid as exc:
        raise ConfigError(config.source, exc.section, exc.key, exc.problem) from None


def _check_link(config: Config) -> None:
    """A silent board must be reported as the link, not as the motion it was driving."""
    link = config.ioboard
    name, watchdog = shortest_motion_watchdog_s(config.timing)
    if link.link_timeout_s >= watchdog:
        raise Invalid("link_timeout_s",
                      _("{timeout} is not below the shortest motion watchdog [timing] "
                        "{name} × timeout_factor = {watchdog:g} s: a silent board would be "
                        "reported as a stuck mechanism instead of link.lost; lower it, or "
                        "raise timeout_factor").format(timeout=link.link_timeout_s, name=name,
                                                       watchdog=watchdog), "ioboard")


def load_config(path: str | Path | None = None) -> Config:
    """Read and validate a config file (the reference table when `path` is None)."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    return parse_config(read_toml(path), str(path))
