"""Collapsing procedure-local temp tables and table variables into the tables that filled them.

A procedure that fills #a from X, then #b from #a, then writes T from #b has, for
lineage, written T from X. Local names (`#t`, `@t`) are collapsed by a fixpoint, so
statement order and loops do not matter. What crosses a procedure boundary stays a name:

- global temp tables (`##t`) are shared by every session: they are real objects here,
  written by one procedure and read by the next;
- a `#t` read here but filled nowhere here (created by a caller, or filled by a callee
  through `EXEC`) stays a read of `#t`, and a `#t` filled here but never read here stays a
  write of `#t`; the lineage walk joins them along the call graph.

>>> from vitrina.docs.sqlindex.models import SqlStatementInfo as S
>>> sts = [S(kind="select_into", targets=["#a"], sources=["dbo.x"], line=1),
...        S(kind="insert", targets=["#b"], sources=["#a"], line=2),
...        S(kind="insert", targets=["dbo.t"], sources=["#b", "##g"], line=3)]
>>> c = collapse(sts)
>>> sorted(c.reads), sorted(c.writes), sorted(c.flows["dbo.t"])
(['##g', 'dbo.x'], ['dbo.t'], ['##g', 'dbo.x'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vitrina.docs.sqlindex.models import SqlStatementInfo
from vitrina.docs.sqlindex.names import is_pseudo, is_system


@dataclass(slots=True)
class Collapsed:
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    flows: dict[str, set[str]] = field(default_factory=dict)
    unfilled: set[str] = field(default_factory=set)  # locals read but never filled here


def is_proc_local(name: str) -> bool:
    """`#t` and `@t`: names that live inside one procedure run (`##t` is global)."""
    return name[:1] == "@" or (name[:1] == "#" and name[:2] != "##")


def _real(name: str) -> bool:
    return not (is_proc_local(name) or is_system(name) or is_pseudo(name))


def collapse(statements: list[SqlStatementInfo]) -> Collapsed:
    """Object-level reads, writes and flows; sets each statement's `origins`."""
    origin: dict[str, set[str]] = {}
    filled = {t for st in statements for t in st.targets if is_proc_local(t)}
    read_here = {s for st in statements for s in st.sources if is_proc_local(s)}

    def resolve(names: list[str]) -> set[str]:
        out: set[str] = set()
        for name in names:
            if is_proc_local(name):
                got = origin.get(name, set())
                out |= got
                if name[:1] == "#" and not got:
                    out.add(name)  # filled by a caller or a callee: joined along the call graph
            elif _real(name):
                out.add(name)
        return out

    for _ in range(len(filled) + 1):  # fixpoint: each pass can only grow the sets
        changed = False
        for st in statements:
            got = resolve(st.sources)
            for target in st.targets:
                if is_proc_local(target) and not (got - {target}) <= origin.setdefault(
                    target, set()
                ):
                    origin[target] |= got - {target}
                    changed = True
        if not changed:
            break
    result = Collapsed()
    for st in statements:
        got = resolve(st.sources)
        st.origins = sorted(got)
        result.reads |= got
        result.unfilled |= {
            s for s in st.sources if is_proc_local(s) and s not in filled and s[:1] == "@"
        }
        for target in st.targets:
            exported = target[:1] == "#" and target not in read_here  # filled for the caller
            if _real(target) or exported:
                result.writes.add(target)
                result.flows.setdefault(target, set()).update(got - {target})
    return result
