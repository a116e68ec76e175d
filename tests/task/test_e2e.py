"""End to end on the demo warehouse in rules mode: a template plan, real tools, files, summary."""

from __future__ import annotations

from pathlib import Path

from vitrina.task.plan import template_plan
from vitrina.task.sandbox import isolation

REQUEST = (
    "Сравни открытия кошельков за 3 квартал 2026 с прошлым годом по регионам, найди где падение "
    "и сделай прогноз на следующий квартал"
)


def test_template_recognises_the_analysis_words():
    plan = template_plan(REQUEST, 8)
    assert [s.tool for s in plan] == [
        "ask",
        "ask",
        "analyze",
        "analyze",
        "ask",
        "analyze",
        "write_file",
    ]
    assert plan[0].args == {"question": "Открытия кошельков за 3 квартал 2026 по регионам"}
    assert plan[1].args == {"shift_from_step": 1, "unit": "year"}
    assert plan[5].args["target"]["kind"] == "next_quarter" and plan[5].args["step"] == 5
    english = template_plan("Payments by region in 2025: shares and deviations", 8)
    assert [s.args.get("kind") for s in english] == [None, "shares", "deviation", None]
    assert [s.tool for s in template_plan("Сумма платежей за 2025 год", 8)] == ["ask", "write_file"]


def test_rules_mode_task_produces_files_and_a_summary(make_task):
    service = make_task()
    view = service.run(REQUEST)
    assert view.status == "done" and view.plan_source == "template"
    by_n = {s.n: s for s in view.plan}
    assert by_n[1].outputs[0].row_count == 12 and by_n[2].outputs[0].meta["start"] == "2025-07-01"
    out = Path(view.out_dir)
    assert (out / "summary.md").read_text(encoding="utf-8").startswith("# Итог задачи")
    assert (out / "files" / "results.xlsx").is_file() and (out / "step-1" / "ask-1.csv").is_file()
    if isolation()[0] is not None:
        assert all(s.status == "done" for s in view.plan)
        compare = by_n[3].outputs[0]
        assert compare.columns == [
            "region_name",
            "wallets_opened",
            "wallets_opened_prev",
            "wallets_opened_change",
            "wallets_opened_change_pct",
        ]
        forecast = by_n[6].outputs[
            0
        ]  # today 30.11.2026: October is the last whole month, Q1 2027 is next
        assert [r[0] for r in forecast.preview] == ["2027-01-01", "2027-02-01", "2027-03-01"]
        assert forecast.meta["last_actual"] == "2026-10-01" and forecast.meta["bridge"] == [
            "2026-11-01",
            "2026-12-01",
        ]
    else:  # analysis refused: the steps are skipped, never run unprotected
        assert "isolation unavailable" in (by_n[3].error or "")
    assert "Выполнено шагов" in view.summary
