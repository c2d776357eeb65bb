"""The phone console: each table's agent serves it on the venue's LAN (docs/venue.md)."""
