"""The venue side of a table: its agent on the venue's broker, and the venue's own processes.

These run beside the daemon, as its clients, never inside its loop: they may read the wall
clock (a venue bills by it) and wait on the network.
"""
