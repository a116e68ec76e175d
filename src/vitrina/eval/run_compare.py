"""Two stored runs side by side: each metric with its change, and the cases that changed."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Group
from rich.table import Table

from vitrina.eval.metrics import summarize
from vitrina.eval.records import RunRecord
from vitrina.eval.report_terminal import METRICS, format_metric, metric_value


@dataclass
class RunDiff:
    a: RunRecord
    b: RunRecord
    fixed: list[str] = field(default_factory=list)  # wrong (or pending) in A, right in B
    broken: list[str] = field(default_factory=list)  # right in A, wrong in B
    other: list[tuple[str, str, str]] = field(default_factory=list)  # (case, A, B) other changes
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)


def diff_runs(a: RunRecord, b: RunRecord) -> RunDiff:
    """Cases matched by id; what changed from A to B."""
    out = RunDiff(a, b)
    va = {c.case_id: c.final for c in a.cases}
    vb = {c.case_id: c.final for c in b.cases}
    for case_id, before in va.items():
        if case_id not in vb:
            out.only_a.append(case_id)
            continue
        after = vb[case_id]
        if before == after:
            continue
        if after == "right":
            out.fixed.append(case_id)
        elif before == "right":
            out.broken.append(case_id)
        else:
            out.other.append((case_id, before, after))
    out.only_b = [c for c in vb if c not in va]
    return out


def _delta(a: float | int | str | None, b: float | int | str | None, kind: str) -> str:
    if a is None or b is None or a == b or isinstance(a, str) or isinstance(b, str):
        return ""
    change = b - a
    return f"{change * 100:+.1f} pp" if kind == "rate" else f"{change:+,.0f}"


def render_diff(d: RunDiff) -> Group:
    """A metrics table (A, B, change) and the lists of changed cases."""
    sa, sb = summarize(d.a.cases), summarize(d.b.cases)
    table = Table(
        title=f"A = {d.a.config_name} ({d.a.id}, {d.a.suite})   B = {d.b.config_name} "
        f"({d.b.id}, {d.b.suite})",
        title_justify="left",
    )
    for name, justify in (
        ("metric / метрика", "left"),
        ("A", "right"),
        ("B", "right"),
        ("B − A", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for key, en, ru, kind in METRICS:
        va, vb = metric_value(sa, key), metric_value(sb, key)
        table.add_row(
            f"{en} / {ru}", format_metric(va, kind), format_metric(vb, kind), _delta(va, vb, kind)
        )
    cases = Table(title="cases that changed / изменившиеся случаи", title_justify="left")
    cases.add_column("change")
    cases.add_column("cases", overflow="fold")
    for label, ids in (
        ("fixed / исправлено", d.fixed),
        ("broken / сломано", d.broken),
        ("only in A / только в A", d.only_a),
        ("only in B / только в B", d.only_b),
    ):
        if ids:
            cases.add_row(f"{label} ({len(ids)})", ", ".join(ids))
    if d.other:
        cases.add_row(
            f"other / другое ({len(d.other)})", ", ".join(f"{c}: {x}→{y}" for c, x, y in d.other)
        )
    if not cases.row_count:
        cases.add_row("none / нет", "")
    return Group(table, cases)
