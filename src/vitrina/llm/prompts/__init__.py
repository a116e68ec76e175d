"""Prompt templates: text files rendered with Jinja2, never control flow.

Each prompt is one Markdown file `<name>.md` in a package folder (Markdown so that it
ships as package data). Vitrina's shared prompts live here; a job keeps its task prompts
in its own package and reads them through its own library:

    PROMPTS = PromptLibrary("vitrina.ask.prompts")
    PROMPTS.render("sql_generation", question=q, schema=s)

Undefined variables are errors (StrictUndefined), so a renamed variable fails in tests
instead of sending an empty hole to the model.
"""

from __future__ import annotations

import threading
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


class PromptLibrary:
    """The `.md` templates of one package folder, loaded lazily and cached per instance.

    Jinja2 is imported with the first prompt rendered: a rules-only run never renders one,
    and the import was ~65 ms of every cold `vitrina ask`."""

    def __init__(self, package: str) -> None:
        self.package = package
        self._jinja: jinja2.Environment | None = None
        self._lock = threading.Lock()

    @property
    def _env(self) -> jinja2.Environment:
        with self._lock:
            if self._jinja is None:
                import jinja2

                self._jinja = jinja2.Environment(
                    loader=jinja2.FunctionLoader(self._source),
                    undefined=jinja2.StrictUndefined,
                    autoescape=False,
                    keep_trailing_newline=False,
                    trim_blocks=True,
                    lstrip_blocks=True,
                )
            return self._jinja

    def _source(self, name: str) -> str | None:
        path = resources.files(self.package) / f"{name}.md"
        return path.read_text(encoding="utf-8") if path.is_file() else None

    def names(self) -> list[str]:
        """Every prompt name in the folder."""
        return sorted(
            p.name[:-3] for p in resources.files(self.package).iterdir() if p.name.endswith(".md")
        )

    def render(self, name: str, /, **variables: Any) -> str:
        """The prompt `name` with `variables` filled in; KeyError when there is no such file."""
        env = self._env
        import jinja2  # loaded by `_env`

        try:
            template = env.get_template(name)
        except jinja2.TemplateNotFound:
            raise KeyError(
                f"no prompt {name!r} in {self.package} (have: {', '.join(self.names())})"
            ) from None
        return template.render(**variables).strip()


LIBRARY = PromptLibrary(__name__)


def render(name: str, /, **variables: Any) -> str:
    """Render one of the shared prompts of `vitrina.llm.prompts`."""
    return LIBRARY.render(name, **variables)


__all__ = ["LIBRARY", "PromptLibrary", "render"]
