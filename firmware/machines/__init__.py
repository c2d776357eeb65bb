"""The table's machines: the cycle, the lid, the sides and their build, the plates,
the dice; their motion, supervision, owners and test mode."""
