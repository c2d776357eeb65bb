"""The reference table configs, installed as package data `firmware.configs`."""
