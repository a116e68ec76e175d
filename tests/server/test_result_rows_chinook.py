"""`vitrina.server.result_rows` over data it was not designed on: Chinook's 3,503 tracks (NULL
composers, quotes and apostrophes in names, decimals), stored as a run's Parquet, with
column names a query could really return (a quote, a semicolon, a duplicate). Every page,
sort, filter and total is checked against SQLite's own answer on the same rows."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

import pytest

from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.stored import write_parquet
from vitrina.server.errors import ApiError
from vitrina.server.result_rows import RowsQuery, page, tsv
from vitrina.warehouse.result import QueryResult

SQL = """SELECT t.Name, t.Composer, t.Milliseconds, t.UnitPrice, g.Name
FROM Track t JOIN Genre g ON g.GenreId = t.GenreId ORDER BY t.TrackId"""
NAMES = ['track "name"', "composer; DROP TABLE x", "ms", "price", 'track "name"']


@pytest.fixture(scope="module")
def chinook_rows(shared_fixtures):
    path = shared_fixtures / "warehouses" / "chinook" / "Chinook_Sqlite.sqlite"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(SQL).fetchall()
    finally:
        conn.close()
    return [(a, b, c, Decimal(str(d)), e) for a, b, c, d, e in rows]


@pytest.fixture(scope="module")
def stored(chinook_rows, tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "result.parquet"
    write_parquet(QueryResult(columns=NAMES, rows=chinook_rows), path)
    metas = [
        ColumnMeta(name=NAMES[0], role=ColumnRole.DIMENSION, label_ru="Трек", label_en="Track"),
        ColumnMeta(name=NAMES[1], role=ColumnRole.DIMENSION, label_ru="Автор", label_en="Composer"),
        ColumnMeta(
            name="ms", role=ColumnRole.METRIC, label_ru="Мс", label_en="Ms", fmt=ValueFormat.COUNT
        ),
        ColumnMeta(
            name="price",
            role=ColumnRole.METRIC,
            label_ru="Цена",
            label_en="Price",
            fmt=ValueFormat.NUMBER,
            additive=False,  # a unit price is never summed
        ),
        ColumnMeta(name="genre", role=ColumnRole.DIMENSION, label_ru="Жанр", label_en="Genre"),
    ]
    return path, metas


def test_pages_sorts_and_totals_match_sqlite(stored, chinook_rows):
    path, metas = stored
    first = page(path, metas, RowsQuery(), "en")
    names = [c["name"] for c in first["columns"]]
    assert names[0] == 'track "name"' and names[4] == 'track "name"_2'  # unique, still quoted
    assert first["total_rows"] == first["matched"] == len(chinook_rows) == 3503
    assert first["rows"][0][0] == chinook_rows[0][0]
    longest = max(chinook_rows, key=lambda r: r[2])
    by_ms = page(path, metas, RowsQuery(sort="ms", desc=True, limit=1), "en")
    assert by_ms["rows"][0][0] == longest[0]
    total_ms = sum(r[2] for r in chinook_rows)
    assert by_ms["totals"][2].replace(",", "") == str(total_ms)
    assert by_ms["totals"][3] is None  # not additive: never summed
    # NULL composers go last whichever way the column is sorted
    composers = [r[1] for r in chinook_rows]
    nulls = composers.count(None)
    tail = page(path, metas, RowsQuery(sort=names[1], offset=len(chinook_rows) - 1, limit=1), "en")
    assert nulls > 900 and tail["rows"][0][1] == "—"
    top = page(path, metas, RowsQuery(sort=names[1], desc=True, limit=1), "en")
    assert top["rows"][0][1] == max(c for c in composers if c is not None)


def test_filters_bind_quotes_and_compare_numbers(stored, chinook_rows):
    path, metas = stored
    apostrophes = [r for r in chinook_rows if "'" in r[0]]
    found = page(path, metas, RowsQuery(column='track "name"', text="'"), "en")
    assert found["matched"] == len(apostrophes) > 0
    long_tracks = [r for r in chinook_rows if r[2] > 600000]
    found = page(path, metas, RowsQuery(column="ms", text="> 600 000"), "ru")
    assert found["matched"] == len(long_tracks)
    assert page(path, metas, RowsQuery(text="%"), "en")["matched"] == sum(
        1 for r in chinook_rows if any("%" in str(v) for v in r if v is not None)
    )
    with pytest.raises(ApiError) as refused:
        page(path, metas, RowsQuery(sort="composer; DROP TABLE x DESC"), "en")
    assert refused.value.code == "unknown_column"


def test_tsv_holds_the_filtered_sorted_rows(stored, chinook_rows):
    path, metas = stored
    text, count = tsv(path, metas, RowsQuery(column='track "name"_2', text="Jazz", sort="ms"), "ru")
    jazz = sorted((r for r in chinook_rows if "Jazz" in r[4]), key=lambda r: r[2])
    lines = text.splitlines()
    assert count == len(jazz) == len(lines) - 1
    assert lines[0].split("\t") == ["Трек", "Автор", "Мс", "Цена", "Жанр"]
    assert lines[1].split("\t")[2] == str(jazz[0][2])
    assert lines[1].split("\t")[3] == str(jazz[0][3]).replace(".", ",")
