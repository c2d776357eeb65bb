"""The example scenarios, installed as package data `simulator.scenarios`."""
