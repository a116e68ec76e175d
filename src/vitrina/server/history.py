"""A dialog's turns, read back from the LangGraph checkpoints of its thread.

A turn ends at a checkpoint with nothing left to run (answered, refused, failed) or at one
waiting on an interrupt (a clarification). Nothing is stored twice: the checkpointer is the
record, so any server process over the same state database shows the same history.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vitrina.ask import pending_of, result_from_state

MAX_CHECKPOINTS = 5000  # a dialog longer than this shows its latest turns only


def run_links(run_id: str | None, *, excel: bool, chart: bool) -> dict[str, str | None]:
    """API paths of a run's files (never server file paths)."""
    if not run_id:
        return {
            "excel_url": None,
            "csv_url": None,
            "parquet_url": None,
            "chart_url": None,
            "chart_png_url": None,
        }
    return {
        "excel_url": f"/api/runs/{run_id}/excel" if excel else None,
        "csv_url": f"/api/runs/{run_id}/csv" if excel else None,
        "parquet_url": f"/api/runs/{run_id}/parquet" if excel else None,
        "chart_url": f"/api/runs/{run_id}/chart" if chart else None,
        "chart_png_url": f"/api/runs/{run_id}/chart.png" if chart else None,
    }


def result_links(result: Any) -> dict[str, str | None]:
    """The file links of an AskResult: the files are made on the first download, so a link
    is there whenever the run has something to put in them (rows for Excel, a chart)."""
    answered = result.status == "answered"
    return run_links(
        result.run_id,
        excel=answered and bool(result.columns),
        chart=answered and bool(result.chart),
    )


TURN_FIELDS = {
    "run_id",
    "status",
    "question",
    "rewritten_question",
    "topic",
    "period",
    "sql",
    "answer",
    "table",
    "chart",
    "clarification",
    "checks",
    "trace",
}


def turn_from_values(values: dict[str, Any], pending: dict[str, Any] | None) -> dict[str, Any]:
    """The public shape of one finished turn (the same keys as the SSE result, without rows)."""
    result = result_from_state("", values, pending)
    turn = result.model_dump(mode="json", include=TURN_FIELDS)
    if pending:
        turn["answer"] = pending["question"]  # the options are shown as buttons
    turn["chosen"] = dict(values.get("chosen") or {})
    turn.update(result_links(result))
    return turn


def thread_turns(graph: Any, thread_id: str) -> list[dict[str, Any]]:
    """Every turn of a thread, oldest first."""
    config = {"configurable": {"thread_id": thread_id}}
    turns: list[dict[str, Any]] = []
    for n, snapshot in enumerate(graph.get_state_history(config)):
        if n >= MAX_CHECKPOINTS:
            break
        pending = pending_of(snapshot)
        if snapshot.next and not pending:
            continue
        if not snapshot.values.get("question"):
            continue
        turn = turn_from_values(snapshot.values, pending)
        turn["checkpoint_id"] = snapshot.config["configurable"].get("checkpoint_id")
        turn["created_at"] = _epoch(snapshot.created_at)
        turns.append(turn)
    turns.reverse()
    return turns


def _epoch(created_at: str | None) -> float:
    try:
        return datetime.fromisoformat(str(created_at)).timestamp()
    except ValueError:
        return 0.0


def with_notes(
    turns: list[dict[str, Any]], steps: list[dict[str, Any]], routed: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The dialog as the page shows it: each ask turn with what was recorded when it ran (step
    durations, the model-unavailable note, suggested follow-ups), and the supervisor's replies
    to other requests, in the order they happened."""
    recorded = {n["ref"]: n["data"] for n in steps}
    for turn in turns:
        note = recorded.get(turn.get("checkpoint_id")) or {}
        turn["kind"] = "ask"
        turn["steps"] = note.get("steps")
        turn["model_unavailable"] = note.get("model_unavailable")
        turn["suggestions"] = note.get("suggestions") or []
        if note.get("report"):  # a report of the planner: its option in words, all for details
            turn["report"] = note["report"]
        notice = (turn["model_unavailable"] or {}).get("notice")
        if notice and turn.get("answer") and not turn["answer"].endswith(notice):
            turn["answer"] = f"{turn['answer']}\n\n{notice}"  # as the live result says it
    for note in routed:
        turns.append({**note["data"], "kind": "route", "created_at": note["created_at"]})
    return sorted(turns, key=lambda t: t.get("created_at") or 0.0)


def find_run(graph: Any, thread_id: str, run_id: str) -> dict[str, Any] | None:
    """The last turn of a thread that carries ``run_id``."""
    return next(
        (t for t in reversed(thread_turns(graph, thread_id)) if t["run_id"] == run_id), None
    )
