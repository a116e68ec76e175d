"""A run's whole result for the chat's table: a page sorted and filtered over every row,
totals, and the filtered rows as TSV for the clipboard (`vitrina.server.result_rows`).

Owner-checked like the run's files: another token's run, or a run id that is no run, is a
404 that says so in words; a column that is not the result's is a 422 naming its columns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, Query
from fastapi.responses import PlainTextResponse

from vitrina.present.columns import ColumnMeta
from vitrina.present.numbers import metas_for
from vitrina.server.auth import Who
from vitrina.server.errors import ApiError
from vitrina.server.result_rows import (
    DEFAULT_PAGE,
    MAX_FILTER_CHARS,
    MAX_PAGE,
    RowsQuery,
    page,
    tsv,
)
from vitrina.server.state import ServerState, server_state
from vitrina.server.views.runs import _owned_run

State = Annotated[ServerState, Depends(server_state)]
Lang = Literal["ru", "en"]


def _stored(state: ServerState, who: Any, run_id: str) -> tuple[Path, list[ColumnMeta], str]:
    """The run's stored result file, its column meanings and the answer's language."""
    thread_id = _owned_run(state, who, run_id)
    values = state.service.run_values(thread_id, run_id)
    files = state.service.run_files(thread_id, run_id, ("parquet",)) if values else None
    found = files.path("parquet") if files else None
    if values is None or not found:
        raise ApiError(
            404,
            "result_not_found",
            f"run {run_id!r} has no result table (it was not answered with data)",
            f"у запуска {run_id!r} нет таблицы результата (на него не ответили данными)",
        )
    metas = [
        m if isinstance(m, ColumnMeta) else ColumnMeta.model_validate(m)
        for m in values.get("columns_meta") or []
    ]
    lang = str((values.get("outputs") or {}).get("lang") or "ru")
    return Path(found), metas_for(values["result"], metas), lang


def _query(
    sort: str | None, desc: bool, column: str | None, q: str | None, offset: int, limit: int
) -> RowsQuery:
    return RowsQuery(sort=sort, desc=desc, column=column, text=q, offset=offset, limit=limit)


Sort = Annotated[str | None, Query(max_length=300, description="a column name of the result")]
Column = Annotated[str | None, Query(max_length=300, description="the filter's column")]
Filter = Annotated[
    str | None,
    Query(
        max_length=MAX_FILTER_CHARS,
        description="a substring, or `> 100` / `<= 5` on a numeric column",
    ),
]


def run_rows(
    run_id: str,
    state: State,
    who: Who,
    sort: Sort = None,
    desc: bool = False,
    column: Column = None,
    q: Filter = None,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
    lang: Lang | None = None,
) -> dict[str, Any]:
    """A page of a run's whole result: rows formatted like the answer's table, sorted and
    filtered over every stored row; `matched` rows pass the filter of `total_rows`; `totals`
    sums the additive numeric columns over the matched rows."""
    path, metas, answer_lang = _stored(state, who, run_id)
    query = _query(sort, desc, column, q, offset, limit)
    return {"run_id": run_id, **page(path, metas, query, lang or answer_lang)}


def run_rows_tsv(
    run_id: str,
    state: State,
    who: Who,
    sort: Sort = None,
    desc: bool = False,
    column: Column = None,
    q: Filter = None,
    lang: Lang | None = None,
) -> PlainTextResponse:
    """The sorted, filtered rows as tab-separated text (raw values) for the clipboard; the
    `X-Vitrina-Rows` header says how many rows it holds (at most 10 000)."""
    path, metas, answer_lang = _stored(state, who, run_id)
    text, count = tsv(path, metas, _query(sort, desc, column, q, 0, 1), lang or answer_lang)
    return PlainTextResponse(
        text,
        media_type="text/tab-separated-values; charset=utf-8",
        headers={"X-Vitrina-Rows": str(count), "Cache-Control": "no-store"},
    )
