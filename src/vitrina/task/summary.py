"""The task's summary: what was found, with numbers formatted by code from the step tables.

Findings come first, one per result a user asked for (the comparison, the fall, the series,
the forecast and its method, shares, deviations, growth), then what could not be done and
why, then the steps and the files. Every number is a value of a step's table or a sum of
one, formatted by `vitrina.present` in the request's language; a finding whose text holds a
number the table does not is left out with a trace event.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vitrina.present.answer_text import write_answer
from vitrina.present.columns import ColumnMeta, ColumnRole, ValueFormat
from vitrina.present.comparison import CHANGE, PREV, Labels, comparison_metas, comparison_text
from vitrina.present.infer_meta import infer_metas
from vitrina.present.numbers import format_number, format_value, month_label, unverified_numbers
from vitrina.present.summary import is_summable, summarize
from vitrina.task.messages import text
from vitrina.task.state import Step, ToolOutput
from vitrina.task.tables import load_table
from vitrina.trace import Trace
from vitrina.warehouse import QueryResult

MARK = {"done": "✓", "skipped": "–", "pending": "·", "in_progress": "!"}
LISTED = 5  # rows named in a finding
METHODS = {
    "damped_holt": (
        "Хольт с затухающим трендом (statsmodels ExponentialSmoothing)",
        "Holt's damped trend (statsmodels ExponentialSmoothing)",
    ),
    "holt": (
        "Хольт с линейным трендом (statsmodels ExponentialSmoothing)",
        "Holt's linear trend (statsmodels ExponentialSmoothing)",
    ),
    "linear": ("линейный тренд по МНК (numpy)", "a least-squares line (numpy)"),
}
PARAMS = {
    "smoothing_level": "α",
    "smoothing_trend": "β",
    "damping_trend": "φ",
    "slope": "slope",
    "intercept": "intercept",
}


def _metas(table: QueryResult, catalog: Any) -> list[ColumnMeta]:
    if catalog is None:
        return [
            ColumnMeta(name=c, role=ColumnRole.ATTRIBUTE, label_ru=c, label_en=c)
            for c in table.columns
        ]
    return infer_metas(table, catalog, [], None)


def _step(plan: list[Step], n: int | None) -> Step | None:
    return next((s for s in plan if s.n == n), None)


def _checked(
    finding: str,
    table: QueryResult,
    metas: list[ColumnMeta],
    trusted: list[str],
    trace: Trace,
    step: Step,
) -> str | None:
    invented = unverified_numbers(finding, table, metas, texts=trusted)
    if invented:
        trace.rejected(
            "a finding held numbers not in its table: left out",
            step=step.n,
            numbers=[str(n) for n in invented],
        )
        return None
    return finding


def _comparison(
    step: Step, out: ToolOutput, plan: list[Step], catalog: Any, lang: str, trace: Trace
) -> str | None:
    table = load_table(out.data or "")
    current, previous = out.meta.get("current") or {}, out.meta.get("previous") or {}
    labels = Labels(
        current.get("label_ru") or "?",
        current.get("label_en") or "?",
        previous.get("label_ru") or "?",
        previous.get("label_en") or "?",
    )
    base = [c for c in table.columns if c + PREV in table.columns]
    keys = [c for c in table.columns if not any(c == b or c.startswith(b + "_") for b in base)]
    source = _step(plan, (out.meta.get("steps") or [None])[0])
    found = source.last_table() if source else None
    base_metas = _metas(load_table(found.data or ""), catalog) if found else []
    by_name = {m.name: m for m in base_metas}
    key_metas = [
        by_name.get(k) or ColumnMeta(name=k, role=ColumnRole.DIMENSION, label_ru=k, label_en=k)
        for k in keys
    ]
    metric_metas = [
        by_name.get(b)
        or ColumnMeta(
            name=b, role=ColumnRole.METRIC, label_ru=b, label_en=b, fmt=ValueFormat.NUMBER
        )
        for b in base
    ]
    metas = comparison_metas(key_metas, metric_metas, labels)
    sentence, figures = comparison_text(lang, table, metas, labels)
    trusted = [labels.current(lang), labels.previous(lang), *figures]
    return _checked(sentence, table, metas, trusted, trace, step)


def _decline(step: Step, out: ToolOutput, catalog: Any, lang: str, trace: Trace) -> str | None:
    table = load_table(out.data or "")
    compared = out.meta.get("compared")
    change = next((c for c in table.columns if c.endswith(CHANGE)), None)
    if change is None:
        return None
    base = change[: -len(CHANGE)]
    metas = _metas(table, catalog)
    by_name = {m.name: m for m in metas}
    keys = [
        i
        for i, m in enumerate(metas)
        if m.role is not ColumnRole.METRIC and not m.name.startswith(base)
    ]
    idx = {c: i for i, c in enumerate(table.columns)}
    value_meta = by_name.get(base) or metas[idx[change]]
    pct_meta = ColumnMeta(
        name="_", role=ColumnRole.METRIC, label_ru="", label_en="", fmt=ValueFormat.PERCENT
    )
    if not table.rows:
        return (
            f"Падения нет: ни одна из {compared} строк сравнения не снизилась"
            if lang == "ru"
            else f"Nothing fell: none of the {compared} compared rows went down"
        )
    named = []
    for row in table.rows[:LISTED]:
        label = " · ".join(format_value(row[i], metas[i], lang) for i in keys) or "—"
        delta = format_value(
            row[idx[change]], value_meta.model_copy(update={"non_negative": False}), lang
        )
        pct = row[idx[change + "_pct"]] if change + "_pct" in idx else None
        named.append(
            f"{label} {delta}"
            + (f" ({format_value(pct, pct_meta, lang)})" if pct is not None else "")
        )
    more = len(table.rows) - LISTED
    tail = (f" и ещё {more}" if lang == "ru" else f" and {more} more") if more > 0 else ""
    head = (
        f"Снизилось {len(table.rows)} из {compared}: "
        if lang == "ru"
        else f"Down in {len(table.rows)} of {compared}: "
    )
    return _checked(head + "; ".join(named) + tail, table, metas, [str(compared)], trace, step)


def _forecast(step: Step, out: ToolOutput, catalog: Any, lang: str, trace: Trace) -> str | None:
    table = load_table(out.data or "")
    meta = out.meta
    if not table.rows:
        return None
    column = table.columns[1]
    base = column.removesuffix("_forecast")
    known = {m.name: m for m in _metas(QueryResult(columns=[base], rows=[(1,)]), catalog)}.get(base)
    value_meta = (
        known
        or ColumnMeta(
            name=base, role=ColumnRole.METRIC, label_ru=base, label_en=base, fmt=ValueFormat.NUMBER
        )
    ).model_copy(update={"name": column})
    metas = [
        ColumnMeta(
            name=table.columns[0],
            role=ColumnRole.PERIOD,
            label_ru="Месяц",
            label_en="Month",
            fmt=ValueFormat.DATE,
            grain="month",
        ),
        value_meta,
    ]
    values = "; ".join(
        f"{format_value(r[0], metas[0], lang)} — {format_value(r[1], value_meta, lang)}"
        for r in table.rows
    )
    name = value_meta.label(lang)
    parts = [f"Прогноз «{name}»: {values}" if lang == "ru" else f"Forecast of “{name}”: {values}"]
    trusted: list[str] = []
    if len(table.rows) > 1 and is_summable(value_meta):
        total = sum(float(r[1] or 0) for r in table.rows)
        sentence = (
            f"итого за период — {format_value(total, value_meta, lang)}"
            if lang == "ru"
            else f"in total {format_value(total, value_meta, lang)}"
        )
        parts.append(sentence)
        trusted.append(sentence)
    method = METHODS.get(
        str(meta.get("method")), (str(meta.get("method")), str(meta.get("method")))
    )
    params = ", ".join(
        f"{PARAMS.get(k, k)} = {format_number(v, 3, lang)}"
        for k, v in (meta.get("params") or {}).items()
    )
    first, last = meta.get("first_actual"), meta.get("last_actual")
    history = ""
    if first and last:
        history = (
            f"{month_label(int(first[:4]), int(first[5:7]), lang)} – "
            f"{month_label(int(last[:4]), int(last[5:7]), lang)}"
        )
    how = (
        f"Метод: {method[0]}"
        + (f", {params}" if params else "")
        + (f"; история: {meta.get('history')} мес. ({history})" if history else "")
        if lang == "ru"
        else f"Method: {method[1]}"
        + (f", {params}" if params else "")
        + (f"; history: {meta.get('history')} months ({history})" if history else "")
    )
    if "ConvergenceWarning" in (meta.get("warnings") or []):
        how += (
            "; подбор параметров не сошёлся (statsmodels ConvergenceWarning): прогноз — "
            "грубая оценка"
            if lang == "ru"
            else "; the parameter fit did not converge (statsmodels ConvergenceWarning): "
            "the forecast is a rough estimate"
        )
    parts.append(how)
    trusted.append(how)
    bridge = meta.get("bridge") or []
    if bridge:
        months = ", ".join(month_label(int(b[:4]), int(b[5:7]), lang) for b in bridge)
        note = (
            f"месяцы до запрошенного периода ({months}) спрогнозированы, но в итог не входят"
            if lang == "ru"
            else f"the months before the asked period ({months}) were forecast but are not counted"
        )
        parts.append(note)
        trusted.append(note)
    return _checked(
        ". ".join(p[:1].upper() + p[1:] for p in parts), table, metas, trusted, trace, step
    )


def _growth(step: Step, out: ToolOutput, catalog: Any, lang: str, trace: Trace) -> str | None:
    """The last period's change, and the largest rise and fall between periods."""
    table = load_table(out.data or "")
    if "change" not in table.columns or len(table.rows) < 2:
        return _analysis(out)
    metas = _metas(
        QueryResult(columns=table.columns[:-2], rows=[r[:-2] for r in table.rows]), catalog
    )
    value_i = next((i for i, m in enumerate(metas) if m.role is ColumnRole.METRIC), None)
    labels_i = [
        i for i, m in enumerate(metas) if m.role in (ColumnRole.PERIOD, ColumnRole.DIMENSION)
    ]
    if value_i is None or not labels_i:
        return _analysis(out)
    value = metas[value_i]
    change = value.model_copy(update={"name": "change", "non_negative": False})
    pct = ColumnMeta(
        name="change_pct",
        role=ColumnRole.METRIC,
        label_ru="",
        label_en="",
        fmt=ValueFormat.PERCENT,
        additive=False,
    )
    metas = [*metas, change, pct]
    c, p = len(table.columns) - 2, len(table.columns) - 1

    def label(row: Any) -> str:
        return " · ".join(format_value(row[i], metas[i], lang) for i in labels_i)

    def signed(text_: str) -> str:
        return text_ if text_.startswith(("-", "—")) else f"+{text_}"

    last, before = table.rows[-1], table.rows[-2]
    name = value.label(lang)
    moved = [r for r in table.rows if r[p] is not None]
    parts = [
        f"{name}: {label(last)} — {format_value(last[value_i], value, lang)}"
        + (
            f" ({signed(format_value(last[c], change, lang))}, "
            f"{signed(format_value(last[p], pct, lang))} "
            + (
                f"по сравнению с периодом «{label(before)}»)"
                if lang == "ru"
                else f"vs {label(before)})"
            )
            if last[p] is not None
            else ""
        )
    ]
    if moved:
        up, down = max(moved, key=lambda r: r[p]), min(moved, key=lambda r: r[p])
        parts.append(
            (
                f"наибольший рост — {label(up)} "
                f"({signed(format_value(up[p], pct, lang))}), наибольшее "
                f"падение — {label(down)} ({signed(format_value(down[p], pct, lang))})"
            )
            if lang == "ru"
            else (
                f"the largest rise {label(up)} "
                f"({signed(format_value(up[p], pct, lang))}), the largest fall "
                f"{label(down)} ({signed(format_value(down[p], pct, lang))})"
            )
        )
    return _checked("; ".join(parts), table, metas, [], trace, step)


