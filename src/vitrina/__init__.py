"""Vitrina: an open-source analytics agent platform for BI teams."""

import os

from vitrina import deferred_imports

__version__ = "0.1.0"

# a few third-party re-export hubs that every path imports and almost none uses run on first
# use (see vitrina.deferred_imports): ~0.2 s of each cold start
deferred_imports.install()

# DuckDB's allocator (jemalloc) gives a finished query's freed memory back to the system at
# once, not a second later: a million-row result's query left ~50 MB more in the process for
# the rest of its turn (decision 210). Read when DuckDB is loaded; a value set outside wins.
os.environ.setdefault("DUCKDB_JE_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")
