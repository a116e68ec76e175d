"""Measure documents answered straight from a model and SQL folder (MCP, web), no docs run first.

`LiveDocs` keeps one Workspace per content hash of the model and SQL files: the index is
built on first use and again only when a file changed. `reword` runs the checked LLM
wording pass over a lineage (from a live workspace or from a manual's index.json).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vitrina.docs.errors import DocsInputError
from vitrina.docs.lineage import MeasureLineage, build_lineage
from vitrina.docs.screen import screen_lineage
from vitrina.docs.workspace import Workspace
from vitrina.docs.writer.explain import explanation, rules_explanation
from vitrina.docs.writer.markdown import render_measure
from vitrina.trace import Trace


class MeasureNotFound(LookupError):
    """A measure the model does not have; the message names the nearest ones."""


class LiveDocs:
    """A model (and SQL folders) given to `vitrina mcp --model/--sql`, indexed lazily, cached by
    hash."""

    def __init__(self, model: Path | str, sql: Sequence[Path | str] = ()) -> None:
        self.model = Path(model)
        self.sql = [Path(p) for p in sql]
        self._lock = threading.Lock()
        self._cached: tuple[str, Workspace] | None = None

    def workspace(self) -> Workspace:
        from vitrina.docs.run import input_hash

        digest = input_hash({"model": str(self.model), "sql": [str(p) for p in self.sql]})
        with self._lock:
            if self._cached is None or self._cached[0] != digest:
                self._cached = (digest, Workspace.load(self.model, self.sql))
            return self._cached[1]

    def lineage(self, measure: str) -> tuple[Workspace, Any, MeasureLineage]:
        ws = self.workspace()
        name = measure.strip()
        if name.startswith("[") and name.endswith("]"):
            name = name[1:-1].replace("]]", "]")
        found = ws.measure_by_name(name)
        if found is None:
            close = difflib.get_close_matches(
                name, [m.name for m in ws.model.measures], n=3, cutoff=0.5
            )
            hint = f"; did you mean {', '.join(f'[{c}]' for c in close)}?" if close else ""
            raise MeasureNotFound(f"measure [{name}] is not in {self.model}{hint}")
        return ws, found, screen_lineage(ws, build_lineage(ws, found))

    def document(self, measure: str, *, lang: str = "en", client: Any = None) -> dict[str, Any]:
        """The measure's Markdown document (rules, or worded by `client` when its wording
        passes)."""
        _ws, found, lin = self.lineage(measure)
        trace = Trace("docs.live")
        explain = None
        if client is not None:
            from vitrina.docs.llm import wording_explainer

            explain = wording_explainer(client)
        text = render_measure(
            lin,
            found,
            topic=found.display_folder or found.table,
            lang=lang,
            explain=explain,
            trace=trace,
        )
        return {
            "measure": found.name,
            "table": found.table,
            "lineage": lin,
            "markdown": text,
            "trace": [e.model_dump(mode="json") for e in trace.events],
        }


def reword(lineage: dict[str, Any] | MeasureLineage, lang: str, client: Any) -> dict[str, Any]:
    """The LLM wording of a measure's explanation, checked; the rules text when it is rejected."""
    from vitrina.docs.llm import wording_explainer

    lin = lineage if isinstance(lineage, MeasureLineage) else MeasureLineage.model_validate(lineage)
    rules = rules_explanation(lin, lang)
    trace = Trace("docs.reword")
    text = explanation(lin, lang, wording_explainer(client), trace)
    return {
        "text": text,
        "rules_text": rules,
        "worded": text != rules,
        "trace": [e.model_dump(mode="json") for e in trace.events],
    }


def load_live(model: Path | None, sql: Sequence[Path] = ()) -> LiveDocs | None:
    """A LiveDocs for `--model`, checked up front so a wrong path is said at start-up."""
    if model is None:
        return None
    if not model.exists():
        raise DocsInputError("model not found (expected a .bim file or a TMDL folder)", path=model)
    for p in sql:
        if not p.exists():
            raise DocsInputError("SQL folder not found", path=p)
    return LiveDocs(model, sql)
