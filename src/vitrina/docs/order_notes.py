"""What a document says about the load order of its procedures: the basis, cycles, conflicts.

The index plans the order once (`sqlindex/order.py`); a document repeats only the cycles and
conflicts that involve its own procedures, with names as their definitions write them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def order_basis(index: Any, name: str) -> str | None:
    """ "file", "job", "exec" or "data" for one module; None without a plan."""
    plan = _plan(index)
    if plan is None:
        return None
    return plan.basis.get(name) or plan.basis.get(index.resolve(name))


def order_notes(index: Any, procedures: Iterable[str]) -> list[Any]:
    """Cycles and conflicts of the plan that touch any of `procedures` (index keys)."""
    from vitrina.docs.lineage import OrderNote

    plan = _plan(index)
    if plan is None:
        return []
    mine = {index.resolve(p) for p in procedures}
    out: list[OrderNote] = []
    for cycle in plan.cycles:
        if mine & set(cycle.members):
            out.append(
                OrderNote(
                    kind="cycle",
                    members=[index.display(m) for m in cycle.members],
                    tables=[index.display(t) for t in cycle.tables],
                    first=index.display(cycle.first),
                )
            )
    for c in plan.conflicts:
        if mine & {c.before, c.after}:
            out.append(
                OrderNote(
                    kind="conflict",
                    members=[index.display(c.before), index.display(c.after)],
                    tables=[index.display(c.table)],
                    sequence=c.sequence
                    if c.sequence in ("job", "file")
                    else index.display(c.sequence),
                )
            )
    return out


def _plan(index: Any) -> Any:
    get = getattr(index, "order_plan", None)
    return get() if callable(get) else None
