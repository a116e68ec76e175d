"""Analyses run inside the sandbox over step tables: compare, decline, growth, shares,
deviation, forecast. Standard library and numpy (statsmodels for the forecast when
installed); never imports vitrina. Input: in/a.json (and in/b.json), {columns, rows}.
Output: out/result.json {columns, rows, note, meta}.

A comparison's columns follow vitrina.present.comparison: NAME, NAME_prev, NAME_change,
NAME_change_pct, so the summary formats them with the metric's own meaning.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from datetime import date

MAX_HORIZON = 24


def _load(name: str) -> tuple[list[str], list[list]]:
    with open(os.path.join("in", name), encoding="utf-8") as fh:
        data = json.load(fh)
    return list(data["columns"]), [list(r) for r in data["rows"]]


def _numeric(columns: list[str], rows: list[list]) -> list[int]:
    out = []
    for i, _ in enumerate(columns):
        values = [r[i] for r in rows if r[i] is not None]
        if values and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            out.append(i)
    return out


def _write(columns: list[str], rows: list[list], note: str, meta: dict | None = None) -> None:
    with open(os.path.join("out", "result.json"), "w", encoding="utf-8") as fh:
        json.dump(
            {"columns": columns, "rows": rows, "note": note, "meta": meta or {}},
            fh,
            ensure_ascii=False,
        )


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), nd)


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _shifted(value: object, months: int) -> object:
    """A month's first day (ISO text) moved `months` forward; any other value unchanged."""
    if not months or not isinstance(value, str) or len(value) < 10 or value[7] != "-":
        return value
    try:
        year, month, day = int(value[:4]), int(value[5:7]), int(value[8:10])
    except ValueError:
        return value
    if day != 1 or value[4] != "-":
        return value
    total = year * 12 + month - 1 + months
    return f"{total // 12:04d}-{total % 12 + 1:02d}-01" + value[10:]


def compare(params: dict) -> None:
    """Current (a) against previous (b) on their shared key columns: change and change %."""
    ca, ra = _load("a.json")
    cb, rb = _load("b.json")
    nums = _numeric(ca, ra)
    if not nums:
        raise SystemExit("compare: the first table has no numeric column")
    value = nums[0]
    keys = [i for i in range(len(ca)) if i not in nums]
    name = ca[value]
    vb = cb.index(name) if name in cb else _numeric(cb, rb)[0]
    kb = [cb.index(ca[i]) for i in keys if ca[i] in cb]
    if len(kb) != len(keys):
        raise SystemExit("compare: the tables have different key columns")
    shift = int(params.get("shift_months") or 0)  # month by month: May 2025 meets May 2026
    dates = [r[i] for r in rb for i in kb if isinstance(r[i], str) and _ISO.match(r[i])]
    if any(d[8:10] != "01" for d in dates):  # days or weeks: no bucket-to-bucket pairing
        shift = 0
    previous = {tuple(_shifted(r[i], shift) for i in kb): r[vb] for r in rb}
    rows = []
    for r in ra:
        key = tuple(r[i] for i in keys)
        cur, prev = r[value], previous.get(key)
        change = None if cur is None or prev is None else cur - prev
        pct = None if change is None or not prev else change / prev * 100
        rows.append([*key, cur, prev, _r(change), _r(pct, 1)])
    rows.sort(key=lambda row: (row[-1] is None, row[-1] if row[-1] is not None else 0))
    matched = sum(1 for row in rows if row[-3] is not None)
    _write(
        [*(ca[i] for i in keys), name, f"{name}_prev", f"{name}_change", f"{name}_change_pct"],
        rows,
        f"{len(rows)} rows compared on {', '.join(ca[i] for i in keys) or 'the whole table'}, "
        f"{matched} with a match",
        {"matched": matched, "previous_rows": len(rb), "shifted": shift if dates else 0},
    )


def decline(params: dict) -> None:
    """Rows of a comparison whose change is negative, the largest fall first."""
    cols, rows = _load("a.json")
    changes = [n for n in cols if n.endswith("_change")]
    if not changes:
        raise SystemExit("decline: the table has no '_change' column (run compare first)")
    i = cols.index(changes[0])
    pct = cols.index(changes[0] + "_pct") if changes[0] + "_pct" in cols else i
    compared = [r for r in rows if r[i] is not None]
    down = sorted((r for r in compared if r[i] < 0), key=lambda r: (r[pct] is None, r[pct] or 0))
    _write(
        cols,
        down,
        f"{len(down)} of {len(compared)} compared rows fell",
        {"compared": len(compared)},
    )


