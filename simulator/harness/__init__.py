"""A run judged: the scenario harness, the referee, the stall watchdog, what a run found
wrong, the diagnosis judge."""
