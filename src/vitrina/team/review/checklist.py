"""The dashboard reviewer's checklist: what a BI team lead looks for on a built dashboard.

Why a rule table: each check is one small function over the published bundle (the same
``dashboard.json`` every publisher reads), so a check is read, tested and measured on its own
(tests/team/test_review_corpus.py plants each defect class and counts what is caught), like
the SQL guard's rule table. Each check has a code (``RVW-...``) that the builder's rework
applies (team/publish/polish.py, data/layout.grid) and Russian and English messages.

Errors request rework; warnings are amendments (the skill review-rules, REV-001).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from vitrina.team.review.context import ReviewContext, dictionary_of, is_ordinal

if TYPE_CHECKING:  # the agents package imports the reviewer, which imports this table
    from vitrina.team.agents.base import Finding
from vitrina.team.review.periods import chronological_key

Severity = Literal["error", "warning", "note"]  # a note is for a person, not the builder
GRID_PX = {1440: 1440 - 48, 390: 390 - 24}  # the grid's width inside its padding (dashboard.css)
GAP_PX, CELL_PAD_PX = 16, 34  # the grid gap; a cell's padding and border, both sides
CHAR_PX = {"chart": 15 * 0.56, "card": 13 * 0.56}  # mean glyph width of the title fonts


@dataclass(frozen=True)
class Check:
    code: str
    severity: Severity
    ru: str  # the message templates: {object} names the element, the rest the check's facts
    en: str
    run: Callable[[dict[str, Any], ReviewContext], Iterator[dict[str, str]]]


def _elements(bundle: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in bundle["elements"] if e["kind"] == kind]


def _columns(bundle: dict[str, Any], element: dict[str, Any]) -> dict[str, dict[str, Any]]:
    view = next((d for d in bundle.get("datasets", []) if d["id"] == element["view"]), None)
    return {c["name"]: c for c in (view or {}).get("columns", [])}


def _words(title: str) -> list[str]:
    return re.findall(r"\w+", title.lower())


def repeated_words(title: str) -> str | None:
    """A word or phrase said twice in a row: "Revenue by region by region" -> "by region"."""
    words = _words(title)
    for n in (3, 2, 1):
        for i in range(len(words) - 2 * n + 1):
            if words[i : i + n] == words[i + n : i + 2 * n] and not all(
                w.isdigit() for w in words[i : i + n]
            ):
                return " ".join(words[i : i + n])
    return None


def cell_px(w: int, viewport: int) -> float:
    """The text width of a cell ``w`` columns wide (a phone stacks every cell full-width)."""
    grid = GRID_PX[viewport]
    if viewport < 900:
        return grid - CELL_PAD_PX
    column = (grid - 11 * GAP_PX) / 12
    return w * column + (w - 1) * GAP_PX - CELL_PAD_PX


# --- the checks ------------------------------------------------------------------------


def dup_kpis(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    seen: dict[tuple[str, ...], str] = {}
    for card in _elements(bundle, "card"):
        values = tuple(i["value"] for i in card["spec"]["data"]["items"])
        for key in (("title", card["title"].strip().lower()), ("kpi", *card["metrics"], *values)):
            if key in seen:
                yield {"object": card["id"], "other": seen[key]}
                break
            seen[key] = card["id"]


def _chart_data(chart: dict[str, Any]) -> tuple[Any, ...]:
    data = chart["spec"].get("data", {})
    return (
        tuple(data.get("labels", [])),
        tuple(tuple(d.get("data", [])) for d in data.get("datasets", [])),
    )


def dup_charts(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    seen: dict[Any, str] = {}
    for chart in _elements(bundle, "chart"):
        for key in (("title", chart["title"].strip().lower()), ("data", _chart_data(chart))):
            if key in seen:
                yield {"object": chart["id"], "other": seen[key]}
                break
            seen[key] = chart["id"]


def title_repeats(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for obj, title in [("page", bundle["title"])] + [
        (e["id"], e["title"]) for e in bundle["elements"]
    ]:
        if phrase := repeated_words(title):
            yield {"object": obj, "title": title, "words": phrase}


def title_width(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for element in bundle["elements"]:
        room = cell_px(int(element["w"]), 1440)
        need = len(element["title"]) * CHAR_PX[element["kind"]]
        if need > room:
            yield {
                "object": element["id"],
                "title": element["title"],
                "need": f"{need:.0f}",
                "room": f"{room:.0f}",
            }


def _x_meta(bundle: dict[str, Any], chart: dict[str, Any]) -> dict[str, Any] | None:
    return _columns(bundle, chart).get(chart.get("x_column") or "")


def time_order(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for chart in _elements(bundle, "chart"):
        meta = _x_meta(bundle, chart)
        if meta is None or meta.get("role") != "period":
            continue
        labels = chart["spec"]["data"].get("labels", [])
        keys = [chronological_key(str(label)) for label in labels]
        if None in keys:
            continue  # a label this reader cannot place in time: no verdict on its order
        if keys != sorted(keys):  # type: ignore[type-var]
            yield {"object": chart["id"], "labels": ", ".join(map(str, labels[:4])) + " …"}


def ordinal_order(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for chart in _elements(bundle, "chart"):
        labels = [str(x) for x in chart["spec"]["data"].get("labels", [])]
        dic = dictionary_of(chart.get("x_column"), labels, ctx)
        if dic is None or not is_ordinal(dic):
            continue
        rank = {}
        for i, v in enumerate(dic.values):
            rank[v.value] = rank[v.label(ctx.language)] = i
        ranks = [rank[label] for label in labels if label in rank]
        if ranks != sorted(ranks):
            order = ", ".join(v.label(ctx.language) for v in dic.values)
            yield {"object": chart["id"], "order": order}


def _value_axes(chart: dict[str, Any]) -> dict[str, dict[str, Any]]:
    scales = chart["spec"].get("options", {}).get("scales", {})
    horizontal = chart["spec"].get("options", {}).get("indexAxis") == "y"
    return {k: v for k, v in scales.items() if (k.startswith("x") if horizontal else k != "x")}


def bars_from_zero(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for chart in _elements(bundle, "chart"):
        if chart["spec"].get("type") != "bar":
            continue
        for name, axis in _value_axes(chart).items():
            low = axis.get("min")
            if axis.get("beginAtZero") is not True or (low is not None and low > 0):
                yield {"object": chart["id"], "axis": name}


def _unit_marks(meta: dict[str, Any], lang: str) -> list[str]:
    """How a reader sees the unit of a metric in a title: "₽"/"RUB", "%", "$"/"USD"."""
    if meta.get("fmt") == "percent":
        return ["%"]
    unit = (meta.get("unit") or "").upper()
    if meta.get("fmt") != "money" or not unit:
        return []
    symbols = {"RUB": ["₽", "руб"], "USD": ["$"], "EUR": ["€"], "CNY": ["¥", "юан"]}
    return [unit, *symbols.get(unit, [])]


def _metric_of(
    dataset: dict[str, Any], chart: dict[str, Any], columns: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The metric column a dataset draws: named by its label, or the chart's only metric."""
    label = dataset.get("label")
    for metric in chart["metrics"]:
        meta = columns.get(metric, {})
        if label and label in (meta.get("label_ru"), meta.get("label_en")):
            return meta
    return columns.get(chart["metrics"][0], {}) if len(chart["metrics"]) == 1 else {}


