"""The load's execution order: an explicit order, job steps and EXEC order, checked against
data flow; otherwise inferred from data flow alone.

Data flow over a table T gives "before" edges between modules:

- the creator of T (SELECT INTO, CREATE TABLE; when nobody creates it, whoever INSERTs it)
  runs before every module that modifies T (INSERT, UPDATE, DELETE, MERGE, TRUNCATE);
- every writer of T runs before every module that only reads T; UPDATE, DELETE and MERGE
  targets count as reads of the modifier, so two modifiers of one table are not ordered
  by that table.

Sequences are stronger than data: an order file (`--order`), then SQL Agent job steps and
scripts, then each orchestrator's EXEC order. A data edge that contradicts a sequence is
dropped and reported as a conflict. What is left is sorted topologically with ties by
name (so an unrelated procedure never moves the others); a cycle is broken at the member
with the fewest inputs from inside the cycle, and reported with its tables.

>>> from vitrina.docs.sqlindex.models import SqlObject, SqlStatementInfo as S
>>> a = SqlObject(name="etl.b_update", kind="procedure", file="f", line=1,
...     statements=[S(kind="update", targets=["##t"], line=2)])
>>> b = SqlObject(name="etl.z_create", kind="procedure", file="f", line=1,
...     statements=[S(kind="select_into", targets=["##t"], sources=["dbo.s"], line=2)])
>>> plan_order([a, b], resolve=str).order
['etl.z_create', 'etl.b_update']
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from vitrina.docs.sqlindex.models import SqlObject, SqlStatementInfo
from vitrina.docs.sqlindex.temps import is_proc_local

MAX_MODULES = 100_000
MAX_REACH = 10_000  # nodes visited when checking one data edge against the sequences

_CREATE = frozenset({"select_into", "create_table"})
_WHERE = re.compile(r"\bWHERE\b", re.IGNORECASE)


@dataclass(slots=True)
class OrderCycle:
    """Modules that need each other's output; `first` was run first to break the cycle."""

    members: list[str]
    tables: list[str]
    first: str


@dataclass(slots=True)
class OrderConflict:
    """A sequence runs `before` ahead of `after`, but `before` reads `table` that `after` writes."""

    sequence: str  # "file", "job" or the orchestrator's name
    before: str
    after: str
    table: str


@dataclass(slots=True)
class OrderPlan:
    """The order, each module's basis ("file", "job", "exec", "data"), cycles and conflicts."""

    order: list[str] = field(default_factory=list)
    basis: dict[str, str] = field(default_factory=dict)
    cycles: list[OrderCycle] = field(default_factory=list)
    conflicts: list[OrderConflict] = field(default_factory=list)
    orchestrated_by: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class _Graph:
    names: list[str]
    data: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # edge -> tables
    seq: dict[tuple[str, str], str] = field(default_factory=dict)  # edge -> sequence name
    copies: set[tuple[str, str]] = field(default_factory=set)  # b copies rows a wrote


def plan_order(
    modules: list[SqlObject],
    *,
    resolve: Callable[[str], str],
    explicit: Iterable[str] = (),
    references: dict[str, set[str]] | None = None,
) -> OrderPlan:
    """Order `modules` (procedures, functions, scripts); `explicit` is an order file's names;
    `references` maps a table to the tables its foreign keys reference."""
    modules = modules[:MAX_MODULES]
    graph = _Graph(names=sorted(o.name for o in modules))
    plan = OrderPlan(basis={o.name: "data" for o in modules})
    _data_edges(graph, modules, resolve)
    _reference_edges(graph, modules, resolve, references or {})
    _sequence_edges(graph, plan, modules, resolve, [resolve(n) for n in explicit])
    _drop_contradicted(graph, plan)
    plan.order = _sort(graph, plan)
    return plan


# --- sequences --------------------------------------------------------------------------


