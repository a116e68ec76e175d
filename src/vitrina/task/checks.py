"""Result checks: a step's output is judged by code before anyone can approve it.

One small function per check (sqlglot's optimizer passes are the model), each given the
tool output and the language, each returning the problem in the user's language or None.
A step whose output fails a check fails with that reason: the user cannot approve it, the
evaluator cannot accept it, `--yes` skips it, and the summary says why.

What the checks compare with is what the step was meant to produce, written into the
output's meta by the tool from the plan (the asked period, the series' months, the
forecast's target), never what the tool happened to return.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from vitrina.present.numbers import format_date, month_label
from vitrina.task.horizon import Horizon, months_between
from vitrina.task.messages import text
from vitrina.task.state import ToolOutput
from vitrina.task.tables import load_table

Check = Callable[[ToolOutput, str], str | None]
EMPTY = ("empty", "all_null")


def _month(value: Any, lang: str) -> str:
    day = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    return month_label(day.year, day.month, lang)


def _label(meta: dict[str, Any], lang: str) -> str:
    label = meta.get(f"label_{lang}") or meta.get("label")
    if label:
        return str(label)
    if meta.get("start") and meta.get("end"):
        return f"{format_date(meta['start'], lang)} – {format_date(meta['end'], lang)}"
    return "?"


def ask_has_data(out: ToolOutput, lang: str) -> str | None:
    """An answer with no rows (or only NULLs) is no result: there is nothing to build on."""
    if out.tool != "ask":
        return None
    empty = next((c for c in out.meta.get("checks") or [] if c.get("check") in EMPTY), None)
    if empty is None and out.row_count:
        return None
    span = ""
    if empty and empty.get("data_from"):
        span = text(
            "data_span",
            lang,
            start=format_date(empty["data_from"], lang),
            end=format_date(empty["data_to"], lang),
        )
    return text("no_data", lang, period=_label(out.meta, lang), span=span)


def ask_covers_the_asked_period(out: ToolOutput, lang: str) -> str | None:
    """A derived question must be answered for the dates it was derived for."""
    meta = out.meta
    if out.tool != "ask" or not meta.get("asked_start"):
        return None
    if (meta.get("start"), meta.get("end")) == (meta["asked_start"], meta["asked_end"]):
        return None
    want = f"{format_date(meta['asked_start'], lang)} – {format_date(meta['asked_end'], lang)}"
    return text(
        "wrong_period", lang, got=_label(meta, lang) if meta.get("start") else "—", want=want
    )


def series_covers_its_months(out: ToolOutput, lang: str) -> str | None:
    """A monthly series must hold every month it was asked for, no more, no fewer."""
    wanted = out.meta.get("months")
    if out.tool != "ask" or out.meta.get("kind") != "series" or not wanted or not out.data:
        return None
    table = load_table(out.data)
    have = sorted(
        {v.replace(day=1).isoformat() for row in table.rows for v in row if isinstance(v, date)}
    )
    if have == wanted:
        return None
    missing = [m for m in wanted if m not in have]
    shown = ", ".join(_month(m, lang) for m in missing[:6]) + (" …" if len(missing) > 6 else "")
    return text(
        "series_short",
        lang,
        have=len(set(have) & set(wanted)),
        want=len(wanted),
        first=_month(wanted[0], lang),
        last=_month(wanted[-1], lang),
        missing=text("series_missing", lang, months=shown) if missing else "",
    )


def comparison_has_pairs(out: ToolOutput, lang: str) -> str | None:
    """No rows, or no row with a pair in the other period: the comparison compares nothing."""
    meta = out.meta
    if out.tool != "analyze" or meta.get("kind") != "compare":
        return None
    a, b = (meta.get("steps") or [None, None])[:2]
    if not out.row_count:
        return text("compare_empty", lang, why=text("compare_no_rows", lang, n=a))
    if meta.get("previous_rows") == 0:
        return text("compare_empty", lang, why=text("compare_no_rows", lang, n=b))
    if meta.get("matched") == 0:
        return text("compare_empty", lang, why=text("compare_no_match", lang, a=a, b=b))
    return None


def comparison_periods_complete(out: ToolOutput, lang: str) -> str | None:
    """A period the data do not cover to its end compared with a whole one shows a false change.
    Month by month (`shifted`: each month paired with the same month a year back, the partial
    month left out of the series) every pair is whole: nothing false to show."""
    meta = out.meta
    if out.tool != "analyze" or meta.get("kind") != "compare" or not meta.get("data_end"):
        return None
    if meta.get("shifted") and meta.get("matched"):
        return None
    last = date.fromisoformat(meta["data_end"])
    for side in ("current", "previous"):
        period = meta.get(side) or {}
        if period.get("end") and date.fromisoformat(period["end"]) > last:
            return text(
                "compare_partial", lang, period=_label(period, lang), end=format_date(last, lang)
            )
    return None


def forecast_as_asked(out: ToolOutput, lang: str) -> str | None:
    """A forecast covers exactly the asked months, all after the last actual month."""
    meta = out.meta
    if out.tool != "analyze" or meta.get("kind") != "forecast" or not out.data:
        return None
    table = load_table(out.data)
    got = sorted({v.replace(day=1) for row in table.rows for v in row if isinstance(v, date)})
    if not got:
        return text("forecast_horizon", lang, got="—", want=_want(meta, lang))
    last = date.fromisoformat(meta["last_actual"]) if meta.get("last_actual") else None
    actuals = max(
        (date.fromisoformat(d) for d in (meta.get("last_actual"), meta.get("actuals_to")) if d),
        default=None,
    )  # the series' last month, or the last complete month the data hold
    if actuals is not None and got[0] <= actuals:
        return text(
            "forecast_overlap", lang, first=_month(got[0], lang), last=_month(actuals, lang)
        )
    wanted = _wanted_months(meta, last)
    if wanted is not None and got != wanted:
        return text("forecast_horizon", lang, got=_span(got, lang), want=_want(meta, lang, wanted))
    return None


def _wanted_months(meta: dict[str, Any], last: date | None) -> list[date] | None:
    """The asked months recomputed from the asked horizon (not the tool's own arithmetic)."""
    if not meta.get("asked") or last is None:
        return None
    first, final = Horizon.model_validate(meta["asked"]).target(last)
    return months_between(first, final)


def _span(months: list[date], lang: str) -> str:
    if len(months) == 1:
        return _month(months[0], lang)
    return f"{_month(months[0], lang)} – {_month(months[-1], lang)} ({len(months)})"


def _want(meta: dict[str, Any], lang: str, months: list[date] | None = None) -> str:
    asked = Horizon.model_validate(meta["asked"]) if meta.get("asked") else None
    words = (
        f"«{asked.label(lang)}»"
        if asked is not None and lang == "ru"
        else (f"“{asked.label(lang)}”" if asked is not None else "")
    )
    return f"{words} = {_span(months, lang)}" if months else words or "?"


CHECKS: tuple[Check, ...] = (
    ask_has_data,
    ask_covers_the_asked_period,
    series_covers_its_months,
    comparison_has_pairs,
    comparison_periods_complete,
    forecast_as_asked,
)


def check_output(out: ToolOutput, lang: str) -> str | None:
    """The first problem of a successful output, or None when every check passes."""
    if not out.ok:
        return None
    for check in CHECKS:
        problem = check(out, lang)
        if problem:
            return problem
    return None