def _answer(out: ToolOutput, catalog: Any, lang: str) -> str | None:
    """An ask step's answer, written again by code from the step's whole table (the ask
    answer's own notes on the preview do not belong in a summary), plus what was left out."""
    table = load_table(out.data or "")
    metas = _metas(table, catalog)
    if not table.rows or catalog is None:
        return out.summary.strip() or None
    label = out.meta.get(f"label_{lang}") or out.meta.get("label")
    if (
        out.meta.get("left_out") or out.meta.get("kind") == "series"
    ):  # the period is what the table covers
        label = None
    found = write_answer(lang, table, metas, summarize(table, metas), period_label=label)
    return f"{found} {out.meta['partial']}." if out.meta.get("partial") else found


def _analysis(out: ToolOutput) -> str | None:
    note = str(out.meta.get("note") or "").strip()
    return out.summary.strip() if note else None


def findings(state: dict[str, Any], catalog: Any, trace: Trace) -> list[str]:
    """One finding per result the request asked for, from the finished steps' tables."""
    lang = state.get("lang", "ru")
    plan: list[Step] = state.get("plan") or []
    out: list[str] = []
    used = ("step", "other_step", "series_from_step", "shift_from_step")  # inputs of later steps
    analysed = {s.args.get(k) for s in plan if s.status == "done" for k in used if s.args.get(k)}
    for step in plan:
        table = step.last_table()
        if step.status != "done" or table is None:
            continue
        kind = table.meta.get("kind")
        finding = None
        if step.tool == "analyze" and kind == "compare":
            finding = _comparison(step, table, plan, catalog, lang, trace)
        elif (
            step.tool == "analyze" and kind == "decline"
        ):  # an empty fall is already in the comparison
            finding = (
                _decline(step, table, catalog, lang, trace) if table.row_count or not out else None
            )
        elif step.tool == "analyze" and kind == "forecast":
            finding = _forecast(step, table, catalog, lang, trace)
        elif step.tool == "analyze" and kind == "growth":
            finding = _growth(step, table, catalog, lang, trace)
        elif step.tool == "analyze":
            finding = _analysis(table)
        elif step.tool == "ask" and (step.n not in analysed or kind == "series"):
            finding = _answer(table, catalog, lang)
        if finding:
            out.append(finding)
    return out


