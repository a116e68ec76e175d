"""Write the catalog built from a configuration as a YAML draft that `load_catalog` reads back."""

from __future__ import annotations

from pathlib import Path

import yaml

from vitrina.catalog import Catalog

HEADER = (
    "# Drafted from a 1C:Enterprise configuration by vitrina.onec. Edit synonyms and topic\n"
    "# keywords, then run `vitrina catalog check`. Tables are <Russian kind>.<Name> in "
    "lower case.\n"
)


def write_catalog_yaml(catalog: Catalog, out: Path | str) -> Path:
    """One `catalog.yaml` with every section; returns its path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)

    def dump(items: list) -> list[dict]:
        return [i.model_dump(mode="json", exclude_defaults=True) for i in items]

    data = {
        "catalog": catalog.info.model_dump(mode="json", exclude_defaults=True),
        "topics": dump(list(catalog.topics.values())),
        "tables": dump(list(catalog.tables.values())),
        "relations": dump(catalog.relations),
        "metrics": dump(list(catalog.metrics.values())),
        "dictionaries": dump(list(catalog.dictionaries.values())),
    }
    path = out / "catalog.yaml"
    path.write_text(
        HEADER + yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=120),
        encoding="utf-8",
    )
    return path
