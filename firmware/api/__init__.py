"""The table daemon's API: a local socket speaking newline-delimited JSON."""
