"""What the server needs from the ask service, as a type: the views, the turn runner and the
task router call these members and nothing else. `vitrina.ask.AskService` satisfies it (mypy
checks `build_service`), and so does a test's double."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

    from vitrina.ask import AskResult
    from vitrina.catalog import Catalog
    from vitrina.config import Settings
    from vitrina.query import QueryPlan
    from vitrina.sql.policy import RowPolicy
    from vitrina.trace import TraceEvent
    from vitrina.warehouse.engine import Warehouse


FileKind = Literal["excel", "chart", "csv", "parquet"]  # ask.outputs.Kind


class RunFilesView(Protocol):
    """The written files of one run (paths; None: none of that kind)."""

    excel: str | None
    chart_png: str | None

    def path(self, kind: FileKind) -> str | None: ...


class StepView(Protocol):
    """One graph step of a running turn (ask's StepEvent), for the progress stream."""

    step: str
    ms: float
    trace: list[TraceEvent]


class AskServing(Protocol):
    """The ask service one server process holds (`ServerState.service`)."""

    settings: Settings
    catalog: Catalog
    warehouse: Warehouse
    checkpointer: BaseCheckpointSaver[Any]
    graph: CompiledStateGraph[Any, Any, Any, Any]  # the thread history views read its state

    def ask(
        self,
        question: str,
        *,
        thread_id: str | None = None,
        segment: str | None = None,
        topics: list[str] | None = None,
        policy: RowPolicy | None = None,
    ) -> AskResult: ...

    def stream(
        self,
        question: str,
        *,
        thread_id: str | None = None,
        segment: str | None = None,
        topics: list[str] | None = None,
        waiting: bool | None = None,
        policy: RowPolicy | None = None,
    ) -> Iterator[StepView | AskResult]: ...  # a step after each graph node, then the result

    def run_plan(
        self,
        plan: QueryPlan,
        *,
        question: str = "",
        lang: str | None = None,
        thread_id: str | None = None,
        policy: RowPolicy | None = None,
    ) -> AskResult: ...  # a plan made elsewhere (a report, a task's derived step) as an answer

    def run_files(
        self,
        thread_id: str,
        run_id: str,
        kinds: tuple[FileKind, ...] = ...,
    ) -> RunFilesView | None: ...

    def run_values(self, thread_id: str, run_id: str) -> dict[str, Any] | None: ...

    def close(self) -> None: ...
