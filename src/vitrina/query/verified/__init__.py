"""Verified queries: questions an analyst answered once, answered again with new values.

A bank per catalog (``verified/`` in the catalog folder, one YAML file per entry; see
docs/verified.md): wordings, SQL with typed placeholders, who verified it and when. A new
question is matched by rules (`match`), its values bound as literals by sqlglot
(`params`), and the SQL runs through `run_checked`; stale entries (`check`) never answer.
Imports of tracker tickets (`importer`) wait in the review queue until a person accepts.
"""
