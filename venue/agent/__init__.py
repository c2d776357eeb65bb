"""`mjtable agent`: one table on the venue's MQTT broker (docs/venue.md)."""
