"""The bottom layer: what every other package may read (the table's geometry, ...)."""
