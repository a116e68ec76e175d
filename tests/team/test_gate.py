"""The manager gate: a brief is checked before the coordinator; questions stop the build
before any task, an answered brief starts the cycle, and the gate asks at most twice."""

from __future__ import annotations

from pathlib import Path

from vitrina.catalog import load_catalog
from vitrina.team.data.brief import Brief, KpiRequest
from vitrina.team.gate import check_brief

BASE = "title: Платежи 2025\nperiod: 2025 год\naudience: правление\nkpis:\n  - Сумма платежей\n"


def test_the_gate_asks_for_a_missing_kpi_definition_before_any_task(run_build) -> None:
    _service, report = run_build(BASE + "  - Индекс лояльности\n")
    assert report.status == "blocked" and report.tasks == []
    gate = report.build.result["gate"]
    assert gate["round"] == 1 and not gate.get("passed")
    (question,) = gate["questions"]
    assert question.startswith("[BRIEF-001]") and "«Индекс лояльности»" in question
    assert "таблица" in question and "фильтр" in question  # asks for the definition, in Russian
    assert "Ответьте в брифе" in report.blocked["reason"]


def test_an_answered_brief_starts_the_cycle(run_build, tmp_path: Path) -> None:
    brief = tmp_path / "brief.yaml"
    brief.write_text(BASE + "  - Индекс лояльности\n", encoding="utf-8")
    _service, first = run_build(brief)
    assert first.status == "blocked"
    brief.write_text(BASE + "  - Платящие клиенты\n", encoding="utf-8")  # the requester's answer
    _service, second = run_build(brief)
    assert second.build.id != first.build.id
    assert second.status == "done", second.blocked
    assert second.build.result["gate"]["passed"] is True


def test_the_gate_asks_at_most_twice_then_hands_the_brief_to_a_person(
    run_build, tmp_path: Path
) -> None:
    brief = tmp_path / "brief.yaml"
    reasons = []
    for n, unknown in enumerate(["Индекс лояльности", "NPS", "Счастье клиентов"], start=1):
        brief.write_text(BASE + f"  - {unknown}\n", encoding="utf-8")
        _service, report = run_build(brief)
        assert report.status == "blocked" and report.build.result["gate"]["round"] == n
        reasons.append(report.blocked["reason"])
    assert "Ответьте в брифе" in reasons[0] and "Ответьте в брифе" in reasons[1]
    assert "должен разобрать человек" in reasons[2]


def test_sources_limits_and_audience() -> None:
    catalog = load_catalog(None)
    empty = check_brief(Brief(title="Обзор"), catalog, "ru")
    assert [q[:10] for q in empty.questions] == ["[GATE-001]"]
    assert {n[:10] for n in empty.notes} == {"[GATE-003]", "[GATE-004]"}
    metric = next(iter(catalog.metrics.values()))
    gone = catalog.metrics[metric.id].model_copy(update={"table": "dwh.no_such_table"})
    catalog.metrics[metric.id] = gone
    english = check_brief(Brief(title="Review", kpis=[KpiRequest(metric=metric.id)]), catalog, "en")
    assert (
        english.questions[0].startswith("[GATE-002]")
        and "dwh.no_such_table" in english.questions[0]
    )
    assert "not in the catalog" in english.questions[0]
