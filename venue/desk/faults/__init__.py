"""A table's faults at the venue: incidents, who is paged, and a fault's words in the
reader's language."""
