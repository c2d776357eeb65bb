"""HAL backends: `sim` (the built-in simulator); `rpigpio` and `ioboard` for real tables."""
