"""The tables as the venue hears them: the broker link, each table's state (the fleet)
and the hand records the venue keeps."""