def _sequence_edges(
    graph: _Graph,
    plan: OrderPlan,
    modules: list[SqlObject],
    resolve: Callable[[str], str],
    explicit: list[str],
) -> None:
    """Chains from the order file, then job steps/scripts, then orchestrators' EXEC order."""
    known = set(graph.names)
    fixed = [n for n in dict.fromkeys(explicit) if n in known]
    owned = set(fixed)
    _chain(graph, plan, fixed, "file", set())
    calls: dict[str, list[str]] = {}
    scripts = sorted((o for o in modules if o.name.startswith("script:")), key=lambda o: o.name)
    procs = sorted((o for o in modules if not o.name.startswith("script:")), key=lambda o: o.name)
    for o in scripts + procs:
        callees = [resolve(c) for c, _ in o.ordered_calls]
        callees = [c for c in dict.fromkeys(callees) if c in known and c != o.name]
        if not callees:
            continue
        calls[o.name] = callees
        label = "job" if o.name.startswith("script:") else o.name
        _chain(graph, plan, callees, label, owned)
        owned.update(callees)
        for c in callees:
            plan.orchestrated_by.setdefault(c, o.name)
        _orchestrator_first(graph, o, callees, modules, resolve)  # its own basis stays data
    _subtrees_before_next(graph, calls)


def _chain(graph: _Graph, plan: OrderPlan, names: list[str], label: str, owned: set[str]) -> None:
    """Consecutive names in order; a pair already placed by a stronger sequence is kept."""
    for a, b in pairwise(names):
        if not (a in owned and b in owned):
            graph.seq.setdefault((a, b), label)
    kind = label if label in ("file", "job") else "exec"
    for n in names if len(names) > 1 else ():  # one call orders nothing against the others
        if plan.basis.get(n) == "data":
            plan.basis[n] = kind


def _subtrees_before_next(graph: _Graph, calls: dict[str, list[str]]) -> None:
    """`EXEC LoadDims; EXEC LoadFacts`: everything LoadDims runs comes before LoadFacts."""
    for (a, b), label in list(graph.seq.items()):
        if a not in calls or b in calls[a]:
            continue  # not two siblings: the orchestrator before its first callee
        seen: set[str] = set()
        stack = list(calls[a])
        while stack and len(seen) < MAX_REACH:
            d = stack.pop()
            if d in seen or d == b:
                continue
            seen.add(d)
            graph.seq.setdefault((d, b), label)
            stack.extend(calls.get(d, []))


def _orchestrator_first(
    graph: _Graph,
    orchestrator: SqlObject,
    callees: list[str],
    modules: list[SqlObject],
    resolve: Callable[[str], str],
) -> bool:
    """An orchestrator starts before its first callee unless it needs a callee's output
    (it reads, or inserts rows referencing, what a callee writes)."""
    if any((c, orchestrator.name) in graph.data for c in callees):
        return False
    graph.seq.setdefault((orchestrator.name, callees[0]), orchestrator.name)
    return True


# --- data flow --------------------------------------------------------------------------


def _touched(o: SqlObject) -> tuple[set[str], set[str], set[str], set[str]]:
    """(created, inserted, modified, written) shared tables of a module: no `#t` or `@t`.

    A module creates a table when it makes it (SELECT INTO, CREATE TABLE) or when its first
    write of it empties it (TRUNCATE, DELETE without WHERE): what it leaves is the table's
    new content. Otherwise its first write decides: INSERT, or a modification.
    """
    created: set[str] = set()
    inserted: set[str] = set()
    modified: set[str] = set()
    for st in o.statements:
        for t in st.targets:
            if is_proc_local(t):
                continue
            first = t not in created and t not in inserted and t not in modified
            if st.kind in _CREATE or (first and _empties(st)):
                created.add(t)
            elif first and st.kind in ("insert", "select", "other", "dynamic"):
                inserted.add(t)
            elif first:
                modified.add(t)
    return created, inserted, modified, created | inserted | modified


def _empties(st: SqlStatementInfo) -> bool:
    return st.kind == "truncate" or (st.kind == "delete" and not _WHERE.search(st.sql))


