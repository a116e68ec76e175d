"""Sentences of a document about the load: the basis of its order, cycles and conflicts, and
the computations a column goes through inside CTEs and derived tables."""

from __future__ import annotations

from vitrina.docs.lineage import MeasureLineage, OrderNote
from vitrina.docs.sqlindex.models import ColumnDerivation

_BASES = ("file", "job", "exec", "data")


def order_lines(lin: MeasureLineage, labels: dict[str, str]) -> list[str]:
    """One sentence per basis used by the document's procedures, then each cycle and conflict."""
    used = {p.order_basis for p in lin.procedures if p.order_basis}
    out = [labels[f"order_{b}"] for b in _BASES if b in used] or [labels["order_note"]]
    return out + [f"- {note_text(n, labels)}" for n in lin.order_notes]


def note_text(note: OrderNote, labels: dict[str, str]) -> str:
    if note.kind == "cycle":
        return labels["order_cycle"].format(
            members=", ".join(note.members), tables=", ".join(note.tables), first=note.first
        )
    if note.sequence in ("job", "file"):
        sequence = labels[f"sequence_{note.sequence}"]
    else:
        sequence = labels["sequence_exec"].format(name=note.sequence)
    before, after = [*note.members, "", ""][:2]
    return labels["order_conflict"].format(
        sequence=sequence, before=before, after=after, table=", ".join(note.tables)
    )


def derivation_text(step: ColumnDerivation, labels: dict[str, str]) -> str:
    """`CTE b.gap = DATEDIFF(day, run_max, d)` (line 12), quoted as the file writes it."""
    where = f"{step.where}.{step.column}"
    if where.startswith("derived table "):
        where = labels["derived_table"] + where[len("derived table") :]
    text = f"{where}: `{step.expression}`"
    if not step.exact:
        text += f" ({labels['normalised']})"
    return text + (f" ({labels['line']} {step.line})" if step.line else "")
