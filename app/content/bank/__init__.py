"""Writing the bank: store, sync, repairs, search and topic indexes, the import report."""
