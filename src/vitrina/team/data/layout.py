"""The layout rules shared by the designer, the builder and the reviewer (skill dashboard-layout).

>>> title = "Сумма успешных платежей физических лиц по всем регионам присутствия"
>>> fit_title(title, CHART_TITLE_MAX)
'Сумма успешных платежей физических лиц по всем…'
>>> card_width("17 578 505 424,68 ₽"), card_width("12 345")
(4, 3)
"""

from __future__ import annotations

from typing import Any

CHART_TITLE_MAX = 48  # DASH-001
CARD_TITLE_MAX = 32
WIDTHS = (2, 3, 4, 6, 12)  # DASH-003: allowed cell widths on the 12-column grid
CARD_ROW = 12
LONG_SERIES = 12  # a line with more points than this takes the whole row


def title_limit(kind: str) -> int:
    return CARD_TITLE_MAX if kind == "card" else CHART_TITLE_MAX


def fit_title(title: str, limit: int) -> str:
    """The title cut at a word boundary to fit ``limit`` characters, with an ellipsis."""
    if len(title) <= limit:
        return title
    cut = title[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,.;:—-")
    return (cut or title[: limit - 1]) + "…"


def card_width(value_text: str) -> int:
    """Columns a KPI card needs so its value is not cut (24 px digits in a 1366 px window)."""
    n = len(value_text)
    return 3 if n <= 14 else 4 if n <= 20 else 6


def grid(elements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Place elements in order: cards fill rows first, then charts; x, y, w, h on 12 columns."""
    placed: list[dict[str, Any]] = []
    x = y = 0
    row_height = 1
    for kind in ("card", "chart"):
        items = [e for e in elements if e["kind"] == kind]
        for element in items:
            w = int(element["w"])
            if x + w > 12:
                x, y = 0, y + row_height
                row_height = 1
            h = 1 if kind == "card" else 4
            placed.append({**element, "x": x, "y": y, "w": w, "h": h})
            x += w
            row_height = max(row_height, h)
        if items:
            x, y, row_height = 0, y + row_height, 1
    return fill_rows(placed)


def fill_rows(placed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows that leave columns empty widened to the full 12 (the reviewer's RVW-LAYOUT-GAP):
    equal cells where 12 divides among them, else the last cell takes the rest.

    >>> [e["w"] for e in fill_rows(grid_row([6, 6, 6]))]
    [6, 6, 12]
    >>> [e["w"] for e in fill_rows(grid_row([4, 4, 4, 4]))]
    [4, 4, 4, 12]
    >>> [e["w"] for e in fill_rows(grid_row([3, 3]))]
    [6, 6]
    """
    rows: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for element in placed:
        rows.setdefault((element["kind"], element["y"]), []).append(element)
    for row in rows.values():
        widths = [int(e["w"]) for e in row]
        if sum(widths) >= 12:
            continue
        if 12 % len(row) == 0 and 12 // len(row) >= max(widths):
            widths = [12 // len(row)] * len(row)
        elif widths[-1] + 12 - sum(widths) in WIDTHS:
            widths[-1] += 12 - sum(widths)
        x = 0
        for element, w in zip(row, widths, strict=True):
            element["x"], element["w"] = x, w
            x += w
    return placed


def grid_row(widths: list[int]) -> list[dict[str, Any]]:
    """Charts of these widths placed by ``grid`` (a doctest helper)."""
    return grid([{"id": f"c{i}", "kind": "chart", "w": w} for i, w in enumerate(widths)])


def overlaps(elements: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of elements whose cells overlap (DASH-003)."""
    out = []
    for i, a in enumerate(elements):
        for b in elements[i + 1 :]:
            if (
                a["x"] < b["x"] + b["w"]
                and b["x"] < a["x"] + a["w"]
                and a["y"] < b["y"] + b["h"]
                and b["y"] < a["y"] + a["h"]
            ):
                out.append((a["id"], b["id"]))
    return out
