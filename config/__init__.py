"""The reference table configs, installed as package data `mjtable_core.configs`."""
