"""The venue config's sections for staff, the booking API and notifications.

Read with the one schema mechanism (mjtable_core/schema.py, venue/desk/config.py): a
typo or a value out of range stops with the file, section, key and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware.i18n import _
from mjtable_core.schema import Invalid, option

# Apprise's schemes a venue uses (WeCom, DingTalk, Feishu, Bark, mail, a JSON webhook).
NOTIFY_SCHEMES = ("wecombot", "dingtalk", "feishu", "bark", "mailto", "mailtos", "json",
                  "jsons")


@dataclass(frozen=True, kw_only=True)
class StaffSection:
    """Staff accounts of the venue's dashboard."""

    lockout_failures: int = option(5, minval=1, maxval=100,
                                   doc="wrong passwords in a row before a name is locked out")
    lockout_s: float = option(900.0, minval=1.0, maxval=86400.0, doc="lockout length")
    session_idle_s: float = option(3600.0, minval=60.0, maxval=7 * 86400.0,
                                   doc="a session unused this long expires")
    session_max_s: float = option(12 * 3600.0, minval=60.0, maxval=30 * 86400.0,
                                  doc="a session expires this long after login, used or not")
    secure_cookie: bool = option(False, doc="mark the session cookie Secure (set true "
                                            "when the dashboard is served over HTTPS)")
    argon2_memory_kib: int = option(19456, minval=64, maxval=1 << 21,
                                    doc="argon2id memory per password check (OWASP: 19 MiB)")
    argon2_passes: int = option(2, minval=1, maxval=20, doc="argon2id passes")

    def check(self) -> None:
        if self.session_idle_s > self.session_max_s:
            raise Invalid("session_idle_s", _("must not be longer than session_max_s"))


@dataclass(frozen=True, kw_only=True)
class BookingSection:
    """The booking API (signed with [broker] key_file)."""

    command_valid_s: float = option(60.0, minval=5.0, maxval=86400.0,
                                    doc="a signed command expires this long after issue")
    max_for_s: float = option(86400.0, minval=60.0, maxval=7 * 86400.0,
                              doc="the longest booking `enable` may ask for")
    ack_wait_s: float = option(5.0, minval=0.5, maxval=60.0,
                               doc="how long the API waits for the table's cmd/ack")


@dataclass(frozen=True, kw_only=True)
class NotifySection:
    """Incidents: who is paged when a table faults, and when."""

    urls: list[str] = option([], doc="Apprise URLs paged when a fault opens an incident "
                                     "(wecombot://, dingtalk://, feishu://, bark://, "
                                     "mailto://, json:// for a webhook)")
    escalate_urls: list[str] = option([], doc="paged when an incident stays "
                                              "unacknowledged; empty = urls again")
    debounce_s: float = option(10.0, minval=0.0, maxval=3600.0,
                               doc="a fault cleared within this long pages nobody")
    estop: bool = option(True, doc="page when a table's e-stop is pressed (after debounce_s)")
    offline_after_min: float = option(5.0, minval=0.0, maxval=1440.0,
                                      doc="page when a table stays offline this many "
                                          "minutes; 0 = never")
    escalate_after_min: float = option(10.0, minval=0.0, maxval=1440.0,
                                       doc="page escalate_urls after this many minutes "
                                           "unacknowledged; 0 = never")
    language: str = option("", choices=("", "en", "zh_CN"),
                           doc="language of the notifications; empty = the venue's")
    send_timeout_s: float = option(10.0, minval=1.0, maxval=120.0,
                                   doc="give up on one notification after this long")
    dashboard_url: str = option("", doc="the dashboard's address as staff phones reach it, "
                                        "told in each page; empty = not told")

    def check(self) -> None:
        for key, urls in (("urls", self.urls), ("escalate_urls", self.escalate_urls)):
            for url in urls:
                scheme = url.split("://", 1)[0] if "://" in url else ""
                if scheme not in NOTIFY_SCHEMES:
                    raise Invalid(key, _("{url}: use one of {schemes}").format(
                        url=repr(url[:60]), schemes=", ".join(f"{s}://" for s in NOTIFY_SCHEMES)))
