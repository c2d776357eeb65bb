"""Who may use the desk: staff accounts and their sessions, integrators' API keys, and
how often one address may try."""
