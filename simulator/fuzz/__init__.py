"""Searching for the next bug: random fault scenarios (fuzz), soak runs, motors aged over
weeks, replays of a fault's flight recording."""
