"""The systemd unit template and sysusers file, installed as package data `firmware.systemd`."""
