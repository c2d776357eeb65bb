"""What both the daemon's API and the venue's desk limit their clients by: a token
bucket, and the network an address is counted in (one network, one share).

A bucket holds up to `burst` tokens and gains `rate` a second on its owner's clock.
Work is charged after the fact and may run the balance below zero; whoever charged
then waits until it is back at zero.
"""

from __future__ import annotations

import ipaddress


class Bucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._balance = burst
        self._at: float | None = None     # full until first used

    def _refill(self, now: float) -> None:
        if self._at is None:
            self._at = now
        self._balance = min(self.burst, self._balance + (now - self._at) * self.rate)
        self._at = now

    def charge(self, amount: float, now: float) -> None:
        self._refill(now)
        self._balance -= amount

    def wait_s(self, now: float) -> float:
        """Seconds until the balance is back at zero (0 when it is there)."""
        self._refill(now)
        return 0.0 if self._balance >= 0 else -self._balance / self.rate

    def spare(self, now: float) -> bool:
        """Over half full: its owner has asked little of late."""
        self._refill(now)
        return self._balance >= self.burst / 2

    def empty(self, now: float) -> bool:
        return self.wait_s(now) > 0


def network(host: str, prefix4: int = 24, prefix6: int = 64) -> str:
    """The network `host` is counted in ("192.168.1.0/24"); the host itself when it is
    no address."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        # One machine: 127.0.1.1, 127.0.2.1... were as many networks, and a local user
        # connecting from four of them took a LAN technician's slot before it logged in.
        return "127.0.0.0/8" if address.version == 4 else "::1/128"
    prefix = prefix4 if address.version == 4 else prefix6
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))
