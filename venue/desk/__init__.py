"""`mjtable venue`: the venue's box process, its dashboard and its small HTTP API."""
