"""The reference table configs, installed as package data `core.configs`."""
