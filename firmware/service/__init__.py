"""The daemon as a service: its run, systemd, safe outputs, the table lock, the booking
gate, signed venue commands, identify."""
