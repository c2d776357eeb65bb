"""The physical table: tiles, moving parts, their wear, the players."""
