"""The table's own figures: speed of the simulated hand, the firmware's CPU, edge-to-output
latency, start-up, and the fairness audit."""
