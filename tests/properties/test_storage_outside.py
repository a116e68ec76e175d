"""Hypothesis writes nothing into the checkout: tests/conftest.py points its storage (the
example database, the cache of the code's constants) at a folder under the system's temp."""

from __future__ import annotations

from pathlib import Path

from hypothesis.configuration import storage_directory

ROOT = Path(__file__).resolve().parents[2]


def test_hypothesis_storage_is_outside_the_checkout():
    found = storage_directory("constants")  # a Path, or (newer Hypothesis) an object with one
    where = Path(getattr(found, "path", found)).resolve()
    assert where != ROOT and ROOT not in where.parents, where
    assert not (ROOT / ".hypothesis").exists()