def axis_units(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for chart in _elements(bundle, "chart"):
        columns = _columns(bundle, chart)
        axes = _value_axes(chart)
        for dataset in chart["spec"]["data"].get("datasets", []):
            meta = _metric_of(dataset, chart, columns)
            marks = _unit_marks(meta, ctx.language)
            if not marks:
                continue
            axis = axes.get(dataset.get("yAxisID", "y"), {})
            shown = " ".join([chart["title"], str(axis.get("title", {}).get("text", ""))])
            if not any(m.lower() in shown.lower() for m in marks):
                yield {"object": chart["id"], "unit": marks[0], "metric": meta["name"]}
                break


def _unit_of(meta: dict[str, Any]) -> str:
    return f"{meta.get('fmt')}:{(meta.get('unit') or '').upper()}"


def one_unit_per_axis(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for chart in _elements(bundle, "chart"):
        columns = _columns(bundle, chart)
        datasets = chart["spec"]["data"].get("datasets", [])
        if len(datasets) != len(chart["metrics"]) or len(datasets) < 2:
            continue
        by_axis: dict[str, set[str]] = {}
        for dataset, metric in zip(datasets, chart["metrics"], strict=True):
            by_axis.setdefault(dataset.get("yAxisID", "y"), set()).add(
                _unit_of(columns.get(metric, {}))
            )
        for axis, units in by_axis.items():
            if len(units) > 1:
                yield {"object": chart["id"], "axis": axis, "units": ", ".join(sorted(units))}


def _latin_code(text: str) -> bool:
    return bool(re.fullmatch(r"[a-z][a-z0-9_]*", text))


def dictionary_labels(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for chart in _elements(bundle, "chart"):
        labels = [str(x) for x in chart["spec"]["data"].get("labels", [])]
        dic = dictionary_of(chart.get("x_column"), labels, ctx)
        if dic is None:
            continue
        named = {v.value: v.label(ctx.language) for v in dic.values}
        codes = [x for x in labels if x in named and named[x] != x]
        if codes:
            yield {
                "object": chart["id"],
                "codes": ", ".join(codes[:5]),
                "labels": ", ".join(named[c] for c in codes[:5]),
            }


def unlabelled_codes(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    if ctx.language != "ru":
        return
    for chart in _elements(bundle, "chart"):
        labels = [str(x) for x in chart["spec"]["data"].get("labels", [])]
        dic = dictionary_of(chart.get("x_column"), labels, ctx)
        if dic is None:
            continue
        bare = [x for x in labels if _latin_code(x) and not any(
            v.value == x and v.label_ru for v in dic.values)]  # fmt: skip
        if bare:
            yield {"object": chart["id"], "codes": ", ".join(bare[:5]), "column": dic.column}


def board_kopecks(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    if not ctx.board_level:
        return
    for card in _elements(bundle, "card"):
        columns = _columns(bundle, card)
        if not any(columns.get(m, {}).get("fmt") == "money" for m in card["metrics"]):
            continue
        for item in card["spec"]["data"]["items"]:
            if re.search(r"\d[.,]\d{2}(?!\d)", item["value"]):
                yield {"object": card["id"], "value": item["value"]}


def percent_format(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for card in _elements(bundle, "card"):
        columns = _columns(bundle, card)
        if not any(columns.get(m, {}).get("fmt") == "percent" for m in card["metrics"]):
            continue
        for item in card["spec"]["data"]["items"]:
            if "%" not in item["value"]:
                yield {"object": card["id"], "value": item["value"]}


def _occupied(bundle: dict[str, Any]) -> dict[int, set[int]]:
    rows: dict[int, set[int]] = {}
    for e in bundle["elements"]:
        for y in range(int(e["y"]), int(e["y"]) + int(e["h"])):
            rows.setdefault(y, set()).update(range(int(e["x"]), int(e["x"]) + int(e["w"])))
    return rows


def empty_cells(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    rows = _occupied(bundle)
    reported: set[str] = set()
    for y in range(max(rows, default=-1) + 1):
        free = 12 - len(rows.get(y, set()))
        if free <= 0:
            continue
        beside = [e["id"] for e in bundle["elements"] if e["y"] <= y < e["y"] + e["h"]]
        key = ",".join(beside)
        if key in reported:
            continue
        reported.add(key)
        yield {"object": beside[-1] if beside else f"row {y}", "row": str(y), "free": str(free)}


def row_heights(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[dict[str, str]]:
    for kind in ("card", "chart"):
        by_row: dict[int, list[dict[str, Any]]] = {}
        for e in _elements(bundle, kind):
            by_row.setdefault(int(e["y"]), []).append(e)
        for y, row in by_row.items():
            heights = sorted({int(e["h"]) for e in row})
            if len(heights) > 1:
                tall = max(row, key=lambda e: int(e["h"]))
                yield {"object": tall["id"], "row": str(y), "heights": "/".join(map(str, heights))}


CHECKS: tuple[Check, ...] = (
    Check("RVW-KPI-DUP", "error",
          "{object}: карточка повторяет {other}; уберите повтор",
          "{object}: the card repeats {other}; remove the repeat", dup_kpis),
    Check("RVW-CHART-DUP", "error",
          "{object}: график повторяет {other}; уберите повтор",
          "{object}: the chart repeats {other}; remove the repeat", dup_charts),
    Check("RVW-TITLE-DUP", "error",
          "{object}: в заголовке «{title}» дважды подряд «{words}»",
          "{object}: the title «{title}» says «{words}» twice", title_repeats),
    Check("RVW-TITLE-LONG", "error",
          "{object}: заголовок «{title}» требует ~{need} px, в ячейке {room} px при 1440 px",
          "{object}: the title «{title}» needs ~{need} px, its cell has {room} px at 1440 px",
          title_width),
    Check("RVW-SORT-TIME", "error",
          "{object}: периоды не по порядку времени ({labels}); сортируйте по дате",
          "{object}: the periods are not in time order ({labels}); sort by date", time_order),
    Check("RVW-SORT-ORDINAL", "error",
          "{object}: порядковое измерение не в своём порядке; порядок словаря: {order}",
          "{object}: an ordinal dimension out of its own order; the dictionary's order: {order}",
          ordinal_order),
    Check("RVW-AXIS-ZERO", "error",
          "{object}: столбцы на оси {axis} начинаются не с нуля",
          "{object}: the bars' axis {axis} does not start at zero", bars_from_zero),
    Check("RVW-AXIS-UNIT", "error",
          "{object}: единица «{unit}» показателя {metric} не указана ни в заголовке, ни на оси",
          "{object}: the unit «{unit}» of {metric} is in neither the title nor the axis",
          axis_units),
    Check("RVW-AXIS-MIXED", "error",
          "{object}: на оси {axis} две единицы ({units}); разнесите их по осям",
          "{object}: axis {axis} carries two units ({units}); give each its own axis",
          one_unit_per_axis),
    Check("RVW-LABEL-CODE", "error",
          "{object}: на странице коды ({codes}) вместо подписей словаря ({labels})",
          "{object}: codes ({codes}) shown instead of the dictionary's labels ({labels})",
          dictionary_labels),
    Check("RVW-LABEL-MISSING", "note",
          "{object}: коды ({codes}) на русской странице: добавьте label_ru в словарь {column}",
          "{object}: codes ({codes}) on a Russian page: add label_ru to the dictionary {column}",
          unlabelled_codes),
    Check("RVW-FMT-KOPECKS", "error",
          "{object}: копейки на карточке для правления ({value}); округлите до рублей",
          "{object}: kopecks on a board-level card ({value}); round to whole units",
          board_kopecks),
    Check("RVW-FMT-PERCENT", "error",
          "{object}: доля показана без % ({value})",
          "{object}: a share shown without % ({value})", percent_format),
    Check("RVW-LAYOUT-GAP", "error",
          "{object}: в строке {row} пусто {free} колонок из 12",
          "{object}: row {row} leaves {free} of 12 columns empty", empty_cells),
    Check("RVW-LAYOUT-HEIGHT", "error",
          "{object}: элементы строки {row} разной высоты ({heights})",
          "{object}: the cells of row {row} differ in height ({heights})", row_heights),
)  # fmt: skip
CODES = frozenset(c.code for c in CHECKS)


def _run(bundle: dict[str, Any], ctx: ReviewContext) -> Iterator[tuple[Check, str]]:
    for check in CHECKS:
        template = check.ru if ctx.language == "ru" else check.en
        for facts in check.run(bundle, ctx):
            yield check, f"[{check.code}] " + template.format(**facts)


def review_bundle(bundle: dict[str, Any], ctx: ReviewContext) -> list[Finding]:
    """Every check of the table over one bundle, as findings in the dashboard's language
    (errors and warnings: what the builder applies; notes are ``catalog_notes``)."""
    from vitrina.team.agents.base import Finding

    return [
        Finding(check.code, check.severity, text.split("] ", 1)[1])
        for check, text in _run(bundle, ctx)
        if check.severity != "note"
    ]


def catalog_notes(bundle: dict[str, Any], ctx: ReviewContext) -> list[str]:
    """What only a person can fix (labels the catalog lacks): said in the verdict, never an
    amendment the builder would be sent and could not apply."""
    return [text for check, text in _run(bundle, ctx) if check.severity == "note"]


WEB_CHECKS = {
    "RVW-WEB-CUT": (
        "{object}: при ширине {width} px подпись «{text}» обрезана",
        "{object}: at {width} px the label «{text}» is cut",
    ),
    "RVW-WEB-CLIP": (
        "{object}: при ширине {width} px подпись оси «{text}» выходит за график",
        "{object}: at {width} px the axis label «{text}» is drawn outside the chart",
    ),
}


def width_findings(widths: list[Any], language: str) -> list[Finding]:
    """The browser's measurements at each window width (review/browser.WidthReport) as
    findings; a cut at the desktop width stays WEB-004 (the builder widens the cell)."""
    from vitrina.team.agents.base import Finding

    ru = language == "ru"
    findings: list[Finding] = []
    for report in widths:
        if report.width >= 900:
            continue
        for text, where in list(zip(report.cut_labels, report.cut_where, strict=False))[:10]:
            template = WEB_CHECKS["RVW-WEB-CUT"][0 if ru else 1]
            findings.append(
                Finding(
                    "RVW-WEB-CUT",
                    "error",
                    template.format(object=where, width=report.width, text=text),
                )
            )
    for report in widths:
        for clipped in report.clipped_labels[:10]:
            where, _, text = clipped.partition(": ")
            template = WEB_CHECKS["RVW-WEB-CLIP"][0 if ru else 1]
            findings.append(
                Finding(
                    "RVW-WEB-CLIP",
                    "error",
                    template.format(object=where, width=report.width, text=text),
                )
            )
    return findings
