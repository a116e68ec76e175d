"""Prompt files with versions and labels; the active label comes from settings.

A prompt is `prompts/<name>/v<N>.md`: YAML front matter (`version`, `labels`, `model`:
settings such as temperature) and a Jinja2 body. `get(name)` returns the highest version
carrying the active label (else the highest version, with a trace event). With Langfuse
configured, the prompt comes from Langfuse first and the local file is the fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from jinja2 import Environment, StrictUndefined

from vitrina.task.prompts.langfuse import LangfuseClient, LangfuseError
from vitrina.trace import Trace

ROOT = Path(__file__).parent
FRONT = re.compile(r"\A---\n(.*?)\n---\n?(.*)\Z", re.S)
VERSION_FILE = re.compile(r"^v(\d+)\.md$")
MAX_VERSIONS = 200
_ENV = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)


class PromptError(ValueError):
    """A prompt file is missing or malformed (the message names the file)."""


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    text: str
    labels: tuple[str, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)
    source: str = "file"  # file | langfuse

    def render(self, **values: Any) -> str:
        return _ENV.from_string(self.text).render(**values)

    def record(self) -> dict[str, Any]:
        """What the trace and state keep about the prompt that ran."""
        return {
            "name": self.name,
            "version": self.version,
            "labels": list(self.labels),
            "source": self.source,
        }


def parse_prompt(path: Path, name: str) -> Prompt:
    raw = path.read_text(encoding="utf-8")
    match = FRONT.match(raw)
    if match is None:
        raise PromptError(f"{path}: no front matter (--- version/labels/model ---)")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise PromptError(f"{path}: front matter is not YAML: {exc}") from None
    version = meta.get("version")
    file_version = int(VERSION_FILE.match(path.name).group(1))
    if version != file_version:
        raise PromptError(
            f"{path}: front matter version {version!r} differs from the file name v{file_version}"
        )
    return Prompt(
        name=name,
        version=file_version,
        text=match.group(2),
        labels=tuple(meta.get("labels") or ()),
        config=dict(meta.get("model") or {}),
        source="file",
    )


class PromptStore:
    """Local versioned prompts, optionally behind Langfuse."""

    def __init__(
        self,
        root: Path = ROOT,
        *,
        label: str = "production",
        langfuse: LangfuseClient | None = None,
    ) -> None:
        self.root = root
        self.label = label
        self.langfuse = langfuse

    @classmethod
    def from_env(cls, *, label: str = "production", root: Path = ROOT) -> PromptStore:
        return cls(root, label=label, langfuse=LangfuseClient.from_env())

    def versions(self, name: str) -> list[Prompt]:
        folder = self.root / name
        if not folder.is_dir():
            raise PromptError(f"no prompt {name!r} under {self.root}")
        files = sorted(
            (p for p in folder.iterdir() if VERSION_FILE.match(p.name)),
            key=lambda p: int(VERSION_FILE.match(p.name).group(1)),
        )[:MAX_VERSIONS]
        return [parse_prompt(p, name) for p in files]

    def local(self, name: str, trace: Trace | None = None) -> Prompt:
        versions = self.versions(name)
        if not versions:
            raise PromptError(f"prompt {name!r} has no v<N>.md file in {self.root / name}")
        labelled = [p for p in versions if self.label in p.labels]
        if labelled:
            return labelled[-1]
        if trace is not None:
            trace.warning(
                "no prompt version has the active label; using the newest",
                prompt=name,
                label=self.label,
            )
        return versions[-1]

    def get(self, name: str, trace: Trace | None = None) -> Prompt:
        """The active prompt: Langfuse when configured and reachable, else the local file."""
        if self.langfuse is not None:
            try:
                found = self.langfuse.get_prompt(name, label=self.label)
                prompt = Prompt(
                    name=name,
                    version=int(found["version"]),
                    text=_text_of(found["prompt"]),
                    labels=tuple(found.get("labels") or ()),
                    config=dict(found.get("config") or {}),
                    source="langfuse",
                )
            except (LangfuseError, KeyError, TypeError, ValueError) as exc:
                if trace is not None:
                    trace.suppressed(
                        "Langfuse prompt unavailable; using the local file",
                        prompt=name,
                        error=str(exc),
                    )
            else:
                if trace is not None:
                    trace.branch("prompt", **prompt.record())
                return prompt
        prompt = self.local(name, trace)
        if trace is not None:
            trace.branch("prompt", **prompt.record())
        return prompt


def _text_of(prompt: Any) -> str:
    """Langfuse text prompts are a string; chat prompts a list of {role, content}."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        return "\n\n".join(str(m.get("content", "")) for m in prompt if isinstance(m, dict))
    raise ValueError(f"unexpected Langfuse prompt body: {type(prompt).__name__}")
