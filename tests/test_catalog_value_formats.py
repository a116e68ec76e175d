"""How catalog values are shown: `format: fraction` in percent points, dictionary labels per
language. A fraction metric (0-1) is computed and shown in percent points,
so 0.931 reads "93,1 %", not "0,9 %"."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import duckdb

from vitrina.catalog import DEMO_CATALOG, load_catalog

SUCCESS_RATE = """
  - id: success_rate
    name_ru: Успешность платежей
    name_en: Payment success rate
    table: dwh.fact_payment
    expression: AVG(CASE WHEN status = 'success' THEN 1.0 ELSE 0.0 END)
    format: fraction
    topic: payments
    synonyms: [успешност платеж, success rate]
"""


def _catalog_with_rate(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(DEMO_CATALOG, folder)
    metrics = folder / "metrics.yaml"
    metrics.write_text(metrics.read_text(encoding="utf-8") + SUCCESS_RATE, encoding="utf-8")
    return folder


def test_a_fraction_is_read_as_percent_points(tmp_path: Path) -> None:
    metric = load_catalog(_catalog_with_rate(tmp_path)).metrics["success_rate"]
    assert metric.format == "percent" and not metric.additive
    assert metric.expression.startswith("100.0 * (AVG(")


def test_a_fraction_metric_answers_in_percent(tmp_path: Path, demo_db: Path) -> None:
    from vitrina.ask import AskService
    from vitrina.config import load_settings

    catalog = _catalog_with_rate(tmp_path)
    settings = load_settings(db_url=f"duckdb:///{demo_db}", catalog_dir=catalog)
    service = AskService(settings, today=date(2026, 11, 30), write_files=False, use_llm=False)
    try:
        result = service.ask("Успешность платежей в мае 2025")
    finally:
        service.close()
    with duckdb.connect(str(demo_db), read_only=True) as con:
        (expected,) = con.execute(
            "SELECT 100.0 * AVG(CASE WHEN status = 'success' THEN 1.0 ELSE 0.0 END) "
            "FROM dwh.fact_payment WHERE payment_date >= DATE '2025-05-01' "
            "AND payment_date < DATE '2025-06-01'"
        ).fetchone()
    assert result.status == "answered", result.answer
    assert abs(float(result.rows[0][0]) - float(expected)) < 1e-6
    shown = f"{float(expected):.1f}".replace(".", ",")
    assert f"{shown}\u00a0%" in result.answer, result.answer


def test_filters_are_named_by_the_dictionary_labels_of_the_language(demo_db: Path) -> None:
    """A dictionary value's label_ru / label_en name it in the answer's "Учтено:/Applied:"."""
    from vitrina.ask import AskService
    from vitrina.config import load_settings

    settings = load_settings(db_url=f"duckdb:///{demo_db}")
    service = AskService(settings, today=date(2026, 11, 30), write_files=False, use_llm=False)
    try:
        ru = service.ask("Сколько дебетовых карт выпустили в 2025 году?")
        en = service.ask("How many debit cards were issued in 2025?")
    finally:
        service.close()
    assert "Учтено: Тип карты = дебетовая." in ru.answer, ru.answer
    assert "Card type = debit" in en.answer, en.answer
    assert "'debit'" in ru.sql  # the SQL filters on the stored value
