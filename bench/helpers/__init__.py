"""What the benches and the venue and browser tests share: child processes, brokers,
daemons, the desk in a thread, a browser, a webhook stub, a CPU throttle."""
