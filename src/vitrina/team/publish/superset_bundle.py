"""A dashboard bundle as an Apache Superset import ZIP: database, datasets, charts, dashboard.

Every object is keyed by the bundle's UUIDs, so importing the same bundle again (with
``overwrite``) updates the objects instead of adding copies. Each dataset is a virtual
dataset (the view's SQL) with one saved metric per metric column; every chart carries its
``query_context`` (a chart without one fails its data calls), and the dashboard's position
names every chart by UUID (the import links them; creating a dashboard by REST would not).

>>> superset_name("build-7", "payment_amount__card")
'vitrina_build_7__payment_amount__card'
>>> quote_column("amount"), quote_column("Сумма")
('amount', '"Сумма"')
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import yaml

from vitrina.team.publish.bundle import DashboardBundle, DashboardElement, DatasetRef, stable_uuid

VERSION = "1.0.0"
ROW_LIMIT = 10_000
CARD_HEIGHT = 16  # Superset grid units (8 px): a big number with its subheader
CHART_HEIGHT = 60
GRAINS = {"day": "P1D", "week": "P1W", "month": "P1M", "quarter": "P3M", "year": "P1Y"}
SIMPLE = re.compile(r"^[a-z_][a-z0-9_]*$")
MASK = "XXXXXXXXXX"  # what Superset expects in a URI whose password comes separately


def superset_name(bundle_id: str, view_id: str, bundle_uuid: str = "") -> str:
    """The dataset's table name: the build, a part of its UUID (two Vitrina homes both have a
    build-1), the view; readable in Superset's dataset list."""
    tag = f"_{bundle_uuid[:8]}" if bundle_uuid else ""
    return re.sub(r"[^A-Za-z0-9_]", "_", f"vitrina_{bundle_id}{tag}__{view_id}")[:250]


def quote_column(name: str) -> str:
    return name if SIMPLE.match(name) else '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class SupersetDatabase:
    """The warehouse as Superset connects to it (its own URI: Superset runs elsewhere)."""

    name: str
    sqlalchemy_uri: str
    uuid: str = ""

    def key(self) -> str:
        return self.uuid or stable_uuid("superset-database", self.name)

    def masked(self) -> tuple[str, str | None]:
        """(the URI with its password masked, the password) for the import's passwords field."""
        match = re.match(r"^([^:/]+://[^:/@]+):([^@]*)@(.*)$", self.sqlalchemy_uri)
        if not match:
            return self.sqlalchemy_uri, None
        return f"{match[1]}:{MASK}@{match[3]}", match[2]


@dataclass
class ChartPlan:
    """What one element becomes in Superset."""

    element: DashboardElement
    dataset: DatasetRef
    viz_type: str
    params: dict[str, Any]
    query: dict[str, Any]
    metrics: list[str] = field(default_factory=list)


def _metas(dataset: DatasetRef) -> list[dict[str, Any]]:
    return [c for c in dataset.columns if isinstance(c, dict) and c.get("name")]


def _metric_columns(dataset: DatasetRef) -> list[dict[str, Any]]:
    return [c for c in _metas(dataset) if c.get("role") == "metric"]


def _axis_column(dataset: DatasetRef) -> dict[str, Any] | None:
    return next((c for c in _metas(dataset) if c.get("role") in ("period", "dimension")), None)


# the HTML page's formats (vitrina.present.numbers): whole counts, amounts with kopecks,
# percent points with one decimal (12.5 means 12.5 %)
D3_FORMATS = {"count": ",d", "money": ",.2f", "number": ",.2f", "percent": ",.1f"}
CURRENCY_CODE = re.compile(r"^[A-Za-z]{3}$")


def d3_format(meta: dict[str, Any] | None, decimals: int | None = None) -> str:
    """Superset's number format of a metric column, as the HTML page writes it: exact counts
    and amounts, not "1.1k"; ``decimals`` (an amount on a card as the page shows it) wins.

    >>> d3_format({"fmt": "money"}), d3_format({"fmt": "money"}, 0), d3_format({"fmt": "percent"})
    (',.2f', ',.0f', ',.1f')
    """
    fmt = str((meta or {}).get("fmt"))
    if fmt == "money" and decimals is not None:
        return f",.{decimals}f"
    return D3_FORMATS.get(fmt, "SMART_NUMBER")


def currency(meta: dict[str, Any] | None, lang: str) -> dict[str, str] | None:
    """The currency of an amount (its ISO code), placed as the page places it: after the
    number in Russian (1 234 ₽), before it in English (RUB 1,234)."""
    unit = str((meta or {}).get("unit") or "")
    if (meta or {}).get("fmt") != "money" or not CURRENCY_CODE.match(unit):
        return None
    return {"symbol": unit.upper(), "symbolPosition": "suffix" if lang == "ru" else "prefix"}


