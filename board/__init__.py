"""The I/O board's firmware (protocol 4), in Python that MicroPython also runs.

One implementation, two homes: on a Raspberry Pi Pico under MicroPython (`main.py`,
`pins_pico.py`, `pinmap.py`) and, under CPython, as the simulator's board (its pin
layer bound to the simulated table lives in `simulator/rigs/board_pins.py`). Nothing here
imports the host's packages, uses dataclasses, typing at run time or f-strings: the
files are compiled by `mpy-cross` and run in the MicroPython VM in the tests.
"""