def _reads(o: SqlObject, resolve: Callable[[str], str]) -> set[str]:
    """Tables the module reads, UPDATE/DELETE/MERGE targets included."""
    out = {resolve(r) for r in o.reads}
    for st in o.statements:
        if st.kind in ("update", "delete", "merge"):
            out |= {resolve(t) for t in st.targets if not is_proc_local(t)}
    return out


def _data_edges(graph: _Graph, modules: list[SqlObject], resolve: Callable[[str], str]) -> None:
    roles: dict[str, dict[str, set[str]]] = {}  # table -> role -> modules

    def add(role: str, tables: Iterable[str], name: str) -> None:
        for table in tables:
            roles.setdefault(resolve(table), {}).setdefault(role, set()).add(name)

    for o in modules:
        created, inserted, modified, _ = _touched(o)
        add("create", created, o.name)
        add("insert", inserted, o.name)
        add("modify", modified, o.name)
        add("read", _reads(o, resolve), o.name)
        add("copy", _copied_into_itself(o), o.name)
    for table in sorted(roles):
        _table_edges(graph, table, roles[table])


def _table_edges(graph: _Graph, table: str, role: dict[str, set[str]]) -> None:
    """Creator -> other writers -> readers; a writer that copies the table's own rows goes
    after the writers that do not."""
    if not (role.get("create") or role.get("insert") or role.get("modify")):
        return
    first = role.get("create") or role.get("insert", set())
    rest = (role.get("insert", set()) | role.get("modify", set())) - first
    only_read = role.get("read", set()) - first - rest
    copiers = rest & role.get("copy", set())
    for before, after in ((first, rest | only_read), (rest, only_read), (rest - copiers, copiers)):
        for a, b in _pairs(before, after):
            graph.data.setdefault((a, b), set()).add(table)
    graph.copies.update(_pairs(first | (rest - copiers), copiers))


def _reference_edges(
    graph: _Graph,
    modules: list[SqlObject],
    resolve: Callable[[str], str],
    references: dict[str, set[str]],
) -> None:
    """A foreign key from T to D: who fills D runs before who inserts rows into T. An
    opposite edge that only orders two writers of the same tables yields to the key."""
    writers, inserters = _writers_and_inserters(modules, resolve)
    for table in sorted(references):
        for parent in sorted(references[table]):
            for a, b in _pairs(writers.get(parent, set()), inserters.get(table, set())):
                if b in writers.get(parent, set()):
                    continue
                against = graph.data.get((b, a))
                if against is not None and all(a in writers.get(t, set()) for t in against):
                    del graph.data[(b, a)]  # both only write those tables: the key wins
                if (b, a) not in graph.data:
                    graph.data.setdefault((a, b), set()).add(parent)