def _currency_text(meta: dict[str, Any], lang: str) -> str | None:
    """A metric's currency as JSON text: Superset's importers read it as a string (older) or
    load a string into the object (newer)."""
    money = currency(meta, lang)
    return json.dumps(money) if money else None


def shown_decimals(element: DashboardElement, lang: str) -> int | None:
    """The decimals of a card's value as the HTML page shows it (a board-level card shows
    whole roubles), or None when the card shows no number.

    >>> e = DashboardElement(id="c", uuid="u", kind="card", kpi="k", view="v", title="t",
    ...     chart_kind="kpi", spec={"data": {"items": [{"value": "1\xa0235\xa0₽"}]}},
    ...     x=0, y=0, w=3, h=1)
    >>> shown_decimals(e, "ru")
    0
    """
    items = (element.spec.get("data") or {}).get("items") or []
    value = str(items[0].get("value", "")) if items and isinstance(items[0], dict) else ""
    if not re.search(r"\d", value):
        return None
    found = re.search(r"\d" + ("," if lang == "ru" else r"\.") + r"(\d+)", value)
    return len(found.group(1)) if found else 0


def _label(meta: dict[str, Any], lang: str) -> str:
    label = str(meta.get("label_ru" if lang == "ru" else "label_en") or meta["name"])
    if meta.get("fmt") == "percent" and "%" not in label:  # the unit the page's axis names
        label += ", %"
    return label


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def worded_expression(meta: dict[str, Any], lang: str) -> str | None:
    """A coded breakdown column as the catalog's words (its dictionary's label_ru/label_en),
    for Superset, which queries the view itself: a CASE over the stored codes, the code kept
    where no label is written. None for a column without labels in `lang`."""
    if meta.get("role") != "dimension":
        return None
    labels = meta.get("value_labels_ru" if lang == "ru" else "value_labels_en") or {}
    if not isinstance(labels, dict) or not labels:
        return None
    column = quote_column(str(meta["name"]))
    whens = " ".join(
        f"WHEN {_sql_text(str(code))} THEN {_sql_text(str(word))}"
        for code, word in sorted(labels.items())
    )
    return f"CASE {column} {whens} ELSE {column} END"


def dataset_yaml(
    bundle: DashboardBundle, dataset: DatasetRef, database: SupersetDatabase
) -> dict[str, Any]:
    """A virtual dataset: the view's SQL, its columns, a saved metric per metric column.

    A view holds one row per breakdown value, so a metric over a group is that row's value;
    a non-additive one (a distinct count, an average) is MAX, never a SUM across rows.
    """
    period = next((c for c in _metas(dataset) if c.get("role") == "period"), None)
    columns = [
        {
            "column_name": c["name"],
            "verbose_name": _label(c, bundle.language),
            "is_dttm": c.get("role") == "period",
            "is_active": True,
            "type": {"period": "DATE", "metric": "NUMERIC"}.get(str(c.get("role")), "STRING"),
            "advanced_data_type": None,
            "groupby": c.get("role") != "metric",
            "filterable": True,
            "expression": worded_expression(c, bundle.language),  # codes shown as words
            "description": None,
            "python_date_format": None,
            "extra": {},
        }
        for c in _metas(dataset)
    ]
    metrics = [
        {
            "metric_name": c["name"],
            "verbose_name": _label(c, bundle.language),
            "metric_type": "sum" if c.get("additive", True) else "max",
            "expression": (
                f"{'SUM' if c.get('additive', True) else 'MAX'}({quote_column(c['name'])})"
            ),
            "description": None,
            "d3format": d3_format(c),
            "currency": _currency_text(c, bundle.language),
            "extra": {},
            "warning_text": None,
        }
        for c in _metric_columns(dataset)
    ]
    return {
        "table_name": superset_name(bundle.id, dataset.id, bundle.uuid),
        "main_dttm_col": period["name"] if period else None,
        "description": f"Vitrina {bundle.id}: {dataset.id}",
        "default_endpoint": None,
        "offset": 0,
        "cache_timeout": None,
        "catalog": None,
        "schema": None,
        "sql": dataset.sql.strip().rstrip(";"),
        "params": None,
        "template_params": None,
        "filter_select_enabled": True,
        "fetch_values_predicate": None,
        "extra": json.dumps({"vitrina_bundle": bundle.uuid}),
        "normalize_columns": False,
        "always_filter_main_dttm": False,
        "uuid": dataset.uuid,
        "metrics": metrics,
        "columns": columns,
        "version": VERSION,
        "database_uuid": database.key(),
    }


