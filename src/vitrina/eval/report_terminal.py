"""The terminal report: metrics side by side (one column per run) and the failures."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from vitrina.eval.metrics import Summary, rank_key, summarize
from vitrina.eval.records import CaseRecord, RunRecord

# key, English, Russian, kind (rate | count | ms | text). The accuracy is over decided cases
# only, so the decided share and the right count over all cases always stand beside it.
METRICS: tuple[tuple[str, str, str, str], ...] = (
    ("accuracy", "accuracy over decided cases", "точность по решённым случаям", "rate"),
    ("decided_share", "decided (share of cases)", "решено (доля случаев)", "rate"),
    ("right_over_all", "right over all cases", "верно из всех случаев", "rate"),
    ("right_of_all", "right / all cases", "верно / всего случаев", "text"),
    ("accuracy_at_once", "right at once", "верно сразу", "rate"),
    ("accuracy_after_clarification", "right after clarification", "верно после уточнения", "rate"),
    ("refusal_accuracy", "refusal accuracy", "точность отказов", "rate"),
    ("invented_number_rate", "invented-number rate", "доля выдуманных чисел", "rate"),
    ("clarification_rate", "clarification rate", "доля уточнений", "rate"),
    ("cases", "cases", "случаев", "count"),
    ("right", "right", "верно", "count"),
    ("wrong", "wrong", "неверно", "count"),
    ("pending", "pending (no answer in the bank)", "ждут ответа из банка", "count"),
    ("in_review", "in review", "на проверке", "count"),
    ("retries", "SQL retries", "повторы SQL", "count"),
    ("latency_p50_ms", "latency p50, ms", "задержка p50, мс", "ms"),
    ("latency_p95_ms", "latency p95, ms", "задержка p95, мс", "ms"),
    ("llm_calls", "model calls", "вызовов модели", "count"),
    ("total_tokens", "tokens", "токенов", "count"),
)
MAX_FAILURES = 30


def metric_value(summary: Summary, key: str) -> float | int | str | None:
    return getattr(summary, key)


def format_metric(value: float | int | str | None, kind: str) -> str:
    """A rate as a percent with one decimal, a count as an integer, a latency in ms.

    >>> format_metric(0.9533, "rate"), format_metric(None, "rate"), format_metric(12.34, "ms")
    ('95.3%', '—', '12')
    """
    if value is None:
        return "—"
    if kind == "text":
        return str(value)
    if kind == "rate":
        return f"{value * 100:.1f}%"
    return f"{value:,.0f}"


def ranked(runs: list[RunRecord]) -> list[RunRecord]:
    """The runs best first by right over all cases (see `metrics.rank_key`)."""
    return sorted(runs, key=lambda r: rank_key(summarize(r.cases)))


def headline(summary: Summary) -> str:
    """The three numbers read together, e.g. "7/10 right (70.0%); 9/10 decided; 77.8% of decided".

    A run's accuracy alone hides pending cases; this line never does.
    """
    return (
        f"{summary.right_of_all} right ({format_metric(summary.right_over_all, 'rate')}); "
        f"{summary.decided_of_all} decided; {format_metric(summary.accuracy, 'rate')} of decided"
    )


def ranking_table(runs: list[RunRecord]) -> Table:
    """A matrix's configurations ranked by right over all cases."""
    table = Table(
        title="ranking by right over all cases / рейтинг по верным из всех случаев",
        title_justify="left",
    )
    for name in ("#", "config", "right / all", "right over all", "decided", "accuracy (decided)"):
        table.add_column(name, justify="left" if name == "config" else "right")
    for n, run in enumerate(ranked(runs), start=1):
        s = summarize(run.cases)
        table.add_row(
            str(n),
            f"{run.config_name} ({run.id})",
            s.right_of_all,
            format_metric(s.right_over_all, "rate"),
            f"{s.decided_of_all} ({format_metric(s.decided_share, 'rate')})",
            format_metric(s.accuracy, "rate"),
        )
    return table


def metrics_table(runs: list[RunRecord], title: str | None = None) -> Table:
    """Metrics as rows, runs as columns."""
    table = Table(title=title, title_justify="left")
    table.add_column("metric / метрика")
    summaries = [summarize(r.cases) for r in runs]
    for run in runs:
        table.add_column(f"{run.config_name}\n{run.id}", justify="right")
    for key, en, ru, kind in METRICS:
        table.add_row(
            f"{en} / {ru}", *(format_metric(metric_value(s, key), kind) for s in summaries)
        )
    return table


def _failing(run: RunRecord) -> list[CaseRecord]:
    return [
        c
        for c in run.cases
        if c.final != "right" or c.invented or (c.in_review and c.manual is None)
    ]


def failures_table(run: RunRecord, limit: int = MAX_FAILURES) -> Table | None:
    """Wrong, pending, in-review and invented-number cases with a one-line reason."""
    cases = _failing(run)
    if not cases:
        return None
    table = Table(
        title=f"{run.config_name} ({run.id}): {len(cases)} case(s) to look at / случаи для разбора",
        title_justify="left",
        show_lines=False,
    )
    for name in ("case", "verdict", "why / причина"):
        table.add_column(name, overflow="fold")
    for case in cases[:limit]:
        verdict = (
            case.final
            + (" (manual)" if case.manual else "")
            + (" ⚑review" if case.in_review and not case.manual else "")
        )
        why = case.reason + (
            f"; invented numbers: {', '.join(case.invented)}" if case.invented else ""
        )
        if case.diff:
            why += "\n" + case.diff.splitlines()[0]
        table.add_row(case.case_id, verdict, why)
    if len(cases) > limit:
        table.caption = (
            f"… and {len(cases) - limit} more in the HTML report / остальные в HTML-отчёте"
        )
    return table


def report(runs: list[RunRecord], title: str | None = None) -> Group:
    """Everything for the terminal: the ranking (several runs), the metrics (best run first)
    and each run's failures."""
    parts: list[Table | Text] = []
    if len(runs) > 1:
        runs = ranked(runs)
        parts.append(ranking_table(runs))
    parts.append(metrics_table(runs, title))
    for run in runs:
        failures = failures_table(run)
        if failures is not None:
            parts.append(failures)
    return Group(*parts)
