"""What the chart builder applies so a dashboard passes the reviewer's checklist
(team/review/checklist.py): dictionary labels instead of codes, ordinal dimensions in their own
order, the unit of a share on its axis, whole units on a board-level card.

Why in one function after the chart spec: the chart builder and the reviewer both derive the
expected chart through ``expected_spec`` (agents/rules/chart_builder.py), so what the builder
applies is what the reviewer expects, and a planted defect is a difference the checklist sees.
Every step is idempotent: a polished chart polished again is the same chart.
"""

from __future__ import annotations

import copy
from typing import Any

from vitrina.catalog.model import Dictionary
from vitrina.present.numbers import format_money, format_number
from vitrina.team.review.context import ReviewContext, dictionary_of, is_ordinal


def _reorder(chart: dict[str, Any], order: list[int]) -> None:
    data = chart["data"]
    data["labels"] = [data["labels"][i] for i in order]
    for dataset in data.get("datasets", []):
        values = dataset.get("data", [])
        if len(values) == len(order):
            dataset["data"] = [values[i] for i in order]
        colors = dataset.get("backgroundColor")
        if isinstance(colors, list) and len(colors) == len(order):
            dataset["backgroundColor"] = [colors[i] for i in order]


def _dimension(chart: dict[str, Any], dic: Dictionary, lang: str) -> None:
    """Labels from the dictionary; an ordinal dictionary's values in its own order."""
    labels = [str(x) for x in chart["data"].get("labels", [])]
    if is_ordinal(dic):
        rank = {v.value: i for i, v in enumerate(dic.values)}
        rank |= {v.label(lang): i for i, v in enumerate(dic.values)}
        order = sorted(range(len(labels)), key=lambda i: (rank.get(labels[i], len(rank)), i))
        _reorder(chart, order)
    named = {v.value: v.label(lang) for v in dic.values}
    chart["data"]["labels"] = [named.get(str(x), x) for x in chart["data"]["labels"]]


def _percent_axis(chart: dict[str, Any], metas: dict[str, dict[str, Any]]) -> None:
    if not any(m.get("fmt") == "percent" for m in metas.values() if m.get("role") == "metric"):
        return
    for name, axis in chart.get("options", {}).get("scales", {}).items():
        title = axis.get("title")
        if name != "x" and isinstance(title, dict) and "%" not in str(title.get("text", "")):
            title["text"] = f"{title.get('text', '')}, %".lstrip(", ")


def _whole_money(card: dict[str, Any], metas: dict[str, dict[str, Any]], lang: str) -> None:
    money = next((m for m in metas.values() if m.get("fmt") == "money"), None)
    if money is None:
        return
    for item in card["data"].get("items", []):
        raw = item.get("raw")
        if isinstance(raw, int | float):
            shown = format_money(raw, lang, money.get("unit"))
            item["value"] = shown.replace(
                format_number(raw, 2, lang), format_number(raw, 0, lang), 1
            )


def polish(
    spec: dict[str, Any],
    element: dict[str, Any],
    columns: list[dict[str, Any]],
    ctx: ReviewContext,
) -> dict[str, Any]:
    """The chart or card spec with the checklist's fixes applied (a new dict)."""
    out = copy.deepcopy(spec)
    metas = {c["name"]: c for c in columns}
    if element["kind"] == "card":
        if ctx.board_level:
            _whole_money(out, metas, ctx.language)
        return out
    x = (element.get("decision") or {}).get("x") or element.get("x_column")
    labels = [str(v) for v in out.get("data", {}).get("labels", [])]
    dic = dictionary_of(x, labels, ctx)
    if dic is not None:
        _dimension(out, dic, ctx.language)
    _percent_axis(out, metas)
    return out
