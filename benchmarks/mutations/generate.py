"""Build the mutation corpus (tests/data/mutations.jsonl) from the unseen suites.

For every case with reference SQL that expects an answer (chinook, chinook_pg on
PostgreSQL, tpch_like, the demo's new wording, the rephrasing set; sources.py) each class
of classes.CLASSES makes at most one mutant of the reference, and each harmless rewrite of
classes.HARMLESS one accepted variant. Each is labelled by running it against the reference
on the suite's warehouse: `changes_result` is True when the rows differ (or the mutant does
not run at all), compared like `vitrina eval` does. Chinook on PostgreSQL needs a reachable
server (VITRINA_TEST_PG_URL); without one its rows are left out and the run says so.

    python benchmarks/mutations/generate.py [--out tests/data/mutations.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import sqlglot

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from classes import CLASSES, HARMLESS, Ctx  # noqa: E402
from sources import (  # noqa: E402
    REPHRASINGS,
    SUITES,
    Source,
    available,
    rephrasing_sources,
    sources,
    suite_environment,
)

from vitrina.catalog import load_catalog  # noqa: E402
from vitrina.eval.compare import compare_results  # noqa: E402
from vitrina.eval.runner import base_settings  # noqa: E402
from vitrina.eval.suite import load_suite  # noqa: E402
from vitrina.warehouse import Warehouse  # noqa: E402

OUT = ROOT / "tests" / "data" / "mutations.jsonl"
ROW_CAP = 100_000


def _rows(warehouse: Warehouse, sql: str) -> list[Any] | str:
    try:
        return list(warehouse.execute(sql, row_cap=ROW_CAP).rows)
    except Exception as exc:  # a mutant that does not run is a result of its own
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"


def _changes(expected: list[Any], got: list[Any] | str, ordered: bool) -> bool:
    if isinstance(got, str):
        return True
    return not compare_results(expected, got, ordered=ordered).ok


def _sampler(warehouse: Warehouse):
    cache: dict[tuple[str, str], str | None] = {}

    def sample(table: str, column: str) -> str | None:
        if (table, column) not in cache:
            rows = _rows(
                warehouse,
                f"SELECT MIN({column}) FROM {table} WHERE {column} IS NOT NULL",
            )
            value = rows[0][0] if isinstance(rows, list) and rows else None
            cache[(table, column)] = value if isinstance(value, str) else None
        return cache[(table, column)]

    return sample


def mutants_of(source: Source) -> list[dict[str, Any]]:
    """Every mutant and harmless variant of the source's reference queries, labelled."""
    settings = base_settings(load_suite(ROOT / "suites" / f"{source.warehouse}.yaml"))
    catalog = load_catalog(settings.catalog_dir)
    warehouse = Warehouse(settings.warehouse_url)
    dialect = warehouse.dialect
    ctx = Ctx(catalog, dialect, _sampler(warehouse))
    out: list[dict[str, Any]] = []
    for case in source.cases:
        tree = sqlglot.parse_one(case.reference_sql, read=dialect)
        expected = _rows(warehouse, case.reference_sql)
        if isinstance(expected, str):
            continue  # a broken reference is the suite's problem
        for kind, transforms in (("mutant", CLASSES), ("harmless", HARMLESS)):
            for name, transform in transforms.items():
                changed = transform(tree, ctx)
                if changed is None:
                    continue
                sql = changed.sql(dialect=dialect)
                if kind == "mutant" and sql == tree.sql(dialect=dialect):
                    continue
                out.append(
                    {
                        "id": f"{source.suite}/{case.id}/{name}",
                        "suite": source.suite,
                        "warehouse": source.warehouse,
                        "today": source.today.isoformat(),
                        "case": case.id,
                        "question": case.question,
                        "kind": kind,
                        "class": name,
                        "sql": sql,
                        "reference_sql": case.reference_sql,
                        "ordered": case.ordered,
                        "changes_result": _changes(expected, _rows(warehouse, sql), case.ordered),
                    }
                )
    warehouse.close()
    return out


def build(names: tuple[str, ...] = (*SUITES, REPHRASINGS)) -> list[dict[str, Any]]:
    corpus: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, suite_environment(Path(tmp)):
        for source in sources(names):
            if available(source.warehouse):
                corpus += mutants_of(source)
            else:
                print(f"{source.suite} on {source.warehouse}: not available, left out")
    return corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    corpus = build()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for row in corpus:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    mutants = [r for r in corpus if r["kind"] == "mutant"]
    changing = sum(r["changes_result"] for r in mutants)
    print(
        f"{len(mutants)} mutants ({changing} change the result), "
        f"{len(corpus) - len(mutants)} harmless variants -> {args.out}"
    )
    for suite in dict.fromkeys(r["suite"] for r in corpus):
        mine = [r for r in corpus if r["suite"] == suite]
        print(
            f"  {suite}: {len({r['case'] for r in mine})} questions, "
            f"{sum(r['kind'] == 'mutant' for r in mine)} mutants "
            f"({sum(r['kind'] == 'mutant' and r['changes_result'] for r in mine)} change the "
            f"result), {sum(r['kind'] == 'harmless' for r in mine)} harmless"
        )
    print(f"  {REPHRASINGS}: {rephrasing_sources()[1]} cases without reference SQL skipped")


if __name__ == "__main__":
    main()
