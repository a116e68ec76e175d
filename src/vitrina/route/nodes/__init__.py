"""One module per node of the supervisor graph."""
