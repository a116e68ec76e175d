"""One module per node of the ask graph; each returns a partial state update."""