def growth(params: dict) -> None:
    """Period-over-period change of the first numeric column, in table order."""
    cols, rows = _load("a.json")
    value = _numeric(cols, rows)[0]
    out, prev = [], None
    for r in rows:
        cur = r[value]
        change = None if prev is None or cur is None else cur - prev
        pct = None if change is None or not prev else change / prev * 100
        out.append([*r, _r(change), _r(pct, 1)])
        prev = cur
    _write([*cols, "change", "change_pct"], out, f"{len(out)} periods")


def shares(params: dict) -> None:
    cols, rows = _load("a.json")
    value = _numeric(cols, rows)[0]
    total = sum(r[value] or 0 for r in rows)
    out = [[*r, _r((r[value] or 0) / total * 100 if total else None, 1)] for r in rows]
    out.sort(key=lambda r: -(r[-1] or 0))
    _write([*cols, "share_pct"], out, f"shares of {cols[value]} in a total of {_r(total)}")


def deviation(params: dict) -> None:
    import numpy as np

    cols, rows = _load("a.json")
    value = _numeric(cols, rows)[0]
    x = np.array([float(r[value] or 0) for r in rows])
    mean, std = float(x.mean()), float(x.std()) or 1.0
    out = [
        [*r, _r(float(v) - mean), _r((float(v) - mean) / std)] for r, v in zip(rows, x, strict=True)
    ]
    out.sort(key=lambda r: -abs(r[-1] or 0))
    _write([*cols, "deviation", "z_score"], out, f"mean {_r(mean)}, standard deviation {_r(std)}")


def _months_after(last: date, n: int) -> list[str]:
    out, y, m = [], last.year, last.month
    for _ in range(n):
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        out.append(date(y, m, 1).isoformat())
    return out


def forecast(params: dict) -> None:
    """`steps` months after the series' last month; only those from `report_from` are written.

    Methods: damped Holt (additive trend, damped; statsmodels), Holt (trend not damped),
    linear (least squares, numpy); "auto" is damped Holt, a line when statsmodels is missing.
    """
    import numpy as np

    cols, rows = _load("a.json")
    steps = max(1, min(int(params.get("steps", params.get("horizon", 3))), MAX_HORIZON))
    report_from = params.get("report_from")
    method = params.get("method", "auto")
    when = next(
        i
        for i, _ in enumerate(cols)
        if all(isinstance(r[i], str) and len(r[i]) >= 10 for r in rows)
    )
    value = _numeric(cols, rows)[0]
    rows = sorted(rows, key=lambda r: r[when])
    y = np.array([float(r[value] or 0) for r in rows])
    if len(y) < 4:
        raise SystemExit("forecast: at least 4 periods are needed")
    fitted: dict = {}
    notices: list[str] = []
    try:
        if method == "linear":
            raise ImportError("linear asked")
        from statsmodels.tsa.holtwinters import ExponentialSmoothing

        damped = method != "holt"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = ExponentialSmoothing(
                y, trend="add", damped_trend=damped, initialization_method="estimated"
            ).fit()
        notices = sorted({type(w.message).__name__ for w in caught})
        predicted = fit.forecast(steps)
        method = "damped_holt" if damped else "holt"
        keys = (
            ("smoothing_level", "smoothing_trend", "damping_trend")
            if damped
            else ("smoothing_level", "smoothing_trend")
        )
        fitted = {k: _r(float(fit.params[k]), 4) for k in keys}
    except ImportError:
        slope, intercept = np.polyfit(np.arange(len(y)), y, 1)
        predicted = intercept + slope * np.arange(len(y), len(y) + steps)
        method, fitted = (
            "linear",
            {"slope": _r(float(slope), 4), "intercept": _r(float(intercept), 4)},
        )
    last = rows[-1][when][:10]
    periods = _months_after(date.fromisoformat(last), steps)
    out = [
        [p, _r(float(v))]
        for p, v in zip(periods, predicted, strict=True)
        if not report_from or p >= report_from
    ]
    meta = {
        "method": method,
        "params": fitted,
        "warnings": notices,
        "history": len(y),
        "first_actual": rows[0][when][:10],
        "last_actual": last,
        "steps": steps,
        "bridge": [p for p in periods if report_from and p < report_from],
    }
    _write(
        [cols[when], f"{cols[value]}_forecast"], out, f"{method}; {len(y)} months of history", meta
    )


KINDS = {
    "compare": compare,
    "decline": decline,
    "growth": growth,
    "shares": shares,
    "deviation": deviation,
    "forecast": forecast,
}


def run(kind: str, params: dict) -> None:
    KINDS[kind](params)
