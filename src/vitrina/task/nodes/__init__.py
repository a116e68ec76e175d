"""One module per node of the task graph."""
