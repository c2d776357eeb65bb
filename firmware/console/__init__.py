"""The technician console: one-shot commands and the live TUI, talking to the API."""
