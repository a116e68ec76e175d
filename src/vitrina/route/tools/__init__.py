"""The metadata analyst's tools: each a pure function over the catalog (or a docs index)."""

from vitrina.route.tools.lookups import lookup_columns, lookup_values, relation_path
from vitrina.route.tools.match import request_words
from vitrina.route.tools.measures import search_measures
from vitrina.route.tools.search import Hit, search_catalog

__all__ = [
    "Hit",
    "lookup_columns",
    "lookup_values",
    "relation_path",
    "request_words",
    "search_catalog",
    "search_measures",
]
