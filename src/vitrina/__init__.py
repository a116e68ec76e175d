"""Vitrina: an open-source analytics agent platform for BI teams."""

from vitrina import deferred_imports

__version__ = "0.1.0"

# a few third-party re-export hubs that every path imports and almost none uses run on first
# use (see vitrina.deferred_imports): ~0.2 s of each cold start
deferred_imports.install()
