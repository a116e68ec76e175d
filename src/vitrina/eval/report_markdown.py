"""The Markdown report of a run or a matrix: the ranking, the metrics and the failing cases,
for a pull request or a wiki page (the same numbers as the terminal and HTML reports)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vitrina.eval.metrics import summarize
from vitrina.eval.records import RunRecord
from vitrina.eval.report_html import ranking_rows
from vitrina.eval.report_terminal import METRICS, format_metric, metric_value, ranked

MAX_FAILURES = 50


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _ranking(runs: list[RunRecord]) -> list[str]:
    head = ["#", "config", "right / all", "right over all", "decided", "accuracy (decided)"]
    lines = ["## Ranking by right over all cases / рейтинг по верным из всех случаев", ""]
    lines += [_row(head), _row(["---"] * len(head))]
    for n, row in enumerate(ranking_rows(runs), start=1):
        lines.append(_row([n, row["name"], *row["cells"]]))  # type: ignore[misc]
    return [*lines, ""]


def _metrics(runs: list[RunRecord]) -> list[str]:
    summaries = [summarize(r.cases) for r in runs]
    head = ["metric / метрика", *(f"{r.config_name} ({r.id})" for r in runs)]
    lines = [_row(head), _row(["---"] * len(head))]
    for key, en, ru, kind in METRICS:
        lines.append(
            _row([f"{en} / {ru}", *(format_metric(metric_value(s, key), kind) for s in summaries)])
        )
    return [*lines, ""]


def _failures(run: RunRecord) -> list[str]:
    cases = [c for c in run.cases if c.final != "right"][:MAX_FAILURES]
    if not cases:
        return []
    lines = [f"### {run.config_name} ({run.id}): cases to look at / случаи для разбора", ""]
    lines += [_row(["case", "verdict", "why / причина"]), _row(["---"] * 3)]
    lines += [_row([c.case_id, c.final, c.reason]) for c in cases]
    return [*lines, ""]


def render_markdown(runs: list[RunRecord], title: str | None = None) -> str:
    """The report as Markdown (several runs: best first by right over all cases)."""
    runs = ranked(runs) if len(runs) > 1 else runs
    suite = ", ".join(dict.fromkeys(r.suite for r in runs))
    lines = [f"# {title or f'Vitrina eval: {suite}'}", ""]
    if len(runs) > 1:
        lines += _ranking(runs)
    lines += _metrics(runs)
    for run in runs:
        lines += _failures(run)
    return "\n".join(lines)


def write_markdown(runs: list[RunRecord], path: Path, title: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(runs, title), encoding="utf-8")
    return path
