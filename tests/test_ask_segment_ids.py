"""A dialog's segment narrows topics (and so their metrics) by the catalog's own segment ids,
whatever they are called: the demo catalog copied with its segments renamed and its payments
split into a corporate and a retail topic answers a corporate dialog from the corporate topic,
with the corporate filter, and a retail one from the retail topic (decision 151)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import yaml

from vitrina.catalog import DEMO_CATALOG, load_catalog

QUESTION = "Сумма платежей в 2025 году"


def _write(path: Path, doc: dict) -> None:
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")


def _renamed(tmp_path: Path, corporate: str, retail: str):
    """The demo catalog with segments `corporate`/`retail` and payments split by segment."""
    folder = tmp_path / f"catalog-{corporate}"
    shutil.copytree(DEMO_CATALOG, folder)
    info_path = folder / "catalog.yaml"
    info = yaml.safe_load(info_path.read_text(encoding="utf-8"))
    names = {"b2b": corporate, "b2c": retail}
    section = info["catalog"]
    section["segment_values"] = {names[k]: v for k, v in section["segment_values"].items()}
    section["segment_keywords"] = {names[k]: v for k, v in section["segment_keywords"].items()}
    _write(info_path, info)

    topics_path = folder / "topics.yaml"
    topics = yaml.safe_load(topics_path.read_text(encoding="utf-8"))
    payments = next(t for t in topics["topics"] if t["id"] == "payments")
    corporate_topic = copy.deepcopy(payments)
    corporate_topic.update(
        id="payments_corporate", name_ru="Платежи компаний", name_en="Corporate payments",
        segment=corporate,
    )  # fmt: skip
    payments["segment"] = retail
    topics["topics"].append(corporate_topic)
    _write(topics_path, topics)

    metrics_path = folder / "metrics.yaml"
    metrics = yaml.safe_load(metrics_path.read_text(encoding="utf-8"))
    amount = next(m for m in metrics["metrics"] if m["id"] == "payment_amount")
    corporate_amount = copy.deepcopy(amount)
    corporate_amount.update(id="payment_amount_corporate", topic="payments_corporate")
    metrics["metrics"].append(corporate_amount)
    _write(metrics_path, metrics)
    catalog = load_catalog(folder, strict=True)
    assert catalog.info.segment_ids() == [corporate, retail]
    return catalog


@pytest.mark.parametrize(("corporate", "retail"), [("corp", "retail"), ("yur", "fiz")])
def test_a_segment_narrows_topics_whatever_its_id(
    make_service, tmp_path: Path, corporate: str, retail: str
) -> None:
    service = make_service(catalog=_renamed(tmp_path, corporate, retail))
    by_company = service.ask(QUESTION, segment=corporate)
    assert by_company.status == "answered", by_company.answer
    assert by_company.topic == "payments_corporate"
    assert "'B2B'" in (by_company.sql or "") and "'B2C'" not in (by_company.sql or "")
    rejected = [
        e.data
        for e in by_company.trace
        if e.node == "detect_topic" and e.message == "topic outside the dialog's segment"
    ]
    assert rejected == [{"topic": "payments", "segment": corporate}]

    by_person = service.ask(QUESTION, segment=retail)
    assert by_person.status == "answered", by_person.answer
    assert by_person.topic == "payments" and "'B2C'" in (by_person.sql or "")
    # the figures differ: each is the sum over its own segment
    assert by_company.rows != by_person.rows


def test_without_a_segment_both_topics_stay_in_play(make_service, tmp_path: Path) -> None:
    """No dialog segment: nothing is excluded (the tie goes to the metric named first, or
    to the user), so the narrowing above is the segment's doing."""
    service = make_service(catalog=_renamed(tmp_path, "corp", "retail"))
    result = service.ask(QUESTION)
    assert not any(
        e.node == "detect_topic" and e.message == "topic outside the dialog's segment"
        for e in result.trace
    )
