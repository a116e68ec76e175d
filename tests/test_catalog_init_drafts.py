"""`catalog init` on warehouses nobody here designed (Chinook on SQLite and PostgreSQL) and on a
Northwind-shaped one (DuckDB and PostgreSQL): what the draft says is what a user keeps. Line
tables dated through their header, no count dated by a birth or hire date, a lookup's label
as its breakdown, identifiers never breakdowns, each table once per topic, and a synonym
several columns share flagged with the rule that picks among them. Driven as the console
script drives it (`vitrina.cli.main`), then asked through the real ask pipeline."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from tests import northwind_like
from tests.test_unseen_suites import chinook_pg  # noqa: F401  (the fixture: a schema of its own)

from vitrina.ask.service import AskService
from vitrina.config import load_settings
from vitrina.eval.compare import compare_results
from vitrina.warehouse import Warehouse

NEVER_DIMENSIONS = {"postal_code", "home_phone", "extension", "phone", "fax", "ship_postal_code",
                    "reports_to"}  # fmt: skip


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from vitrina.cli import main

    try:
        main(argv)
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 1
    captured = capsys.readouterr()
    return code, " ".join((captured.out + captured.err).split())


class Drafted:
    """The draft as files: tables by name, metrics by id, topics, dictionaries, raw texts."""

    def __init__(self, out: Path) -> None:
        load = lambda rel: yaml.safe_load((out / rel).read_text(encoding="utf-8"))  # noqa: E731
        self.texts = {p.name: p.read_text(encoding="utf-8") for p in out.rglob("*.yaml")}
        self.tables = {
            t["name"].split(".", 1)[1]: t
            for p in sorted((out / "tables").glob("*.yaml"))
            for t in load(p.relative_to(out))["tables"]
        }
        self.metrics = {m["id"]: m for m in load("metrics.yaml")["metrics"]}
        self.topics = {t["id"]: t for t in load("topics.yaml")["topics"]}
        self.dictionaries = {
            d["column"].split(".", 1)[1]: [v["value"] for v in d["values"]]
            for d in load("dictionaries.yaml")["dictionaries"]
        }

    def column(self, table: str, name: str) -> dict[str, Any]:
        return next(c for c in self.tables[table]["columns"] if c["name"] == name)


def _draft(url: str, out: Path, capsys, *schema: str) -> tuple[Drafted, str]:
    argv = ["catalog", "init", "--db", url, "--out", str(out)]
    code, printed = _main([*argv, *(a for s in schema for a in ("--schema", s))], capsys)
    assert code == 0, printed
    code, checked = _main(["catalog", "check", str(out), "--db", url], capsys)
    assert code == 0, checked  # the draft is valid and compiles against the warehouse
    return Drafted(out), printed


def _each_table_once(drafted: Drafted) -> None:
    for topic in drafted.topics.values():
        assert len(topic["tables"]) == len(set(topic["tables"])), topic


def _answers(url: str, catalog: Path, today: date, cases: list[tuple[str, str]]) -> None:
    service = AskService(
        load_settings(db_url=url, catalog_dir=catalog), today=today, write_files=False
    )
    direct = Warehouse(url)
    try:
        for question, reference in cases:
            answer = service.ask(question)
            assert answer.status == "answered", (question, answer.answer)
            expected = direct.execute(reference)
            verdict = compare_results([list(r) for r in expected.rows], answer.rows)
            assert verdict.ok, (question, verdict.diff, answer.sql)
    finally:
        service.close()
        direct.close()


# --- Northwind-shaped ------------------------------------------------------------------


def _northwind_is_kept(drafted: Drafted, printed: str) -> None:
    # the order lines are dated by their order, in the orders topic
    lines = {k: m for k, m in drafted.metrics.items() if k.startswith("order_details_")}
    assert lines and {m["date_column"] for m in lines.values()} == {"orders.order_date"}
    assert {m["topic"] for m in lines.values()} == {"orders"}
    assert lines["order_details_amount"]["expression"] == "SUM(unit_price * quantity)"
    assert lines["order_details_unit_price_avg"]["expression"] == "AVG(unit_price)"
    assert "order_details_unit_price_sum" not in lines  # a sum of prices means nothing
    assert drafted.topics["orders"]["tables"].count(next(
        t["name"] for n, t in drafted.tables.items() if n == "order_details"
    )) == 1  # fmt: skip
    assert drafted.tables["order_details"]["topics"] == ["orders"]
    assert "default_date" not in drafted.tables["order_details"]
    assert "metrics of" in printed and "dated by orders.order_date" in printed
    # the head count is counted, never dated by a birth or hire date
    assert "date_column" not in drafted.metrics["employees_count"]
    assert "default_date" not in drafted.tables["employees"]
    assert "birth_date, hire_date: not when a row happened" in printed
    assert drafted.tables["orders"]["default_date"] == "order_date"
    # lookups: their one text column is the breakdown, named by the table, with its values
    region = drafted.column("region", "region_description")
    assert region["role"] == "dimension" and region["dictionary"] is True
    assert region["synonyms"][0] == "region" and region["label_en"] == "Region"
    assert drafted.dictionaries["region.region_description"] == sorted(northwind_like.REGIONS)
    shipper = drafted.column("shippers", "company_name")
    assert shipper["role"] == "dimension" and shipper["synonyms"][0] == "shipper"
    assert drafted.column("territories", "territory_description")["role"] == "dimension"
    category = drafted.column("categories", "category_name")
    assert category["role"] == "dimension" and "categor" in category["synonyms"]
    assert drafted.column("categories", "description")["role"] == "attribute"  # prose
    # identifiers, postal codes and phones: never a breakdown, never summed, no value list
    for name, table in drafted.tables.items():
        for column in table["columns"]:
            if column["name"] in NEVER_DIMENSIONS:
                assert column["role"] == "attribute", (name, column)
                assert f"{name}.{column['name']}" not in drafted.dictionaries
    assert drafted.column("employees", "last_name")["role"] == "attribute"  # one per row
    assert not any("reports_to" in m["expression"] for m in drafted.metrics.values())
    _each_table_once(drafted)
    # "region" names the lookup and the employees' column: flagged with the rule, in the
    # file and in the command's output
    assert "synonym 'region' names 2 columns" in printed
    assert "the column on its metric's own table, else the one fewest many-to-one" in printed
    assert "# review: synonym 'region' names 2 columns" in drafted.texts["region.yaml"]
    assert "# review: synonym 'region' names 2 columns" in drafted.texts["employees.yaml"]


def _northwind_answers(url: str, catalog: Path, s: str) -> None:
    _answers(
        url,
        catalog,
        date(1998, 6, 1),
        [
            (
                "order details amount by category in 1997",
                f"SELECT c.category_name, sum(d.unit_price * d.quantity) FROM {s}.order_details d "
                f"JOIN {s}.orders o ON o.order_id = d.order_id JOIN {s}.products p "
                f"ON p.product_id = d.product_id JOIN {s}.categories c "
                "ON c.category_id = p.category_id WHERE o.order_date BETWEEN '1997-01-01' "
                "AND '1997-12-31' GROUP BY 1",
            ),
            (
                "number of orders by shipper in 1997",
                f"SELECT s.company_name, count(*) FROM {s}.orders o JOIN {s}.shippers s "
                "ON s.shipper_id = o.ship_via WHERE o.order_date BETWEEN '1997-01-01' "
                "AND '1997-12-31' GROUP BY 1",
            ),
            ("number of employees", f"SELECT count(*) FROM {s}.employees"),
        ],
    )


def test_northwind_like_on_duckdb(tmp_path: Path, capsys) -> None:
    path = tmp_path / "northwind.duckdb"
    with duckdb.connect(str(path)) as con:
        northwind_like.create(
            lambda sql, params: con.execute(sql.replace("%s", "?"), params or []), "nw"
        )
    url = f"duckdb:///{path}"
    drafted, printed = _draft(url, tmp_path / "draft", capsys)
    _northwind_is_kept(drafted, printed)
    _northwind_answers(url, tmp_path / "draft", "nw")


@pytest.mark.postgres
def test_northwind_like_on_postgres(pg_url: str, tmp_path: Path, capsys) -> None:
    import uuid

    import psycopg

    from vitrina.warehouse.reader_role import create_reader_role

    schema = f"vitrina_nw_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        northwind_like.create(lambda sql, params: conn.execute(sql, params), schema)
    try:
        reader = create_reader_role(pg_url, [schema]).replace(
            "postgresql://", "postgresql+psycopg://"
        )
        drafted, printed = _draft(reader, tmp_path / "draft", capsys, schema)
        _northwind_is_kept(drafted, printed)
        _northwind_answers(reader, tmp_path / "draft", schema)
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


# --- Chinook ---------------------------------------------------------------------------


def _chinook_is_kept(drafted: Drafted, printed: str, names: dict[str, str]) -> None:
    line, header, date_col = names["line"], names["header"], names["date"]
    line_metrics = [m for m in drafted.metrics.values() if m["table"].endswith(f".{line}")]
    assert {m["date_column"] for m in line_metrics} == {f"{header}.{date_col}"}
    assert {m["topic"] for m in line_metrics} == {header}
    assert f"{line}_amount" in drafted.metrics
    assert "date_column" not in drafted.metrics["employee_count"]
    assert "default_date" not in drafted.tables["employee"]
    for lookup in ("genre", names["media_type"], "playlist"):
        label = next(c for c in drafted.tables[lookup]["columns"] if c["role"] == "dimension")
        assert label["dictionary"] is True and f"{lookup}.{label['name']}" in drafted.dictionaries
    genre = drafted.column("genre", names["name"])
    assert genre["synonyms"] == ["genre"] and genre["label_en"] == "Genre"
    artist = drafted.column("artist", names["name"])  # 275 names: a breakdown, no value list
    assert artist["role"] == "dimension" and "dictionary" not in artist
    assert "is the label of a lookup with 275 values" in printed
    for table in ("customer", "employee", "invoice"):
        for column in drafted.tables[table]["columns"]:
            if any(w in column["name"].lower() for w in ("postal", "phone", "fax", "email")):
                assert column["role"] == "attribute", (table, column)
    _each_table_once(drafted)
    assert "synonym 'country' names 2 columns" in printed
    # the events the counts count, drafted from the table names (language.verbs)
    assert {"sold", "bought", "купи"} <= set(drafted.metrics[f"{line}_count"]["verbs"])
    assert {"issued", "выстав"} <= set(drafted.metrics["invoice_count"]["verbs"])
    assert "verbs" not in drafted.metrics["employee_count"]


def test_chinook_sqlite(shared_fixtures: Path, tmp_path: Path, capsys) -> None:
    db = tmp_path / "chinook.sqlite"
    shutil.copyfile(shared_fixtures / "warehouses" / "chinook" / "Chinook_Sqlite.sqlite", db)
    url = f"sqlite:///{db}"
    drafted, printed = _draft(url, tmp_path / "draft", capsys)
    names = {"line": "invoiceline", "header": "invoice", "date": "InvoiceDate",
             "media_type": "mediatype", "name": "Name"}  # fmt: skip
    _chinook_is_kept(drafted, printed, names)
    _answers(
        url,
        tmp_path / "draft",
        date(2026, 1, 15),
        [
            (
                "invoice line amount by genre in 2024",
                "SELECT g.Name, sum(l.UnitPrice * l.Quantity) FROM InvoiceLine l JOIN Invoice i "
                "ON i.InvoiceId = l.InvoiceId JOIN Track t ON t.TrackId = l.TrackId JOIN Genre g "
                "ON g.GenreId = t.GenreId WHERE i.InvoiceDate >= '2024-01-01' "
                "AND i.InvoiceDate < '2025-01-01' GROUP BY 1",
            ),
            ("number of employees", "SELECT count(*) FROM Employee"),
            (  # a drafted verb and a neutral one ("were") read, never left unexplained
                "how many invoices were issued in 2024",
                "SELECT count(*) FROM Invoice WHERE InvoiceDate >= '2024-01-01' "
                "AND InvoiceDate < '2025-01-01'",
            ),
            (
                "how many invoice lines were bought in 2024",
                "SELECT count(*) FROM InvoiceLine l JOIN Invoice i ON i.InvoiceId = l.InvoiceId "
                "WHERE i.InvoiceDate >= '2024-01-01' AND i.InvoiceDate < '2025-01-01'",
            ),
        ],
    )


@pytest.mark.postgres
def test_chinook_postgres(chinook_pg, tmp_path: Path, capsys) -> None:  # noqa: F811
    drafted, printed = _draft(chinook_pg.reader_url, tmp_path / "draft", capsys, chinook_pg.schema)
    names = {"line": "invoice_line", "header": "invoice", "date": "invoice_date",
             "media_type": "media_type", "name": "name"}  # fmt: skip
    _chinook_is_kept(drafted, printed, names)


# --- the rules on names and values alone ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "event"),
    [("birth_date", False), ("BirthDate", False), ("date_of_birth", False),
     ("дата_рождения", False), ("hire_date", False), ("valid_from", False), ("valid_to", False),
     ("last_update", False), ("ModifiedDate", False), ("order_date", True),
     ("InvoiceDate", True), ("дата_заказа", True), ("created_at", True)],
)  # fmt: skip
def test_which_dates_date_a_count(name: str, event: bool) -> None:
    from vitrina.catalog.draft_roles import is_event_date
    from vitrina.warehouse.introspect import ColumnInfo

    assert is_event_date(ColumnInfo(name=name, data_type="date", is_date=True)) is event


@pytest.mark.parametrize(
    ("name", "values", "identifier"),
    [("postal_code", ["98122"], True), ("ZipCode", None, True), ("Extension", ["428"], True),
     ("home_phone", None, True), ("телефон", None, True), ("invoice_number", None, True),
     ("code", ["WA1 1DP", "EC2 7JR", "98052"], True), ("tag", ["(206) 555-9857"], True),
     ("channel", ["app", "web", "pos"], False), ("size", ["S", "M", "XL"], False),
     ("rating", ["1", "2", "5"], False), ("number_of_seats", None, False),
     ("quarter", ["Q1", "Q2"], False)],
)  # fmt: skip
def test_identifiers_by_name_and_by_value_shape(
    name: str, values: list[str] | None, identifier: bool
) -> None:
    from vitrina.catalog.draft_roles import is_identifier
    from vitrina.warehouse.introspect import ColumnInfo

    column = ColumnInfo(name=name, data_type="varchar", low_cardinality_values=values)
    assert is_identifier(column) is identifier
