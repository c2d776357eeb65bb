"""Faults and stops: detection, diagnosis, wear, soaks, host stalls, link noise and power
cuts."""
