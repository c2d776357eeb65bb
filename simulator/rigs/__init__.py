"""The rigs the unchanged firmware runs on: the in-process sim HAL, the I/O board's
emulator behind a real serial link, their clocks, host stalls."""
