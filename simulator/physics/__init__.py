"""The physical table: tiles, moving parts, the players."""
