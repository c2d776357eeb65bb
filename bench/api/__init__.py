"""The daemon's API under attack and under floods (a real `mjtable run`, held to a share
of a core)."""
