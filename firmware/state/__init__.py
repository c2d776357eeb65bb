"""What the table keeps across power cuts: the journal, the event log, the usage ledger, storage."""
