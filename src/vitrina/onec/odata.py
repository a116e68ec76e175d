"""Reading a published 1C infobase through its standard OData interface (`/odata/standard.odata/`).

The same plan that writes a 1C query is turned into the interface's request: a register's
virtual table is a function of its entity set (`AccumulationRegister_Продажи/Turnovers(
StartPeriod=datetime'...', EndPeriod=datetime'...', Dimensions='Покупатель')`), a document
or catalog an entity set with `$filter`. Filters on predefined items are resolved to their
keys first (`PredefinedDataName`), enum values are compared by name. Read-only by
construction: only GET requests, to the configured base URL, with a row cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from vitrina.onec.kinds import KINDS, kind_of
from vitrina.onec.query import OneCQuery, resource_fields

ROOT = "odata/standard.odata"
FUNCTIONS = {
    "Остатки": "Balance",
    "Обороты": "Turnovers",
    "ОстаткиИОбороты": "BalanceAndTurnovers",
    "СрезПоследних": "SliceLast",
}
SUFFIXES = (
    ("КонечныйОстаток", "ClosingBalance"),
    ("Остаток", "Balance"),
    ("Оборот", "Turnover"),
    ("Приход", "Receipt"),
    ("Расход", "Expense"),
)
MAX_ROWS = 10_000


class ODataError(Exception):
    """The infobase answered with an error or something that is not the interface's JSON."""


@dataclass
class ODataResult:
    url: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _field_name(name: str) -> str:
    for ru, en in SUFFIXES:
        if name.endswith(ru):
            return name[: -len(ru)] + en
    return name


class ODataClient:
    """GET-only client of one infobase's standard OData interface."""

    def __init__(
        self,
        base_url: str,
        *,
        user: str | None = None,
        password: str | None = None,
        timeout_s: float = 30.0,
        max_rows: int = MAX_ROWS,
        transport: Any = None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ODataError(
                f"{base_url!r}: an infobase URL is http(s)://host/base, e.g. http://server/trade"
            )
        self.base = base_url.rstrip("/") + "/" + ROOT
        self.max_rows = max_rows
        self._http = httpx.Client(
            auth=(user, password or "") if user else None,
            timeout=timeout_s,
            transport=transport,
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def _get(self, path: str, params: dict[str, str]) -> list[dict[str, Any]]:
        url = f"{self.base}/{path}"
        try:
            response = self._http.get(url, params={**params, "$format": "json"})
        except httpx.HTTPError as exc:
            raise ODataError(f"{url}: {type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            raise ODataError(f"{url}: HTTP {response.status_code}: {response.text[:300]}")
        try:
            body = response.json()
        except ValueError as exc:
            raise ODataError(f"{url}: the answer is not JSON") from exc
        rows = body.get("value") if isinstance(body, dict) else None
        if not isinstance(rows, list):
            raise ODataError(f"{url}: no 'value' list in the answer")
        return rows

    def predefined_key(self, reference: str) -> str:
        """The Ref_Key of a predefined item: 'Справочник.Склады.ОсновнойСклад' -> a GUID."""
        kind, rest = kind_of(reference)
        name, _, item = rest.partition(".")
        if kind is None or not item:
            raise ODataError(f"{reference}: not a predefined item")
        rows = self._get(
            f"{kind.name}_{quote(name)}",
            {"$filter": f"PredefinedDataName eq {_literal(item)}", "$select": "Ref_Key"},
        )
        if not rows:
            raise ODataError(f"{reference}: no such predefined item in the infobase")
        return str(rows[0]["Ref_Key"])

    def _condition(self, field_name: str, expression: str) -> str:
        if expression == "ИСТИНА":
            return f"{field_name} eq true"
        inner = expression.removeprefix("ЗНАЧЕНИЕ(").removesuffix(")")
        kind, rest = kind_of(inner)
        if kind is not None and kind.name == "Enum":
            return f"{field_name} eq {_literal(rest.partition('.')[2])}"
        return f"{field_name}_Key eq guid'{self.predefined_key(inner)}'"

    def request_for(self, q: OneCQuery, values: dict[str, str]) -> tuple[str, dict[str, str]]:
        """The entity-set path and query options for a plan, with parameter values (ISO dates)."""
        obj = q.register
        entity = f"{KINDS[obj.kind].name}_{quote(obj.name)}"
        conditions = [self._condition(c.field, c.expression) for c in q.conditions if not c.where]
        # filters by a typed name ("на складе «Main»"): on the rows, through the reference
        by_name = [
            f"{c.field.replace('.Наименование', '/Description')} eq {_literal(c.parameter_value)}"
            for c in q.conditions
            if c.where
        ]
        params: dict[str, str] = {"$top": str(self.max_rows + 1)}
        if q.records:  # a register's records: its record-type entity set, by Период
            entity += "_RecordType"
        if q.virtual_table:
            args = []
            if q.virtual_table in ("Остатки", "СрезПоследних"):
                args.append(f"Period=datetime'{values.get('Период', '')}'")
            else:
                args += [
                    f"StartPeriod=datetime'{values.get('НачалоПериода', '')}'",
                    f"EndPeriod=datetime'{values.get('КонецПериода', '')}'",
                ]
            if conditions:
                args.append(f"Condition={_literal(' and '.join(conditions))}")
            if q.dimensions and q.virtual_table != "СрезПоследних":
                args.append(f"Dimensions={_literal(','.join(q.dimensions))}")
            path = f"{entity}/{FUNCTIONS[q.virtual_table]}({','.join(args)})"
        else:
            path = entity
            date = "Period" if q.records else "Date"
            if q.dated and values.get("НачалоПериода"):
                conditions += [
                    f"{date} ge datetime'{values['НачалоПериода']}'",
                    f"{date} le datetime'{values['КонецПериода']}'",
                ]
        row_filters = by_name if q.virtual_table else [*conditions, *by_name]
        if row_filters:
            params["$filter"] = " and ".join(row_filters)
        refs = [d for d in q.dimensions if (f := obj.field(d)) is not None and f.ref_target]
        if refs:
            params["$expand"] = ",".join(refs)
        return path, params

    def fetch(self, q: OneCQuery, values: dict[str, str]) -> ODataResult:
        """Rows of the plan: each dimension by its presentation, each resource by its query name."""
        path, params = self.request_for(q, values)
        rows = self._get(path, params)
        names = [r for _, r in resource_fields(q)]
        out = []
        for row in rows[: self.max_rows]:
            item: dict[str, Any] = {}
            for d in q.dimensions:
                nested = row.get(d)
                item[d] = (
                    nested.get("Description", nested.get("Presentation"))
                    if isinstance(nested, dict)
                    else row.get(d, row.get(f"{d}_Key"))
                )
            for name in names:
                item[name] = row.get(_field_name(name), row.get(name))
            out.append(item)
        return ODataResult(url=f"{self.base}/{path}", rows=out, truncated=len(rows) > self.max_rows)