def chart_plan(element: DashboardElement, dataset: DatasetRef, lang: str) -> ChartPlan:
    """The viz type, form data and query of one element, from its view's column meanings."""
    metrics = list(element.metrics) or [c["name"] for c in _metric_columns(dataset)]
    first = next((c for c in _metric_columns(dataset) if metrics and c["name"] == metrics[0]), None)
    if element.kind == "card" or element.chart_kind == "kpi":
        params: dict[str, Any] = {
            "viz_type": "big_number_total",
            "metric": metrics[0] if metrics else "",
            "subheader": element.subtitle,
            "y_axis_format": d3_format(first, shown_decimals(element, lang)),
            "currency_format": currency(first, lang),
            "header_font_size": 0.3,
            "subheader_font_size": 0.125,
        }
        query = {"columns": [], "metrics": metrics[:1], "orderby": []}
        return ChartPlan(element, dataset, "big_number_total", params, query, metrics[:1])
    axis = _axis_column(dataset)
    x = element.x_column or (axis["name"] if axis else "")
    temporal = bool(axis and axis["name"] == x and axis.get("role") == "period")
    grain = GRAINS.get(str(axis.get("grain"))) if temporal and axis else None
    if element.chart_kind == "pie":
        params = {
            "viz_type": "pie",
            "groupby": [x],
            "metric": metrics[0] if metrics else "",
            "row_limit": ROW_LIMIT,
            "show_legend": True,
            "show_labels": True,
            "label_type": "key_percent",
            "sort_by_metric": True,
        }
        query = {"columns": [x], "metrics": metrics[:1], "orderby": [[metrics[0], False]]}
        return ChartPlan(element, dataset, "pie", params, query, metrics[:1])
    viz = "echarts_timeseries_line" if element.chart_kind == "line" else "echarts_timeseries_bar"
    params = {
        "viz_type": viz,
        "x_axis": x,
        "time_grain_sqla": grain,
        "metrics": metrics,
        "groupby": [],
        "adhoc_filters": [],
        "row_limit": ROW_LIMIT,
        "truncate_metric": True,
        "show_legend": len(metrics) > 1,
        "rich_tooltip": True,
        "x_axis_title": "",
        "y_axis_format": d3_format(first),
        "currency_format": currency(first, lang),
        "stack": "Stack" if element.chart_kind == "stacked_bar" else None,
        "orientation": "vertical",
    }
    if not temporal:  # a category axis: largest first, as the chart rules draw it
        params.update({"x_axis_sort": metrics[0] if metrics else None, "x_axis_sort_asc": False})
    axis_column: dict[str, Any] = {
        "columnType": "BASE_AXIS",
        "sqlExpression": x,
        "label": x,
        "expressionType": "SQL",
    }
    if grain:
        axis_column["timeGrain"] = grain
    query = {
        "columns": [axis_column],
        "metrics": metrics,
        "orderby": [] if temporal else [[metrics[0], False]] if metrics else [],
        "post_processing": [
            {
                "operation": "pivot",
                "options": {
                    "index": [x],
                    "columns": [],
                    "aggregates": {m: {"operator": "mean"} for m in metrics},
                    "drop_missing_columns": False,
                },
            },
            {"operation": "flatten"},
        ],
    }
    return ChartPlan(element, dataset, viz, params, query, metrics)


def query_context(plan: ChartPlan, dataset_id: int) -> dict[str, Any]:
    """The saved query of a chart: what /api/v1/chart/<id>/data runs (and reports, caches)."""
    form = {**plan.params, "datasource": f"{dataset_id}__table"}
    query = {
        "filters": [],
        "extras": {"having": "", "where": ""},
        "applied_time_extras": {},
        "annotation_layers": [],
        "row_limit": ROW_LIMIT,
        "series_limit": 0,
        "order_desc": True,
        "url_params": {},
        "custom_params": {},
        "custom_form_data": {},
        **plan.query,
    }
    return {
        "datasource": {"id": dataset_id, "type": "table"},
        "force": False,
        "queries": [query],
        "form_data": form,
        "result_format": "json",
        "result_type": "full",
    }


def chart_plans(bundle: DashboardBundle) -> list[ChartPlan]:
    by_view = {d.id: d for d in bundle.datasets}
    plans = []
    for element in bundle.elements:
        dataset = by_view.get(element.view)
        if dataset is None:
            raise ValueError(f"element {element.id}: its view {element.view} is not in the bundle")
        plans.append(chart_plan(element, dataset, bundle.language))
    return plans


