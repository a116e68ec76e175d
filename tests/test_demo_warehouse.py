"""The demo warehouse: deterministic, plausible, consistent, written atomically; its PG copy."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import duckdb
import psycopg
import pytest

from vitrina.warehouse.demo import (
    DATA_TABLES,
    DEFAULT_SEED,
    DEMO_VERSION,
    DemoStats,
    build_demo_warehouse,
    ensure_demo_warehouse,
    read_marker,
    table_checksums,
)
from vitrina.warehouse.demo.reference import CATEGORIES, END_DATE, START_DATE
from vitrina.warehouse.pg_load import load_demo_into_postgres, pg_type


@pytest.fixture(scope="session")
def full_demo(demo_db: Path) -> DemoStats:
    """The full-size warehouse of the whole test session (conftest's `demo_db`, built once);
    the stats are read back from the file, the build time is measured by the rebuild below."""
    rows = {table: count for table, (count, _) in table_checksums(demo_db).items()}
    return DemoStats(
        path=demo_db, seed=DEFAULT_SEED, scale=1.0, rows=rows, seconds=0, step_seconds={}
    )


@pytest.fixture(scope="session")
def small_demo(tmp_path_factory: pytest.TempPathFactory) -> DemoStats:
    return build_demo_warehouse(tmp_path_factory.mktemp("demo-small") / "demo.duckdb", scale=0.05)


@pytest.fixture
def con(full_demo: DemoStats) -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect(str(full_demo.path), read_only=True) as c:
        yield c


def scalar(con: duckdb.DuckDBPyConnection, sql: str):
    row = con.execute(sql).fetchone()
    assert row is not None
    return row[0]


# --- determinism -------------------------------------------------------------------------


def test_same_seed_gives_same_rows(full_demo: DemoStats, tmp_path: Path) -> None:
    again = build_demo_warehouse(tmp_path / "again.duckdb")
    assert table_checksums(again.path) == table_checksums(full_demo.path)
    assert again.rows == full_demo.rows


def test_other_seed_gives_other_rows(small_demo: DemoStats, tmp_path: Path) -> None:
    same = build_demo_warehouse(tmp_path / "same.duckdb", scale=0.05)
    other = build_demo_warehouse(tmp_path / "other.duckdb", scale=0.05, seed=7)
    base = table_checksums(small_demo.path)
    assert table_checksums(same.path) == base
    other_sums = table_checksums(other.path)
    assert other_sums["fact_payment"] != base["fact_payment"]
    # reference data does not depend on the seed
    assert other_sums["dim_region"] == base["dim_region"]


# --- sizes and ranges --------------------------------------------------------------------


def test_row_counts(full_demo: DemoStats) -> None:
    rows = full_demo.rows
    assert set(rows) == set(DATA_TABLES)
    assert rows["fact_payment"] >= 1_200_000
    assert rows["dim_region"] == 12
    assert rows["dim_calendar"] == 1461
    assert rows["dim_client"] == 60_000
    assert rows["dim_merchant"] == 2_000
    assert rows["dim_wallet"] == 90_000
    assert 60_000 <= rows["dim_card"] <= 80_000
    assert rows["fact_wallet_opening"] == rows["dim_wallet"]
    assert rows["fact_card_issue"] == rows["dim_card"]


def test_fact_dates_within_fixed_range(con: duckdb.DuckDBPyConnection) -> None:
    for table, col in [
        ("fact_payment", "payment_date"),
        ("fact_wallet_opening", "open_date"),
        ("fact_card_issue", "issue_date"),
        ("dim_client", "registered_date"),
    ]:
        lo, hi = con.execute(f"SELECT min({col}), max({col}) FROM dwh.{table}").fetchone()  # type: ignore[misc]
        assert lo >= START_DATE and hi <= END_DATE, (table, lo, hi)
    lo, hi = con.execute(
        "SELECT min(payment_date), max(payment_date) FROM dwh.fact_payment"
    ).fetchone()  # type: ignore[misc]
    assert (lo, hi) == (date(2023, 1, 1), date(2026, 11, 30))
    assert (
        scalar(
            con,
            "SELECT count(*) FROM dwh.fact_payment WHERE CAST(payment_ts AS DATE) <> payment_date",
        )
        == 0
    )


def test_calendar(con: duckdb.DuckDBPyConnection) -> None:
    lo, hi, n = con.execute(
        "SELECT min(date_day), max(date_day), count(*) FROM dwh.dim_calendar"
    ).fetchone()  # type: ignore[misc]
    assert (lo, hi, n) == (date(2023, 1, 1), date(2026, 12, 31), 1461)
    row = con.execute(
        "SELECT * FROM dwh.dim_calendar WHERE date_day = DATE '2025-01-05'"
    ).fetchone()
    # 2025-01-05 is a Sunday of ISO week 1, which starts on Monday 2024-12-30
    assert row == (date(2025, 1, 5), 2025, 1, 1, "Январь", 1, date(2024, 12, 30), 7, True)
    assert scalar(con, "SELECT count(*) FROM dwh.dim_calendar WHERE isodow(week_start) <> 1") == 0


# --- referential integrity and business rules -------------------------------------------

FOREIGN_KEYS = [
    ("dim_client", "region_id", "dim_region", "region_id"),
    ("dim_merchant", "region_id", "dim_region", "region_id"),
    ("dim_wallet", "client_id", "dim_client", "client_id"),
    ("dim_card", "client_id", "dim_client", "client_id"),
    ("dim_card", "wallet_id", "dim_wallet", "wallet_id"),
    ("fact_wallet_opening", "wallet_id", "dim_wallet", "wallet_id"),
    ("fact_wallet_opening", "client_id", "dim_client", "client_id"),
    ("fact_wallet_opening", "region_id", "dim_region", "region_id"),
    ("fact_wallet_opening", "open_date", "dim_calendar", "date_day"),
    ("fact_card_issue", "card_id", "dim_card", "card_id"),
    ("fact_card_issue", "client_id", "dim_client", "client_id"),
    ("fact_card_issue", "region_id", "dim_region", "region_id"),
    ("fact_card_issue", "issue_date", "dim_calendar", "date_day"),
    ("fact_payment", "client_id", "dim_client", "client_id"),
    ("fact_payment", "wallet_id", "dim_wallet", "wallet_id"),
    ("fact_payment", "card_id", "dim_card", "card_id"),
    ("fact_payment", "merchant_id", "dim_merchant", "merchant_id"),
    ("fact_payment", "payment_date", "dim_calendar", "date_day"),
]


@pytest.mark.parametrize(("child", "col", "parent", "pcol"), FOREIGN_KEYS)
def test_every_fact_key_exists_in_its_dimension(
    con: duckdb.DuckDBPyConnection, child: str, col: str, parent: str, pcol: str
) -> None:
    orphans = scalar(
        con,
        f"SELECT count(*) FROM dwh.{child} c WHERE c.{col} IS NOT NULL "
        f"AND NOT EXISTS (SELECT 1 FROM dwh.{parent} p WHERE p.{pcol} = c.{col})",
    )
    assert orphans == 0


BUSINESS_RULES = {
    "wallet opened on or before its first payment": """
        SELECT count(*) FROM (SELECT wallet_id, min(payment_date) AS first_day FROM dwh.fact_payment GROUP BY 1) p
        JOIN dwh.dim_wallet w USING (wallet_id) WHERE w.opened_date > p.first_day""",  # noqa: E501
    "client registered on or before the wallet opened": """
        SELECT count(*) FROM dwh.dim_wallet w JOIN dwh.dim_client c USING (client_id)
        WHERE c.registered_date > w.opened_date""",
    "card issued on or after its wallet opened": """
        SELECT count(*) FROM dwh.dim_card k JOIN dwh.dim_wallet w USING (wallet_id) WHERE k.issued_date < w.opened_date""",  # noqa: E501
    "card belongs to the wallet's client": """
        SELECT count(*) FROM dwh.dim_card k JOIN dwh.dim_wallet w USING (wallet_id) WHERE k.client_id <> w.client_id""",  # noqa: E501
    "card used on or after it was issued, by its own wallet": """
        SELECT count(*) FROM dwh.fact_payment p JOIN dwh.dim_card k USING (card_id)
        WHERE k.issued_date > p.payment_date OR k.wallet_id <> p.wallet_id""",
    "payment client is the wallet's client": """
        SELECT count(*) FROM dwh.fact_payment p JOIN dwh.dim_wallet w USING (wallet_id) WHERE p.client_id <> w.client_id""",  # noqa: E501
    "opening region is the client's region": """
        SELECT count(*) FROM dwh.fact_wallet_opening f JOIN dwh.dim_client c USING (client_id) WHERE f.region_id <> c.region_id""",  # noqa: E501
    "opening fact matches the wallet": """
        SELECT count(*) FROM dwh.fact_wallet_opening f JOIN dwh.dim_wallet w USING (wallet_id)
        WHERE (f.client_id, f.open_date, f.channel, f.currency) <> (w.client_id, w.opened_date, w.channel, w.currency)""",  # noqa: E501
    "card fact matches the card and the client's region": """
        SELECT count(*) FROM dwh.fact_card_issue f JOIN dwh.dim_card k USING (card_id) JOIN dwh.dim_client c
        ON c.client_id = k.client_id WHERE (f.client_id, f.issue_date, f.card_type, f.payment_system, f.region_id)
        <> (k.client_id, k.issued_date, k.card_type, k.payment_system, c.region_id)""",  # noqa: E501
    "amount positive, fee not negative": """
        SELECT count(*) FROM dwh.fact_payment WHERE amount_rub <= 0 OR fee_rub < 0""",
    "B2B clients have no person attributes, B2C no industry": """
        SELECT count(*) FROM dwh.dim_client WHERE (segment = 'B2B') <> (client_type = 'company')
        OR (segment = 'B2B' AND (gender IS NOT NULL OR birth_year IS NOT NULL OR industry IS NULL
                                 OR client_name NOT SIMILAR TO '(ООО|АО) ".+"'))
        OR (segment = 'B2C' AND (gender IS NULL OR birth_year IS NULL OR industry IS NOT NULL
                                 OR client_name NOT SIMILAR TO '[А-ЯЁ][а-яё]+ [А-ЯЁ]\\.[А-ЯЁ]\\.'))""",  # noqa: E501
    "one opening fact per wallet, one issue fact per card": """
        SELECT (SELECT count(*) - count(DISTINCT wallet_id) FROM dwh.fact_wallet_opening)
             + (SELECT count(*) - count(DISTINCT card_id) FROM dwh.fact_card_issue)""",
}


@pytest.mark.parametrize("rule", list(BUSINESS_RULES))
def test_business_rule(con: duckdb.DuckDBPyConnection, rule: str) -> None:
    assert scalar(con, BUSINESS_RULES[rule]) == 0, rule


def test_vocabularies(con: duckdb.DuckDBPyConnection) -> None:
    def values(sql: str) -> set:
        return {r[0] for r in con.execute(sql).fetchall()}

    assert values("SELECT DISTINCT segment FROM dwh.dim_client") == {"B2C", "B2B"}
    assert values("SELECT DISTINCT industry FROM dwh.dim_client WHERE industry IS NOT NULL") == {
        "retail", "logistics", "it", "manufacturing", "horeca", "construction",
    }  # fmt: skip
    assert values("SELECT DISTINCT category FROM dwh.dim_merchant") == set(CATEGORIES)
    assert values("SELECT DISTINCT currency FROM dwh.dim_wallet") == {"RUB", "USD", "EUR", "CNY"}
    assert values("SELECT DISTINCT status FROM dwh.dim_wallet") == {"active", "closed", "blocked"}
    assert values("SELECT DISTINCT channel FROM dwh.dim_wallet") == {"app", "web", "office"}
    assert values("SELECT DISTINCT card_type FROM dwh.dim_card") == {"debit", "credit", "virtual"}
    assert values("SELECT DISTINCT payment_system FROM dwh.dim_card") == {
        "Mir",
        "Visa",
        "Mastercard",
        "UnionPay",
    }
    assert values("SELECT DISTINCT status FROM dwh.dim_card") == {"active", "expired", "blocked"}
    assert values("SELECT DISTINCT status FROM dwh.fact_payment") == {
        "success",
        "declined",
        "refunded",
    }
    assert values("SELECT DISTINCT channel FROM dwh.fact_payment") == {"app", "web", "pos", "qr"}
    assert values("SELECT DISTINCT federal_district FROM dwh.dim_region") == {
        "Центральный",
        "Северо-Западный",
        "Сибирский",
        "Уральский",
        "Приволжский",
        "Южный",
        "Дальневосточный",
    }
    assert scalar(
        con, "SELECT region_name_en FROM dwh.dim_region WHERE region_name = 'Санкт-Петербург'"
    ) == ("Saint Petersburg")


def test_shares(con: duckdb.DuckDBPyConnection) -> None:
    b2b = scalar(con, "SELECT avg(CAST(segment = 'B2B' AS INT)) FROM dwh.dim_client")
    success = scalar(con, "SELECT avg(CAST(status = 'success' AS INT)) FROM dwh.fact_payment")
    no_card = scalar(con, "SELECT avg(CAST(card_id IS NULL AS INT)) FROM dwh.fact_payment")
    rub = scalar(con, "SELECT avg(CAST(currency = 'RUB' AS INT)) FROM dwh.dim_wallet")
    assert 0.07 < b2b < 0.09
    assert 0.90 < success < 0.94
    assert 0.20 < no_card < 0.30
    assert rub > 0.85


# --- plausibility for analysts -------------------------------------------------------------


def test_growth_and_seasonality(con: duckdb.DuckDBPyConnection) -> None:
    yearly = dict(
        con.execute(
            "SELECT year(payment_date), count(*) FROM dwh.fact_payment GROUP BY 1"
        ).fetchall()
    )
    assert yearly[2023] < yearly[2024] < yearly[2025]
    assert yearly[2026] > yearly[2025] * 11 / 12  # 11 months of 2026 still beat 2025's pace
    monthly = dict(
        con.execute(
            "SELECT month(payment_date), sum(amount_rub) FROM dwh.fact_payment WHERE "
            "year(payment_date) = 2025 GROUP BY 1"
        ).fetchall()
    )
    assert max(monthly, key=monthly.__getitem__) == 12  # December peak
    travel = dict(
        con.execute(
            "SELECT month(payment_date), count(*) FROM dwh.fact_payment JOIN "
            "dwh.dim_merchant USING (merchant_id) "
            "WHERE category = 'travel' AND year(payment_date) = 2025 GROUP BY 1"
        ).fetchall()
    )
    assert min(travel[6], travel[7], travel[8]) > max(travel[2], travel[3], travel[4])


def test_regions_segments_and_weekends(con: duckdb.DuckDBPyConnection) -> None:
    top = [
        r[0]
        for r in con.execute(
            "SELECT region_name FROM dwh.fact_payment JOIN dwh.dim_client USING (client_id) "
            "JOIN dwh.dim_region USING (region_id) GROUP BY 1 ORDER BY sum(amount_rub) DESC LIMIT 2"
        ).fetchall()
    ]
    assert top == ["Москва", "Санкт-Петербург"]
    medians = dict(
        con.execute(
            "SELECT segment, median(amount_rub) FROM dwh.fact_payment JOIN "
            "dwh.dim_client USING (client_id) GROUP BY 1"
        ).fetchall()
    )
    assert medians["B2B"] > 10 * medians["B2C"]
    b2b_weekend = scalar(
        con,
        "SELECT avg(CAST(isodow(payment_date) >= 6 AS INT)) FROM dwh.fact_payment "
        "JOIN dwh.dim_client USING (client_id) WHERE segment = 'B2B'",
    )
    b2c_weekend = scalar(
        con,
        "SELECT avg(CAST(isodow(payment_date) >= 6 AS INT)) FROM dwh.fact_payment "
        "JOIN dwh.dim_client USING (client_id) WHERE segment = 'B2C'",
    )
    assert b2b_weekend < 0.15 < b2c_weekend  # 2/7 = 0.29 would be no weekly pattern


PRESENT_EVERY_MONTH = [
    ("fact_payment p JOIN dwh.dim_client USING (client_id)", "payment_date", "region_id"),
    ("fact_payment p JOIN dwh.dim_merchant USING (merchant_id)", "payment_date", "category"),
    ("fact_payment p", "payment_date", "p.channel"),
    ("fact_payment p", "payment_date", "p.status"),
    ("fact_wallet_opening", "open_date", "region_id"),
    ("fact_wallet_opening", "open_date", "channel"),
    ("fact_wallet_opening", "open_date", "currency"),
    ("fact_card_issue", "issue_date", "region_id"),
    ("fact_card_issue", "issue_date", "card_type"),
    ("fact_card_issue", "issue_date", "payment_system"),
]


@pytest.mark.parametrize(("source", "date_col", "dim"), PRESENT_EVERY_MONTH)
def test_every_value_present_in_every_month(
    con: duckdb.DuckDBPyConnection, source: str, date_col: str, dim: str
) -> None:
    months, values = con.execute(
        f"SELECT count(DISTINCT date_trunc('month', {date_col})), count(DISTINCT {dim}) "
        f"FROM dwh.{source}"
    ).fetchone()  # type: ignore[misc]
    assert months == 47  # 2023-01 .. 2026-11
    missing = con.execute(
        f"SELECT date_trunc('month', {date_col}) AS m, count(DISTINCT {dim}) AS n FROM "
        f"dwh.{source} "
        f"GROUP BY 1 HAVING n < {values} ORDER BY 1"
    ).fetchall()
    assert missing == []


# --- constraints, atomicity, markers ---------------------------------------------------------


def test_primary_keys_are_real_constraints(small_demo: DemoStats, tmp_path: Path) -> None:
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(small_demo.path.read_bytes())
    with duckdb.connect(str(copy)) as c:
        pks = dict(
            c.execute(
                "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
                "WHERE schema_name = 'dwh' AND constraint_type = 'PRIMARY KEY'"
            ).fetchall()
        )
        assert pks == {
            "dim_region": ["region_id"], "dim_calendar": ["date_day"], "dim_client": ["client_id"],
            "dim_merchant": ["merchant_id"], "dim_wallet": ["wallet_id"], "dim_card": ["card_id"],
            "fact_payment": ["payment_id"],
        }  # fmt: skip
        with pytest.raises(duckdb.ConstraintException):
            c.execute("INSERT INTO dwh.fact_payment SELECT * FROM dwh.fact_payment LIMIT 1")


def test_progress_reports_every_step(tmp_path: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    stats = build_demo_warehouse(
        tmp_path / "p.duckdb", scale=0.02, progress=lambda *a: calls.append(a)
    )
    names = [c[0] for c in calls]
    assert names[0] == "schema" and names[-1] == "done" and "payments" in names
    assert [c[1] for c in calls] == list(range(len(calls)))
    assert all(total == len(stats.step_seconds) for _, _, total in calls)


def test_failed_build_leaves_no_file_and_keeps_the_old_one(
    small_demo: DemoStats, tmp_path: Path
) -> None:
    def explode(step: str, done: int, total: int) -> None:
        if step == "payments":
            raise RuntimeError("boom")

    target = tmp_path / "w.duckdb"
    with pytest.raises(RuntimeError, match="boom"):
        build_demo_warehouse(target, scale=0.02, progress=explode)
    assert list(tmp_path.iterdir()) == []  # neither the target nor a temp file

    target.write_bytes(small_demo.path.read_bytes())
    with pytest.raises(RuntimeError, match="boom"):
        build_demo_warehouse(target, scale=0.02, progress=explode)
    assert [p.name for p in tmp_path.iterdir()] == ["w.duckdb"]
    assert table_checksums(target) == table_checksums(small_demo.path)


def test_ensure_builds_once_and_rebuilds_on_version_change(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "demo.duckdb"
    assert ensure_demo_warehouse(target) == target
    first = read_marker(target)
    assert first is not None and first.version == DEMO_VERSION and first.scale == 1.0
    ensure_demo_warehouse(target)
    assert read_marker(target) == first  # not rebuilt
    with duckdb.connect(str(target)) as c:
        c.execute("UPDATE dwh._vitrina_demo SET version = 'old', built_at = TIMESTAMP '2000-01-01'")
    ensure_demo_warehouse(target)
    again = read_marker(target)
    assert again is not None and again.version == DEMO_VERSION and again.built_at.year > 2000


def test_ensure_rebuilds_a_file_that_is_not_a_demo(tmp_path: Path) -> None:
    target = tmp_path / "demo.duckdb"
    target.write_bytes(b"not a database")
    assert read_marker(target) is None
    ensure_demo_warehouse(target)
    assert read_marker(target) is not None


# --- PostgreSQL copy ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("duck", "pg"),
    [
        ("INTEGER", "integer"),
        ("BIGINT", "bigint"),
        ("DECIMAL(14,2)", "numeric(14,2)"),
        ("VARCHAR", "varchar"),
        ("DATE", "date"),
        ("TIMESTAMP", "timestamp"),
        ("BOOLEAN", "boolean"),
        ("DOUBLE", "double precision"),
        ("MAP(VARCHAR, INTEGER)", "text"),
    ],
)
def test_pg_type(duck: str, pg: str) -> None:
    assert pg_type(duck) == pg


@pytest.fixture
def pg_schema(pg_url: str) -> Iterator[str]:
    """A schema of its own in the test database, so that parallel runs do not collide."""
    name = f"vitrina_test_{uuid.uuid4().hex[:10]}"
    yield name
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.mark.postgres
def test_load_into_postgres_full_size_twice(
    full_demo: DemoStats, pg_url: str, pg_schema: str
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f'CREATE SCHEMA "{pg_schema}"')
        c.execute(f'CREATE TABLE "{pg_schema}".keep_me (x int)')  # not ours: must survive
    expected = {**full_demo.rows, "_vitrina_demo": 1}
    assert load_demo_into_postgres(full_demo.path, pg_url, schema=pg_schema) == expected
    sa_url = pg_url.replace("postgresql://", "postgresql+psycopg://")
    # idempotent, and the SQLAlchemy spelling of the URL works too
    assert load_demo_into_postgres(full_demo.path, sa_url, schema=pg_schema) == expected
    with psycopg.connect(pg_url) as c:
        tables = {
            r[0]
            for r in c.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                [pg_schema],
            )
        }
        assert tables == {*expected, "keep_me"}
        pks = dict(
            c.execute(
                "SELECT tc.table_name, array_agg(k.column_name::text ORDER BY k.ordinal_position) "
                "FROM information_schema.table_constraints tc JOIN "
                "information_schema.key_column_usage k "
                "USING (constraint_schema, constraint_name) WHERE tc.table_schema = %s "
                "AND tc.constraint_type = 'PRIMARY KEY' GROUP BY 1",
                [pg_schema],
            ).fetchall()
        )
        assert (
            pks["fact_payment"] == ["payment_id"]
            and pks["dim_calendar"] == ["date_day"]
            and len(pks) == 7
        )
        types = dict(
            c.execute(
                "SELECT column_name, data_type || coalesce('(' || numeric_precision || "
                "',' || numeric_scale || ')', '') "
                "FROM information_schema.columns WHERE table_schema = %s AND table_name "
                "= 'fact_payment'",
                [pg_schema],
            ).fetchall()
        )
        assert types["amount_rub"] == "numeric(14,2)" and types["fee_rub"] == "numeric(12,2)"
        assert types["payment_ts"].startswith("timestamp without time zone")
        assert types["status"].startswith("character varying")
        with duckdb.connect(str(full_demo.path), read_only=True) as d:
            duck = d.execute(
                "SELECT count(card_id), sum(amount_rub), sum(fee_rub), count(DISTINCT payment_ts), "
                "sum(CASE WHEN status = 'success' THEN 1 ELSE 0 END) FROM dwh.fact_payment"
            ).fetchone()
            duck_names = d.execute(
                "SELECT string_agg(client_name, '|' ORDER BY client_id) FROM dwh.dim_client"
            ).fetchone()
        pg = c.execute(
            f"SELECT count(card_id), sum(amount_rub), sum(fee_rub), count(DISTINCT payment_ts), "
            f"sum(CASE WHEN status = 'success' THEN 1 ELSE 0 END) FROM \"{pg_schema}\".fact_payment"
        ).fetchone()
        assert pg == duck
        pg_names = c.execute(
            "SELECT string_agg(client_name, '|' ORDER BY client_id) FROM "
            f'"{pg_schema}".dim_client'
        ).fetchone()
        assert pg_names == duck_names  # quotes in 'ООО "..."' survive the CSV round trip
        analyzed = c.execute(
            "SELECT count(*) FROM pg_stat_user_tables WHERE schemaname = %s AND "
            "last_analyze IS NOT NULL",
            [pg_schema],
        ).fetchone()
        assert analyzed == (len(expected),)


@pytest.mark.postgres
def test_concurrent_loads_into_one_schema_wait_for_each_other(
    small_demo: DemoStats, pg_url: str, pg_schema: str
) -> None:
    results: list[object] = []

    def load() -> None:
        try:
            results.append(load_demo_into_postgres(small_demo.path, pg_url, schema=pg_schema))
        except Exception as exc:  # collected and asserted below
            results.append(exc)

    threads = [threading.Thread(target=load) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert results == [{**small_demo.rows, "_vitrina_demo": 1}] * 2


def test_load_rejects_other_urls(small_demo: DemoStats) -> None:
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        load_demo_into_postgres(small_demo.path, "mysql://x/y")
