"""The `mjtable` command: the composition root above every layer, the one package that
wires the firmware, the simulator, the venue and the benches together."""
