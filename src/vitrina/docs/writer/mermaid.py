"""A Mermaid flowchart of one measure's lineage: labels quoted, brackets and quotes escaped."""

from __future__ import annotations

from vitrina.docs.lineage import MeasureLineage

MAX_NODES = 60
_SHAPES = {
    "measure": ('(["', '"])'), "model_table": ('["', '"]'), "view": ('[/"', '"/]'), "table": ('[("', '")]'),
    "procedure": ('[["', '"]]'), "function": ('[["', '"]]'), "unsupported": ('{{"', '"}}'), "missing": ('>"', '"]'),
    "source": ('["', '"]'),
}


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


def mermaid(lin: MeasureLineage) -> str:
    """`flowchart LR` text; node ids are n0..nN so names never need escaping there."""
    ids: dict[str, str] = {}
    lines = ["flowchart LR"]
    for node in lin.nodes[:MAX_NODES]:
        nid = f"n{len(ids)}"
        ids[node.id] = nid
        left, right = _SHAPES.get(node.kind, ('["', '"]'))
        lines.append(f"    {nid}{left}{escape_label(node.label)}{right}")
    for edge in lin.edges:
        a, b = ids.get(edge.source), ids.get(edge.target)
        if a is None or b is None:
            continue
        label = f'|"{escape_label(edge.label)}"|' if edge.label else ""
        lines.append(f"    {a} -->{label} {b}")
    if len(lin.nodes) > MAX_NODES:
        lines.append(f'    more["{len(lin.nodes) - MAX_NODES} more objects: see the tables below"]')
    return "\n".join(lines)