def summary_markdown(state: dict[str, Any], closing: str | None, catalog: Any, trace: Trace) -> str:
    lang = state.get("lang", "ru")
    plan: list[Step] = state.get("plan") or []
    history = {h["n"]: h for h in state.get("history") or []}
    counts = {
        k: sum(1 for s in plan if s.status == k)
        for k in ("done", "skipped", "pending", "in_progress")
    }
    lines = [
        f"# {text('summary_title', lang)}",
        "",
        f"**{text('summary_request', lang)}:** {state['request']}",
        "",
        text(
            "summary_counts",
            lang,
            done=counts["done"],
            total=len(plan),
            skipped=counts["skipped"],
            pending=counts["pending"] + counts["in_progress"],
        ),
        "",
    ]
    if closing:
        lines += [closing, ""]
    found = findings(state, catalog, trace)
    failed = [
        s for s in plan if s.status != "done" and (s.error or (history.get(s.n) or {}).get("error"))
    ]
    if found or failed:
        lines += [f"## {text('summary_findings', lang)}", ""]
        lines += [f"- {f}" for f in found]
        lines += [
            f"- {text('summary_failed', lang, n=s.n, title=s.title, why=s.error or history[s.n]['error'])}"  # noqa: E501
            for s in failed
        ]
        lines.append("")
    lines += [f"## {text('summary_plan', lang)}", ""]
    for step in plan:
        status = text(f"status_{step.status}", lang)
        lines.append(f"{step.n}. {MARK[step.status]} **{step.title}** — {status}")
        record = history.get(step.n) or {}
        detail = record.get("report") or record.get("error") or step.error
        if detail:
            lines.append(f"   {detail}")
    files = sorted({f for f in state.get("files") or [] if Path(f).exists()})
    if files:
        lines += ["", f"## {text('summary_files', lang)}", ""]
        lines += [f"- {f}" for f in files]
    return "\n".join(lines) + "\n"
