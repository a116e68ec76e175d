"""One catalog, one reading: what `vitrina ask` answers, the build draws (issue 31 item 2).

The build plans each KPI through the query core's structured entry (`plan_from_spec`), so a
metric dated through a join and a filter on the catalog's segment column go through the
brief gate, the design and the data review, and every number equals SQL written here by
hand. Run through the real console entry `vitrina.cli.main` in rules mode.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

import vitrina
from vitrina.cli import main

DEMO_CATALOG = Path(vitrina.__file__).parent / "demo_catalog"
# fee income dated by the client's registration (a column of dim_client, joined), paying
# clients with two named dates whose default is the joined one
DATED_THROUGH_A_JOIN = {
    "    topic: payments\n    synonyms: [комисси,": "    topic: payments\n"
    "    date_column: dim_client.registered_date\n    synonyms: [комисси,",
}
BRIEF = """title: Платежи B2B по дате регистрации клиента
period: 2024 год
language: ru
kpis:
  - name: Комиссионный доход
    by: месяц
  - name: Комиссионный доход
    by: регион
filters:
  - dimension: сегмент
    values: [B2B]
"""
BY_HAND = """
SELECT SUM(p.fee_rub) FROM dwh.fact_payment p JOIN dwh.dim_client c ON p.client_id = c.client_id
WHERE p.status = 'success' AND c.segment = 'B2B'
  AND c.registered_date >= DATE '2024-01-01' AND c.registered_date < DATE '2025-01-01'
"""


@pytest.fixture
def joined_catalog(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(DEMO_CATALOG, folder)
    metrics = folder / "metrics.yaml"
    text = metrics.read_text(encoding="utf-8")
    for old, new in DATED_THROUGH_A_JOIN.items():
        assert old in text, f"the demo catalog changed: {old!r} not found"
        text = text.replace(old, new, 1)
    metrics.write_text(text, encoding="utf-8")
    return folder


def _build(tmp_path: Path, db: Path, catalog: Path, brief: str, capsys) -> tuple[int, str]:
    path = tmp_path / "brief.yaml"
    path.write_text(brief, encoding="utf-8")
    args = ["build", str(path), "--db", f"duckdb:///{db}", "--catalog", str(catalog)]
    args += ["--board", f"sqlite:///{tmp_path / 'board.sqlite'}", "--out", str(tmp_path / "out")]
    args += ["--no-browser", "--json"]
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().out


def test_a_metric_dated_through_a_join_with_a_segment_filter_is_built(
    demo_db: Path, joined_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _build(tmp_path, demo_db, joined_catalog, BRIEF, capsys)
    assert "BRIEF-007" not in out and "DSN-001" not in out, out[-3000:]
    assert code == 0, out[-3000:]
    result = json.loads(out)
    assert result["status"] == "done"
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    with duckdb.connect(str(demo_db), read_only=True) as con:
        (expected,) = con.execute(BY_HAND).fetchone()
    assert expected and expected > 0  # the period and the segment hold data
    dashboard = json.loads((tmp_path / "out" / "dashboard.json").read_text(encoding="utf-8"))
    cards = [e for e in dashboard["elements"] if e["kind"] == "card"]
    assert cards, dashboard["elements"]
    for card in cards:  # each KPI's card: the period on the client's date, B2B only
        raw = card["spec"]["data"]["items"][0]["raw"]
        assert abs(float(raw) - float(expected)) < 0.01, (card["id"], raw, expected)
    breakdown = next(e for e in dashboard["elements"] if e["kind"] != "card" and "month" in e["id"])
    assert breakdown["x_column"], breakdown
    months = next(d for d in dashboard["datasets"] if d["id"] == breakdown["view"])
    assert "registered_date" in months["sql"] and "'B2B'" in months["sql"], months["sql"]
    assert "B2B" in page


def test_a_metric_without_any_date_is_still_blocked_at_the_gate(
    demo_db: Path, joined_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate still blocks what ask cannot date either (a planted fault)."""
    metrics = joined_catalog / "metrics.yaml"
    text = metrics.read_text(encoding="utf-8").replace(
        "    date_column: dim_client.registered_date\n", "", 1
    )
    tables = joined_catalog / "tables" / "fact_payment.yaml"
    tables.write_text(
        "\n".join(
            line
            for line in tables.read_text(encoding="utf-8").splitlines()
            if "default_date" not in line
        ),
        encoding="utf-8",
    )
    metrics.write_text(text, encoding="utf-8")
    code, out = _build(tmp_path, demo_db, joined_catalog, BRIEF, capsys)
    assert code == 2 and "BRIEF-007" in out, out[-3000:]


SEGMENT_ONLY = """title: Платящие клиенты B2B
period: 2024 год
language: ru
kpis:
  - name: Платящие клиенты
filters:
  - dimension: сегмент
    values: [B2B]
"""
PAYING_BY_HAND = """
SELECT COUNT(DISTINCT p.client_id) FROM dwh.fact_payment p
JOIN dwh.dim_client c ON p.client_id = c.client_id
WHERE p.status = 'success' AND c.segment = 'B2B'
  AND p.payment_date >= DATE '2024-01-01' AND p.payment_date < DATE '2025-01-01'
"""


def test_a_filter_on_the_segment_column_reaches_the_dashboard(
    demo_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The catalog's segment column (read as a segment by ask, not as a value) filters."""
    code, out = _build(tmp_path, demo_db, DEMO_CATALOG, SEGMENT_ONLY, capsys)
    assert "DSN-001" not in out and code == 0, out[-3000:]
    dashboard = json.loads((tmp_path / "out" / "dashboard.json").read_text(encoding="utf-8"))
    card = next(e for e in dashboard["elements"] if e["kind"] == "card")
    with duckdb.connect(str(demo_db), read_only=True) as con:
        (expected,) = con.execute(PAYING_BY_HAND).fetchone()
    assert expected and card["spec"]["data"]["items"][0]["raw"] == expected
