"""Analyses run inside the sandbox over step tables: compare, decline, growth, shares,
deviation, forecast. Standard library and numpy (statsmodels for the forecast when
installed); never imports vitrina. Input: in/a.json (and in/b.json), {columns, rows}.
Output: out/result.json {columns, rows, note}.
"""

from __future__ import annotations

import json
import math
import os
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


def _write(columns: list[str], rows: list[list], note: str) -> None:
    with open(os.path.join("out", "result.json"), "w", encoding="utf-8") as fh:
        json.dump({"columns": columns, "rows": rows, "note": note}, fh, ensure_ascii=False)


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), nd)


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
    previous = {tuple(r[i] for i in kb): r[vb] for r in rb}
    rows = []
    for r in ra:
        key = tuple(r[i] for i in keys)
        cur, prev = r[value], previous.get(key)
        change = None if cur is None or prev is None else cur - prev
        pct = None if change is None or not prev else change / prev * 100
        rows.append([*key, cur, prev, _r(change), _r(pct, 1)])
    rows.sort(key=lambda row: (row[-1] is None, row[-1] if row[-1] is not None else 0))
    _write([*(ca[i] for i in keys), name, f"{name}_prev", "change", "change_pct"], rows,
           f"{len(rows)} rows compared on {', '.join(ca[i] for i in keys) or 'the whole table'}")


def decline(params: dict) -> None:
    """Rows of a comparison whose change is negative, the largest fall first."""
    cols, rows = _load("a.json")
    if "change" not in cols:
        raise SystemExit("decline: the table has no 'change' column (run compare first)")
    i = cols.index("change")
    pct = cols.index("change_pct") if "change_pct" in cols else i
    down = sorted((r for r in rows if r[i] is not None and r[i] < 0), key=lambda r: r[pct])
    _write(cols, down, f"{len(down)} of {len(rows)} rows fell")


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
    out = [[*r, _r(float(v) - mean), _r((float(v) - mean) / std)] for r, v in zip(rows, x, strict=True)]
    out.sort(key=lambda r: -abs(r[-1] or 0))
    _write([*cols, "deviation", "z_score"], out, f"mean {_r(mean)}, standard deviation {_r(std)}")


def _months_after(last: date, n: int) -> list[str]:
    out, y, m = [], last.year, last.month
    for _ in range(n):
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        out.append(date(y, m, 1).isoformat())
    return out


def forecast(params: dict) -> None:
    """The next `horizon` months of a monthly series: Holt's linear trend (statsmodels),
    else a least-squares line (numpy)."""
    import numpy as np

    cols, rows = _load("a.json")
    horizon = max(1, min(int(params.get("horizon", 3)), MAX_HORIZON))
    when = next(i for i, _ in enumerate(cols) if all(isinstance(r[i], str) and len(r[i]) >= 10 for r in rows))
    value = _numeric(cols, rows)[0]
    rows = sorted(rows, key=lambda r: r[when])
    y = np.array([float(r[value] or 0) for r in rows])
    if len(y) < 4:
        raise SystemExit("forecast: at least 4 periods are needed")
    try:
        from statsmodels.tsa.holtwinters import ExponentialSmoothing

        fit = ExponentialSmoothing(y, trend="add", damped_trend=True, initialization_method="estimated").fit()
        predicted, method = fit.forecast(horizon), "Holt (statsmodels)"
    except ImportError:
        slope, intercept = np.polyfit(np.arange(len(y)), y, 1)
        predicted = intercept + slope * np.arange(len(y), len(y) + horizon)
        method = "linear trend (numpy)"
    periods = _months_after(date.fromisoformat(rows[-1][when][:10]), horizon)
    out = [[p, _r(float(v))] for p, v in zip(periods, predicted, strict=True)]
    _write([cols[when], f"{cols[value]}_forecast"], out, f"{method}; {len(y)} months of history")


KINDS = {"compare": compare, "decline": decline, "growth": growth, "shares": shares, "deviation": deviation,
         "forecast": forecast}


def run(kind: str, params: dict) -> None:
    KINDS[kind](params)
