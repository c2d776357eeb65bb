"""The venue box's config (`mjtable venue --config venue.toml`): one schema mechanism
with the table's (mjtable_core.schema), its own sections.

Other parts of the venue process add their sections to SECTIONS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware.i18n import _
from mjtable_core.schema import Invalid, load_section, option, read_toml
from venue.desk.sections import BookingSection, NotifySection, StaffSection


@dataclass(frozen=True)
class DeskSection:
    """Where the dashboard listens and what it keeps."""

    listen: str = option("127.0.0.1:8780", doc="host:port of the dashboard; the venue's LAN "
                                               "address to reach it from a phone, never the "
                                               "internet")
    language: str = option("", choices=("", "en", "zh_CN"),
                           doc="the page's language when the browser asks for none we have")
    state_dir: str = option("", doc="where the hand records are kept (default: the state "
                                    "directory)")

    def address(self) -> tuple[str, int]:
        host, _sep, port = self.listen.rpartition(":")
        return host.strip("[]") or "127.0.0.1", int(port)

    def check(self) -> None:
        host, _sep, port = self.listen.rpartition(":")
        if not host or not port.isdigit() or not 0 <= int(port) < 65536:
            raise Invalid("listen", _("{listen}: use host:port, as 127.0.0.1:8780 (port 0: "
                                      "any free port)").format(listen=self.listen))


@dataclass(frozen=True)
class BrokerSection:
    """The venue's MQTT broker, as the venue's own user (read all tables, sign commands)."""

    url: str = option("mqtt://127.0.0.1:1883", doc="mqtt://host:port or mqtts://host:port")
    username: str = option("venue", doc="the venue's broker user")
    password: str = option("", doc="its password")
    tls_ca: str = option("", doc="CA file that signed the broker's certificate (mqtts)")
    key_id: str = option("venue-1", doc="the key id the tables know the venue's key by")
    key_file: str = option("", doc="the venue's Ed25519 private key (base64 of the 32 raw "
                                   "bytes); without it records are kept but not acknowledged")

    def check(self) -> None:
        if not self.url.startswith(("mqtt://", "mqtts://")):
            raise Invalid("url", _("{broker}: use mqtt://host:port or mqtts://host:port")
                          .format(broker=self.url))


SECTIONS: dict[str, type] = {"desk": DeskSection, "broker": BrokerSection,
                             "staff": StaffSection, "booking": BookingSection,
                             "notify": NotifySection}


@dataclass(frozen=True)
class DeskConfig:
    sections: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def desk(self) -> DeskSection:
        return self.sections["desk"]

    @property
    def broker(self) -> BrokerSection:
        return self.sections["broker"]

    def section(self, name: str) -> Any:
        return self.sections[name]


def parse(raw: dict[str, Any], file: str) -> DeskConfig:
    """A ConfigError names the file, section and key of any problem."""
    from mjtable_core.schema import ConfigError

    unknown = sorted(set(raw) - SECTIONS.keys())
    if unknown:
        raise ConfigError(file, unknown[0], None, _("unknown section (valid sections: "
                                                    "{allowed})").format(
                                                        allowed=", ".join(sorted(SECTIONS))))
    return DeskConfig({name: load_section(cls, raw.get(name, {}), file, name)
                       for name, cls in SECTIONS.items()}, file)


def load(path: str | Path | None) -> DeskConfig:
    if path is None:
        return parse({}, "")
    return parse(read_toml(Path(path)), str(path))


def override(config: DeskConfig, section: str, **values: Any) -> DeskConfig:
    """`config` with options of one section replaced (command-line arguments), checked
    as the file's are."""
    import dataclasses

    from mjtable_core.schema import checked

    changed = checked(dataclasses.replace(config.sections[section], **values),
                      config.source or _("command line"), section)
    return DeskConfig({**config.sections, section: changed}, config.source)
