"""Axis ticks of the PNG charts: "nice" round steps and the answer's number formatting.

The steps are the ones matplotlib's MaxNLocator picks (1, 2, 2.5, 5 x 10^k, about six
intervals), so a reader sees 0, 2 000, 4 000 ... rather than 0, 1 873, 3 746 ...

>>> nice_ticks(0, 9800)
[0.0, 2000.0, 4000.0, 6000.0, 8000.0, 10000.0]
>>> nice_ticks(-130, 480, include_zero=True)
[-200.0, 0.0, 200.0, 400.0, 600.0]
>>> tick_label(1234567.0, ValueFormat.MONEY, "en")
'1,234,567'
"""

from __future__ import annotations

import math

from vitrina.present.columns import ValueFormat
from vitrina.present.numbers import Lang, format_number, format_percent

NICE = (1.0, 2.0, 2.5, 5.0, 10.0)
BINS = 6
EPS = 1e-9


def nice_step(raw: float) -> float:
    """The smallest 1/2/2.5/5 x 10^k step that is at least ``raw``."""
    if not math.isfinite(raw) or raw <= 0:
        return 1.0
    magnitude = 10.0 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in NICE if m * magnitude >= raw * (1 - EPS))


def _span(lo: float, hi: float, include_zero: bool) -> tuple[float, float]:
    """A non-empty, finite [lo, hi] that holds the data (and zero for bars)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = 0.0, 1.0
    lo, hi = min(lo, hi), max(lo, hi)
    if include_zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi - lo <= abs(hi) * EPS:  # one value: a band around it (or 0..1 for zero)
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = (0.0, pad) if include_zero and lo >= 0 else (lo - pad, hi + pad)
    return lo, hi


def _ticks(start: float, step: float, count: int) -> list[float]:
    digits = max(0, 2 - math.floor(math.log10(step)))  # no 0.30000000000000004 labels
    return [round(start + i * step, digits) + 0.0 for i in range(count + 1)]  # + 0.0: no -0.0


def nice_ticks(
    lo: float, hi: float, bins: int = BINS, *, include_zero: bool = False
) -> list[float]:
    """At most ``bins`` equal, round intervals whose ends hold [lo, hi]."""
    lo, hi = _span(lo, hi, include_zero)
    step = nice_step((hi - lo) / bins)
    while True:
        start = math.floor(lo / step + EPS) * step
        count = math.ceil(hi / step - EPS) - math.floor(lo / step + EPS)
        if count <= bins:
            return _ticks(start, step, max(count, 1))
        step = nice_step(step * (1 + 1e-6))


def aligned_ticks(
    lo: float, hi: float, intervals: int, *, include_zero: bool = False
) -> list[float]:
    """Ticks of a second axis with exactly ``intervals`` round steps, so both axes share
    the grid lines: the smallest nice step whose ``intervals`` steps hold [lo, hi]."""
    lo, hi = _span(lo, hi, include_zero)
    step = nice_step((hi - lo) / max(intervals, 1))
    for _ in range(64):
        start = math.floor(lo / step + EPS) * step
        if start + intervals * step >= hi - step * EPS:
            break
        step = nice_step(step * (1 + 1e-6))
    return _ticks(start, step, max(intervals, 1))


def step_decimals(step: float) -> int:
    """Decimals that write every multiple of ``step`` exactly (0.25 -> 2, 2.5 -> 1, 5 -> 0).

    >>> [step_decimals(s) for s in (5, 2.5, 0.25, 0.05, 2.5e-7)]
    [0, 1, 2, 2, 8]
    """
    for decimals in range(11):
        if abs(round(step, decimals) - step) <= abs(step) * 1e-6:
            return decimals
    return 10


def tick_label(value: float, fmt: ValueFormat, lang: Lang | str, step: float | None = None) -> str:
    """A tick as the answer writes numbers: ``1 234 567`` (ru) / ``1,234,567`` (en).

    With the axis's ``step`` every tick gets the decimals the step needs, so an axis reads
    0,5 / 1,0 / 1,5 and tiny values stay apart; without it, integers and values from 10 up
    have none and the rest two.
    """
    if fmt is ValueFormat.PERCENT:
        return format_percent(value, lang)
    if step is not None:
        return format_number(value, step_decimals(step), lang)
    decimals = 0 if abs(value) >= 10 or float(value).is_integer() else 2
    return format_number(value, decimals, lang)


def axis_labels(ticks: list[float], fmt: ValueFormat, lang: Lang | str) -> list[str]:
    """Labels of an axis's ticks, all with the decimals of its step.

    >>> axis_labels([0.0, 0.5, 1.0, 1.5], ValueFormat.NUMBER, "ru")
    ['0,0', '0,5', '1,0', '1,5']
    >>> axis_labels([0.0, 2000.0, 4000.0], ValueFormat.COUNT, "en")
    ['0', '2,000', '4,000']
    """
    step = ticks[1] - ticks[0] if len(ticks) > 1 else None
    return [tick_label(v, fmt, lang, step) for v in ticks]
