"""A task step whose SQL result exceeds the byte budget fails with the reason, not a
traceback, and nothing of the result is kept."""

from __future__ import annotations


def test_a_run_sql_step_over_the_byte_budget_fails_with_the_reason(make_task, monkeypatch):
    monkeypatch.setenv("VITRINA_RESULT_MAX_BYTES", "200")
    service = make_task()
    assert service.context.warehouse.result_max_bytes == 200
    sql = "SELECT region_name FROM dwh.dim_region"  # a few hundred bytes of names
    view = service.start("Список регионов")
    view = service.decide(
        view.task_id,
        {
            "action": "edit",
            "steps": [{"title": "Регионы", "tool": "run_sql", "args": {"sql": sql}}],
        },
    )
    view = service.decide(view.task_id, {"action": "approve"})
    error = view.pending["error"]
    assert "result too large (> 200 bytes)" in error, error
    assert "Traceback" not in error
    assert view.plan[0].last_table() is None
