"""Fixtures of the eval tests: the demo golden set as a suite over the session's demo warehouse,
a store in the test's VITRINA_HOME, and a scripted model for the LLM configurations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vitrina.eval.store import EvalStore

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "questions.yaml"


def write_suite(folder: Path, db: Path, name: str = "golden", **extra: Any) -> Path:
    """The golden set as a suite named `name` over the warehouse `db` (plus `extra` YAML keys)."""
    import yaml

    body = {
        "name": name,
        "warehouse": f"duckdb:///{db}",
        "catalog": "demo",
        "today": "2026-11-30",
        "cases_from": [str(GOLDEN)],
        **extra,
    }
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(body, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture
def suite_file(tmp_path: Path, demo_db: Path) -> Path:
    return write_suite(tmp_path, demo_db)


@pytest.fixture
def store() -> Iterator[EvalStore]:
    from vitrina.config import load_settings

    s = EvalStore.from_settings(load_settings())
    yield s
    s.close()
