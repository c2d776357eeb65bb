"""Who may reach the phone console, and whether a POST is the page's own.

- Only addresses in `[venue] phone_networks` are served, even the read-only views.
- The Host header must be an IP address or `localhost` (or the console URL's host):
  a page elsewhere that points its own name at this table (DNS rebinding) is refused.
- Every POST carries the session's CSRF token (header, or a form field for the
  beacon a closing page sends), and, when the browser says where it came from, that
  is this very origin.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from firmware.i18n import normalize

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
CSRF_HEADER = "X-CSRF-Token"


def networks(text: str) -> list[Network]:
    return [ipaddress.ip_network(item.strip(), strict=False)
            for item in text.split(",") if item.strip()]


def trusted(remote: str | None, allowed: Iterable[Network]) -> bool:
    """Whether a peer's address is in one of the trusted networks."""
    try:
        address = ipaddress.ip_address((remote or "").split("%")[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in allowed)


def host_name(host: str | None) -> str:
    """The host of a Host header, without its port or brackets."""
    host = (host or "").strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def good_host(host: str | None, console_url: str = "") -> bool:
    name = host_name(host)
    if not name:
        return False
    if name == "localhost" or (console_url and name == (urlsplit(console_url).hostname or "")):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def same_origin(origin: str | None, fetch_site: str | None, host: str | None) -> bool:
    """False when the browser says the request came from another page's origin."""
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return False
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == (host or "").lower()


def csrf_ok(expected: str, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(expected.encode(), (given or "").encode())


def choose_language(cookie: str | None, accept: str | None, default: str) -> str:
    """The page's language: the user's pick (cookie), else Accept-Language, else the
    table's."""
    picked = normalize(cookie) if cookie else None
    if picked:
        return picked
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept or "").split(",")):
        tag, _sep, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, index, tag.strip().lower()))
    for _q, _i, tag in sorted(ranked):
        if tag.startswith("zh"):
            return "zh_CN"
        if tag.startswith("en"):
            return "en"
    return normalize(default) or "en"
