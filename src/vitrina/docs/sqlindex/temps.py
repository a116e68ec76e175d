"""Collapsing temp tables and table variables into the real tables that filled them.

A procedure that fills #a from X, then #b from #a, then writes T from #b has, for
lineage, written T from X. Temp names are local to one procedure; reads of them become
reads of their origins, found by a fixpoint so statement order and loops do not matter.

>>> from vitrina.docs.sqlindex.models import SqlStatementInfo as S
>>> sts = [S(kind="select_into", targets=["#a"], sources=["dbo.x"], line=1),
...        S(kind="insert", targets=["#b"], sources=["#a"], line=2),
...        S(kind="insert", targets=["dbo.t"], sources=["#b", "dbo.d"], line=3)]
>>> c = collapse(sts)
>>> sorted(c.reads), sorted(c.writes), sorted(c.flows["dbo.t"])
(['dbo.d', 'dbo.x'], ['dbo.t'], ['dbo.d', 'dbo.x'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vitrina.docs.sqlindex.models import SqlStatementInfo
from vitrina.docs.sqlindex.names import is_local, is_pseudo, is_system


@dataclass(slots=True)
class Collapsed:
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    flows: dict[str, set[str]] = field(default_factory=dict)
    unfilled: set[str] = field(default_factory=set)  # locals read but never filled here


def _real(name: str) -> bool:
    return not (is_local(name) or is_system(name) or is_pseudo(name))


def collapse(statements: list[SqlStatementInfo]) -> Collapsed:
    """Object-level reads, writes and flows; sets each statement's `origins`."""
    origin: dict[str, set[str]] = {}
    filled = {t for st in statements for t in st.targets if is_local(t)}

    def resolve(names: list[str]) -> set[str]:
        out: set[str] = set()
        for name in names:
            if is_local(name):
                out |= origin.get(name, set())
            elif _real(name):
                out.add(name)
        return out

    for _ in range(len(filled) + 1):  # fixpoint: each pass can only grow the sets
        changed = False
        for st in statements:
            got = resolve(st.sources)
            for target in st.targets:
                if is_local(target) and not got <= origin.setdefault(target, set()):
                    origin[target] |= got
                    changed = True
        if not changed:
            break
    result = Collapsed()
    for st in statements:
        got = resolve(st.sources)
        st.origins = sorted(got)
        result.reads |= got
        result.unfilled |= {s for s in st.sources if is_local(s) and s not in filled}
        for target in st.targets:
            if _real(target):
                result.writes.add(target)
                result.flows.setdefault(target, set()).update(got - {target})
    return result
