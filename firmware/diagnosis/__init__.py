"""Telling the technician what broke: the differential, guided diagnosis, symptoms,
the flight recorder, wear and upkeep, the fault card."""
