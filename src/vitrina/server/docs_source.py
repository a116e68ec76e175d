"""A measure manual written by `vitrina docs`, read for the web page, the API and MCP.

The folder is VITRINA_DOCS_DIR or `--docs`, else the newest run under outputs/docs. Files
are found through index.json only, so a request can never name a path outside the folder.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt

_ANCHOR_TAG = re.compile(r'^\s*(?:<a id="[A-Za-z0-9_-]+">(?:</a>)?|</a>)\s*$')
_MD_LINK = re.compile(r"^(?:measures/)?([^/:#?]+)\.md(#.*)?$")


def find_docs_dir(configured: Path | None, outputs_dir: Path) -> Path | None:
    """The configured manual, else the most recently written one under outputs/docs."""
    if configured is not None:
        return configured if (configured / "index.json").is_file() else None
    candidates = sorted(
        (outputs_dir / "docs").glob("*/index.json"), key=lambda p: p.stat().st_mtime
    )
    return candidates[-1].parent if candidates else None


def _renderer() -> MarkdownIt:
    """CommonMark + tables; raw HTML only as the manual's own `<a id>` anchors; Mermaid kept for
    the page."""
    md = MarkdownIt("commonmark", {"html": True}).enable("table")

    def fence(_self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        info = token.info.strip().split(" ")[0]
        code = html.escape(token.content)
        if info == "mermaid":
            return f'<pre class="mermaid">{code}</pre>\n'
        cls = f' class="language-{html.escape(info)}"' if info else ""
        return f"<pre><code{cls}>{code}</code></pre>\n"

    def raw_html(_self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        content = tokens[idx].content
        if content.lstrip().startswith("<!--"):
            return ""  # the writer's content-hash comment
        return content if _ANCHOR_TAG.match(content) else html.escape(content)

    def link_open(_self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        match = (
            _MD_LINK.match(unquote(href)) if not href.startswith(("http:", "https:", "#")) else None
        )
        if match:
            token.attrSet("href", "#measure=" + quote(match.group(1)))
            token.attrSet("data-measure", match.group(1))
        elif href.startswith(("http:", "https:")):
            token.attrSet("rel", "noopener noreferrer")
        elif not href.startswith("#"):
            token.attrSet("href", "#")
        return md.renderer.renderToken(tokens, idx, options, env)

    md.add_render_rule("fence", fence)
    md.add_render_rule("html_block", raw_html)
    md.add_render_rule("html_inline", raw_html)
    md.add_render_rule("link_open", link_open)
    return md


RENDERER = _renderer()


def render_markdown(text: str) -> str:
    return RENDERER.render(text)


@dataclass
class DocsSource:
    """One docs output folder."""

    root: Path

    @cached_property
    def index(self) -> dict[str, Any]:
        return json.loads((self.root / "index.json").read_text(encoding="utf-8"))

    def summary(self) -> dict[str, Any]:
        topics: dict[str, list[dict[str, Any]]] = {}
        for entry in self.index.get("measures", {}).values():
            lineage = entry.get("lineage") or {}
            topics.setdefault(entry.get("topic") or "General", []).append(
                {
                    "name": entry["measure"],
                    "table": entry.get("table"),
                    "level": lineage.get("level"),
                    "file": Path(entry.get("file", "")).stem,
                }
            )
        return {
            "available": True,
            "model": self.index.get("model"),
            "lang": self.index.get("lang"),
            "topics": [{"topic": t, "measures": m} for t, m in topics.items()],
            "missed": self.index.get("missed", []),
        }

    def _read(self, relative: str) -> str:
        path = (self.root / relative).resolve()
        if not path.is_relative_to(self.root.resolve()) or not path.is_file():
            raise FileNotFoundError(relative)
        return path.read_text(encoding="utf-8")

    def manual(self) -> str:
        return self._read("combined_manual.md")

    def entry(self, name: str) -> dict[str, Any] | None:
        """A measure by name (with or without brackets, any case) or by its document's file stem."""
        wanted = name.strip()
        if wanted.startswith("[") and wanted.endswith("]"):
            wanted = wanted[1:-1]
        entries = list(self.index.get("measures", {}).values())
        for test in (
            lambda e: e["measure"] == wanted,
            lambda e: Path(e.get("file", "")).stem == wanted,
            lambda e: e["measure"].casefold() == wanted.casefold(),
        ):
            found = next((e for e in entries if test(e)), None)
            if found:
                return found
        return None

    def measure_names(self) -> list[str]:
        return [e["measure"] for e in self.index.get("measures", {}).values()]

    def measure_markdown(self, entry: dict[str, Any]) -> str:
        return self._read(entry["file"])
