"""Documents: one Markdown file per measure, the combined manual and index.json."""

from vitrina.docs.writer.combined import write_combined
from vitrina.docs.writer.explain import Explainer, ExplainRequest, rules_explanation
from vitrina.docs.writer.markdown import doc_filename, read_hash, render_measure
from vitrina.docs.writer.mermaid import mermaid

__all__ = [
    "ExplainRequest",
    "Explainer",
    "doc_filename",
    "mermaid",
    "read_hash",
    "render_measure",
    "rules_explanation",
    "write_combined",
]
