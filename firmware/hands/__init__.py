"""A hand's way out of the table: the dealt-walls handoff, its consumers, the deal log, scoring."""
