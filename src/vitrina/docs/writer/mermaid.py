"""A Mermaid flowchart of one measure's lineage: labels quoted, brackets and quotes escaped."""

from __future__ import annotations

from vitrina.docs.lineage import MeasureLineage
from vitrina.docs.writer.i18n import labels, object_word, translate_warning

MAX_NODES = 60
_SHAPES = {
    "measure": ('(["', '"])'),
    "model_table": ('["', '"]'),
    "view": ('[/"', '"/]'),
    "table": ('[("', '")]'),
    "procedure": ('[["', '"]]'),
    "function": ('[["', '"]]'),
    "unsupported": ('{{"', '"}}'),
    "missing": ('>"', '"]'),
    "source": ('["', '"]'),
}


# Russian words for the edge labels and fixed node texts of the diagram.
_RU = {
    "uses": "использует",
    "reads": "читает",
    "partition source": "источник секции",
    "selects from": "выбирает из",
    "loaded by": "загружается процедурой",
    "defined as": "определена как",
    "loaded from": "загружается из",
    "source": "источник",
    "calculated table (DAX)": "вычисляемая таблица (DAX)",
    "calculation group": "группа вычислений",
    "#table(...) inline data in the model": "#table(...): данные внутри модели",
}


def _word(text: str, lang: str) -> str:
    if lang != "ru":
        return text
    return _RU.get(text) or object_word(translate_warning(text, lang), lang)


def escape_label(text: str) -> str:
    """Mermaid entity codes for characters that end or confuse a quoted label."""
    out = []
    for ch in text:
        if ch == '"':
            out.append("#quot;")
        elif ch == "[":
            out.append("#91;")
        elif ch == "]":
            out.append("#93;")
        elif ch == "<":
            out.append("#lt;")
        elif ch == ">":
            out.append("#gt;")
        elif ch in "{}|#":
            out.append(f"#{ord(ch)};")
        else:
            out.append(ch)
    return "".join(out)


def cut_count(lin: MeasureLineage) -> int:
    """How many lineage objects the diagram leaves out (0 when it shows all)."""
    return max(0, len(lin.nodes) - MAX_NODES)


def mermaid(lin: MeasureLineage, lang: str = "en") -> str:
    """`flowchart LR` text; node ids are n0..nN so names never need escaping there."""
    ids: dict[str, str] = {}
    lines = ["flowchart LR"]
    for node in lin.nodes[:MAX_NODES]:
        nid = f"n{len(ids)}"
        ids[node.id] = nid
        left, right = _SHAPES.get(node.kind, ('["', '"]'))
        lines.append(f"    {nid}{left}{escape_label(_word(node.label, lang))}{right}")
    for edge in lin.edges:
        a, b = ids.get(edge.source), ids.get(edge.target)
        if a is None or b is None:
            continue
        label = f'|"{escape_label(_word(edge.label, lang))}"|' if edge.label else ""
        lines.append(f"    {a} -->{label} {b}")
    if cut_count(lin):
        text = labels(lang)["more_objects"].format(n=cut_count(lin))
        lines.append(f'    more["{escape_label(text)}"]')
    return "\n".join(lines)