def position(bundle: DashboardBundle, plans: list[ChartPlan], chart_ids: dict[str, int]) -> dict:
    """The dashboard's grid: one ROW per grid row, one CHART per element, in reading order."""
    layout: dict[str, Any] = {
        "DASHBOARD_VERSION_KEY": "v2",
        "ROOT_ID": {"type": "ROOT", "id": "ROOT_ID", "children": ["GRID_ID"]},
        "GRID_ID": {"type": "GRID", "id": "GRID_ID", "children": [], "parents": ["ROOT_ID"]},
        "HEADER_ID": {"id": "HEADER_ID", "type": "HEADER", "meta": {"text": bundle.title}},
    }
    rows: dict[int, str] = {}
    for plan in sorted(plans, key=lambda p: (p.element.y, p.element.x)):
        element = plan.element
        row = rows.get(element.y)
        if row is None:
            row = rows[element.y] = f"ROW-{element.uuid[:8]}"
            layout["GRID_ID"]["children"].append(row)
            layout[row] = {
                "type": "ROW",
                "id": row,
                "children": [],
                "parents": ["ROOT_ID", "GRID_ID"],
                "meta": {"background": "BACKGROUND_TRANSPARENT"},
            }
        cell = f"CHART-{element.uuid[:8]}"
        layout[row]["children"].append(cell)
        layout[cell] = {
            "type": "CHART",
            "id": cell,
            "children": [],
            "parents": ["ROOT_ID", "GRID_ID", row],
            "meta": {
                "width": element.w,
                "height": CARD_HEIGHT if element.kind == "card" else CHART_HEIGHT,
                "chartId": chart_ids.get(element.uuid, 0),
                "uuid": element.uuid,
                "sliceName": element.title,
            },
        }
    return layout


def import_zip(
    bundle: DashboardBundle,
    database: SupersetDatabase,
    *,
    dataset_ids: dict[str, int] | None = None,
    chart_ids: dict[str, int] | None = None,
    kind: Literal["SqlaTable", "Slice", "Dashboard"] = "Dashboard",
    published: bool = True,
) -> bytes:
    """The import ZIP of one kind with what it depends on. ``dataset_ids`` (by dataset UUID)
    fill the charts' query_context; ``chart_ids`` (by element UUID) the position's chartId."""
    dataset_ids = dataset_ids or {}
    plans = chart_plans(bundle)
    root = f"vitrina_{bundle.id}"
    uri, _password = database.masked()
    files: dict[str, Any] = {
        "metadata.yaml": {
            "version": VERSION,
            "type": kind,
            "timestamp": datetime.now(UTC).isoformat(),
        },
        database_file(database): {
            "database_name": database.name,
            "sqlalchemy_uri": uri,
            "cache_timeout": None,
            "expose_in_sqllab": True,
            "allow_run_async": False,
            "allow_ctas": False,
            "allow_cvas": False,
            "allow_dml": False,
            "allow_file_upload": False,
            "extra": {"allows_virtual_table_explore": True},
            "uuid": database.key(),
            "version": VERSION,
        },
    }
    for dataset in bundle.datasets:
        name = superset_name(bundle.id, dataset.id, bundle.uuid)
        files[f"datasets/{_slug(database.name)}/{name}.yaml"] = dataset_yaml(
            bundle, dataset, database
        )
    if kind != "SqlaTable":
        for plan in plans:
            element = plan.element
            dataset_id = dataset_ids.get(plan.dataset.uuid, 0)
            files[f"charts/{_slug(element.id)}_{element.uuid[:8]}.yaml"] = {
                "slice_name": element.title,
                "description": element.caption or None,
                "certified_by": None,
                "certification_details": None,
                "viz_type": plan.viz_type,
                "params": {**plan.params, "datasource": f"{dataset_id}__table"},
                "query_context": json.dumps(query_context(plan, dataset_id), ensure_ascii=False),
                "cache_timeout": None,
                "uuid": element.uuid,
                "version": VERSION,
                "dataset_uuid": plan.dataset.uuid,
            }
    if kind == "Dashboard":
        files[f"dashboards/{_slug(bundle.id)}.yaml"] = {
            "dashboard_title": bundle.title,
            "description": None,
            "css": "",
            "slug": dashboard_slug(bundle),
            "certified_by": None,
            "certification_details": None,
            "published": published,
            "uuid": bundle.uuid,
            "position": position(bundle, plans, chart_ids or {}),
            "metadata": {
                "color_scheme": "",
                "refresh_frequency": 0,
                "expanded_slices": {},
                "label_colors": {},
                "timed_refresh_immune_slices": [],
                "cross_filters_enabled": False,
                "default_filters": "{}",
                "chart_configuration": {},
                "native_filter_configuration": [],
                "shared_label_colors": [],
                "color_scheme_domain": [],
            },
            "version": VERSION,
        }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, content in files.items():
            text = yaml.safe_dump(content, allow_unicode=True, sort_keys=False)
            archive.writestr(f"{root}/{path}", text)
    return out.getvalue()


def database_file(database: SupersetDatabase) -> str:
    return f"databases/{_slug(database.name)}.yaml"


def dashboard_slug(bundle: DashboardBundle) -> str:
    return f"vitrina-{bundle.uuid[:12]}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)[:100] or "item"
