"""The venue: brokers, fleets of real tables and agents, the desk's dashboard and stream,
notifications, and the phone console."""
