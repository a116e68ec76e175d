"""The query core: a question or a spec to a plan, a plan to SQL, SQL run with every check.

Every job that queries the warehouse goes through here (ask's graph, route's report, the
build team, task's SQL tool, MCP's `run_sql`), so one catalog has one reading and every
query one set of checks. Names are imported on first use (`vitrina.lazy`), so
`vitrina --help` does not load sqlglot.

    from vitrina.query import read_question, build_plan, compile_plan
    reading = read_question("Сколько карт выпустили в мае 2025?", catalog)
    plan = build_plan(reading, catalog, period)

* the plan and its parts: `QueryPlan`, `PeriodRef`, `Filter`, `Dimension`, `Join`,
  `Comparison`;
* the rules that read, plan and compile: `read_question` / `Reading`, `build_plan`,
  `compile_plan`, `column_metas`;
* the structured entry, for a job that knows what it wants by catalog ids: `QuerySpec`,
  `SpecFilter` -> `plan_from_spec` -> `SpecOutcome` (the same planner, no sentence);
* running: `run_checked(plan or SQL, catalog, warehouse, RunOptions)` -> `Checked` (guard,
  EXPLAIN, deterministic checks, execution, result checks; ask's nodes call its steps).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

if TYPE_CHECKING:  # the real names, for type checkers and IDEs (`X as X`: a re-export)
    from vitrina.query.compiler import column_metas as column_metas
    from vitrina.query.compiler import compile_plan as compile_plan
    from vitrina.query.partial_period import last_day_reader as last_day_reader
    from vitrina.query.partial_period import partial_checks as partial_checks
    from vitrina.query.plan import Comparison as Comparison
    from vitrina.query.plan import Dimension as Dimension
    from vitrina.query.plan import Filter as Filter
    from vitrina.query.plan import Join as Join
    from vitrina.query.plan import PeriodRef as PeriodRef
    from vitrina.query.plan import QueryPlan as QueryPlan
    from vitrina.query.planner import build_plan as build_plan
    from vitrina.query.run import Checked as Checked
    from vitrina.query.run import RunOptions as RunOptions
    from vitrina.query.run import run_checked as run_checked
    from vitrina.query.spec import QuerySpec as QuerySpec
    from vitrina.query.spec import SpecFilter as SpecFilter
    from vitrina.query.spec import SpecOutcome as SpecOutcome
    from vitrina.query.spec import plan_from_spec as plan_from_spec
    from vitrina.query.understand import Reading as Reading
    from vitrina.query.understand import read_question as read_question

_EXPORTS = {
    "Comparison": "vitrina.query.plan",
    "Dimension": "vitrina.query.plan",
    "Filter": "vitrina.query.plan",
    "Join": "vitrina.query.plan",
    "PeriodRef": "vitrina.query.plan",
    "QueryPlan": "vitrina.query.plan",
    "Reading": "vitrina.query.understand",
    "read_question": "vitrina.query.understand",
    "build_plan": "vitrina.query.planner",
    "Checked": "vitrina.query.run",
    "RunOptions": "vitrina.query.run",
    "run_checked": "vitrina.query.run",
    "QuerySpec": "vitrina.query.spec",
    "SpecFilter": "vitrina.query.spec",
    "SpecOutcome": "vitrina.query.spec",
    "plan_from_spec": "vitrina.query.spec",
    "column_metas": "vitrina.query.compiler",
    "compile_plan": "vitrina.query.compiler",
    "last_day_reader": "vitrina.query.partial_period",
    "partial_checks": "vitrina.query.partial_period",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