def _writers_and_inserters(
    modules: list[SqlObject], resolve: Callable[[str], str]
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Table -> modules writing it, and -> modules adding rows to it (INSERT, MERGE, INTO)."""
    writers: dict[str, set[str]] = {}
    inserters: dict[str, set[str]] = {}
    for o in modules:
        for st in o.statements:
            for t in (t for t in st.targets if not is_proc_local(t)):
                writers.setdefault(resolve(t), set()).add(o.name)
                if st.kind in ("insert", "merge", "select_into"):
                    inserters.setdefault(resolve(t), set()).add(o.name)
    return writers, inserters


def _copied_into_itself(o: SqlObject) -> set[str]:
    """Tables a statement writes from their own rows (`INSERT T SELECT ... FROM T`)."""
    return {
        t for st in o.statements for t in st.targets if t in st.sources and not is_proc_local(t)
    }


def _pairs(before: set[str], after: set[str]) -> Iterable[tuple[str, str]]:
    return ((a, b) for a in sorted(before) for b in sorted(after) if a != b)


def _drop_contradicted(graph: _Graph, plan: OrderPlan) -> None:
    """A sequence runs x before y; data edges into x from y, or from what y's output flows
    into, contradict it: they are dropped and reported, and the sequence is followed."""
    after: dict[str, set[str]] = {}
    for a, b in graph.data:
        after.setdefault(a, set()).add(b)
    for (x, y), label in sorted(graph.seq.items()):
        reach = _reach(after, y)
        for u in sorted(reach):
            tables = graph.data.pop((u, x), None)
            if tables is None:
                continue
            after[u].discard(x)
            for table in sorted(tables):
                conflict = OrderConflict(label, before=x, after=y, table=table)
                if conflict not in plan.conflicts:
                    plan.conflicts.append(conflict)


def _reach(after: dict[str, set[str]], start: str) -> set[str]:
    """`start` and every module its output flows into (bounded)."""
    seen = {start}
    stack = [start]
    while stack and len(seen) < MAX_REACH:
        for n in after.get(stack.pop(), ()):
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


# --- sorting ----------------------------------------------------------------------------


def _sort(graph: _Graph, plan: OrderPlan) -> list[str]:
    """Kahn's algorithm with ties by `_key`; a stuck graph is a cycle, broken and reported."""
    preds: dict[str, set[str]] = {n: set() for n in graph.names}
    succs: dict[str, set[str]] = {n: set() for n in graph.names}
    for a, b in list(graph.data) + list(graph.seq):
        if a in preds and b in preds and a != b:
            preds[b].add(a)
            succs[a].add(b)
    ready = [_key(n) for n in graph.names if not preds[n]]
    heapq.heapify(ready)
    out: list[str] = []
    done: set[str] = set()
    while len(out) < len(graph.names):
        if not ready:
            first = _break_cycle(graph, plan, preds, done)
            if not preds[first]:
                ready = [_key(first)]
            continue
        name = heapq.heappop(ready)[1]
        if name in done:
            continue
        done.add(name)
        out.append(name)
        for n in sorted(succs[name]):
            preds[n].discard(name)
            if not preds[n] and n not in done:
                heapq.heappush(ready, _key(n))
    return out


def _key(name: str) -> tuple[int, str]:
    """Ties: scripts first (deployment and job scripts run before what they set up), then name."""
    return (0 if name.startswith("script:") else 1, name)


def _break_cycle(graph: _Graph, plan: OrderPlan, preds: dict[str, set[str]], done: set[str]) -> str:
    """The cycle upstream of the first stuck module. First goes a member that neither a
    sequence nor a copy of another member's rows (`INSERT T SELECT ... FROM T`) puts after
    the others, with the fewest inputs from the cycle, then by name."""
    left = sorted(n for n in preds if n not in done)
    start = left[0]
    for _ in range(len(left)):  # walk up to a cycle nothing outside it feeds
        members = _cycle_from(start, preds)
        outside = sorted(p for m in members for p in preds[m] if p not in members)
        if not outside:
            break
        start = outside[0]
    inside = set(members)
    first = min(  # never against a sequence or a copy of rows; then fewest inputs; then name
        members,
        key=lambda n: (
            any((p, n) in graph.seq for p in preds[n] & inside),
            any((p, n) in graph.copies for p in preds[n] & inside),
            len(preds[n] & inside),
            n,
        ),
    )
    tables = sorted(
        {t for (a, b), ts in graph.data.items() if a in members and b in members for t in ts}
    )
    plan.cycles.append(OrderCycle(members=members, tables=tables, first=first))
    preds[first] -= inside  # only the cycle's edges into it are dropped
    return first


def _cycle_from(start: str, preds: dict[str, set[str]]) -> list[str]:
    """Walk predecessors from `start` until a module repeats: those modules form a cycle."""
    path: list[str] = []
    where: dict[str, int] = {}
    current = start
    for _ in range(len(preds) + 1):
        if current in where:
            return sorted(path[where[current] :])
        where[current] = len(path)
        path.append(current)
        current = min(preds[current])
    return [start]
