"""Every URL of the app in one table (Datasette's ``_routes()``): method, path, view, name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from vitrina.server.views import (
    board,
    board_actions,
    catalog,
    dashboards,
    docs,
    health,
    pages,
    results,
    runs,
    threads,
)


class Route(NamedTuple):
    method: str
    path: str
    view: Callable[..., Any]
    name: str
    api: bool = True  # shown in /openapi.json


ROUTES: tuple[Route, ...] = (
    Route("GET", "/healthz", health.healthz, "healthz"),
    Route("GET", "/readyz", health.readyz, "readyz"),
    Route("GET", "/api/info", health.info, "info"),
    Route("POST", "/api/threads", threads.create_thread, "create_thread"),
    Route("GET", "/api/threads", threads.list_threads, "list_threads"),
    Route("GET", "/api/threads/{thread_id}", threads.get_thread, "get_thread"),
    Route("PATCH", "/api/threads/{thread_id}", threads.rename_thread, "rename_thread"),
    Route("DELETE", "/api/threads/{thread_id}", threads.delete_thread, "delete_thread"),
    Route("POST", "/api/threads/{thread_id}/messages", threads.post_message, "post_message"),
    Route("GET", "/api/threads/{thread_id}/live", threads.follow_turn, "follow_turn"),
    Route("POST", "/api/threads/{thread_id}/feedback", threads.post_feedback, "post_feedback"),
    Route("GET", "/api/runs/{run_id}/excel", runs.run_excel, "run_excel"),
    Route("GET", "/api/runs/{run_id}/csv", runs.run_csv, "run_csv"),
    Route("GET", "/api/runs/{run_id}/parquet", runs.run_parquet, "run_parquet"),
    Route("GET", "/api/runs/{run_id}/rows", results.run_rows, "run_rows"),
    Route("GET", "/api/runs/{run_id}/rows.tsv", results.run_rows_tsv, "run_rows_tsv"),
    Route("GET", "/api/runs/{run_id}/chart", runs.run_chart, "run_chart"),
    Route("GET", "/api/runs/{run_id}/chart.png", runs.run_chart_png, "run_chart_png"),
    Route("GET", "/api/catalog/start", catalog.start, "catalog_start"),
    Route("GET", "/api/catalog/topics", catalog.topics, "catalog_topics"),
    Route("GET", "/api/catalog/tables", catalog.tables, "catalog_tables"),
    Route("GET", "/api/docs", docs.docs_index, "docs_index"),
    Route("GET", "/api/docs/manual", docs.docs_manual, "docs_manual"),
    Route("GET", "/api/docs/measures/{name}", docs.docs_measure, "docs_measure"),
    Route("GET", "/api/dashboards/{slug}", dashboards.dashboard_data, "dashboard_data"),
    Route(
        "GET", "/dashboards/{slug}", dashboards.dashboard_redirect, "dashboard_redirect", api=False
    ),
    Route("GET", "/dashboards/{slug}/", dashboards.dashboard_page, "dashboard_page", api=False),
    Route(
        "GET",
        "/dashboards/{slug}/assets/{name}",
        dashboards.dashboard_asset,
        "dashboard_asset",
        api=False,
    ),
    Route(
        "GET",
        "/dashboards/{slug}/dashboard.json",
        dashboards.dashboard_data,
        "dashboard_json",
        api=False,
    ),
    Route("GET", "/api/board/builds", board.board_builds, "board_builds"),
    Route("GET", "/api/board/builds/{build_id}", board.board_build, "board_build"),
    Route("GET", "/api/board/tasks/{task_id}", board.board_task, "board_task"),
    Route(
        "GET",
        "/api/board/tasks/{task_id}/attachments/{name}",
        board.board_attachment,
        "board_attachment",
    ),
    Route(
        "GET",
        "/api/board/tasks/{task_id}/actions",
        board_actions.board_task_actions,
        "board_task_actions",
    ),
    Route("POST", "/api/board/tasks/{task_id}/actions", board_actions.board_task_act, "board_act"),
    Route("GET", "/api/board/me", board_actions.board_me, "board_me"),
    Route(
        "POST",
        "/api/board/builds/{build_id}/republish",
        board_actions.board_build_republish,
        "board_republish",
    ),
    Route("GET", "/board", board.board_page, "board_page", api=False),
    Route("GET", "/", pages.chat_page, "chat_page", api=False),
    Route("GET", "/docs", pages.docs_page, "docs_page", api=False),
)
