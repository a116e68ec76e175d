"""Apply a RunConfig without editing a file: changed settings, an in-memory copy of the
catalog (virtual topics, instructions, examples), and a model client whose prompts are
rewritten per task."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage, HumanMessage

from vitrina.catalog import Catalog
from vitrina.catalog.model import Example, Instruction
from vitrina.config import Settings
from vitrina.eval.errors import EvalError
from vitrina.eval.experiment import PromptOverride, RunConfig
from vitrina.eval.prompt_template import render_template
from vitrina.llm.client import LLMClient, Messages, to_messages

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

RUN_SOURCE = Path("<run overrides>")
BASE_SOURCE = Path("<catalog>")
ModelFactory = Callable[[RunConfig, Settings], "BaseChatModel | None"]


def settings_for(config: RunConfig, base: Settings) -> Settings:
    """The base settings with the run's resources and model parameters."""
    changes = {k: v for k, v in config.resources.model_dump().items() if v is not None}
    return base.with_(**changes, **config.model.settings(base.llm_endpoints))


def _copies(items: Sequence[Any]) -> list[tuple[Any, Path, None]]:
    return [(item.model_copy(deep=True), BASE_SOURCE, None) for item in items]


def _added(items: Sequence[Any]) -> list[tuple[Any, Path, None]]:
    return [(item.model_copy(deep=True), RUN_SOURCE, None) for item in items]


def catalog_for(config: RunConfig, base: Catalog) -> Catalog:
    """`base` itself when nothing changes, else a rebuilt in-memory copy with the run's
    virtual topics, instructions and examples. Problems in the added items are errors."""
    ins, exs = config.instructions, config.examples
    if (
        not config.virtual_topics
        and not ins.add
        and not exs.add
        and ins.only is None
        and exs.only is None
    ):
        return base
    instructions = [i for i in base.instructions if ins.only is None or i.id in ins.only]
    examples = [e for e in base.examples if exs.only is None or e.question in exs.only]
    try:
        new_instructions = [Instruction.model_validate(i) for i in ins.add]
        new_examples = [Example.model_validate(e) for e in exs.add]
    except ValueError as exc:
        raise EvalError(
            f"instructions/examples to add: {exc}", message_ru="неверные инструкции или примеры"
        ) from exc
    sections: dict[str, list[tuple[Any, Path, None]]] = {
        "tables": _copies(list(base.tables.values())),
        "topics": _copies(list(base.topics.values())),
        "relations": _copies(base.relations),
        "requires": _copies(base.requires),
        "metrics": _copies(list(base.metrics.values())),
        "dictionaries": _copies(list(base.dictionaries.values())),
        "instructions": _copies(instructions) + _added(new_instructions),
        "examples": _copies(examples) + _added(new_examples),
    }
    for vt in config.virtual_topics:
        sections["tables"] += _added(vt.tables)
        sections["topics"] += _added([vt.topic])
        sections["relations"] += _added(vt.relations)
        sections["metrics"] += _added(vt.metrics)
        sections["dictionaries"] += _added(vt.dictionaries)
        sections["instructions"] += _added(vt.instructions)
        sections["examples"] += _added(vt.examples)
    catalog = Catalog.build(base.info.model_copy(deep=True), sections, list(base.problems))
    new = [p for p in catalog.problems if p.file == RUN_SOURCE]
    if new:
        raise EvalError(
            "; ".join(f"{p.where}: {p.message}" for p in new),
            where="virtual topic",
            message_ru="ошибки в виртуальной теме",
        )
    return catalog


class PromptedClient(LLMClient):
    """An LLMClient whose prompt for some tasks is rewritten before it is sent."""

    def __init__(self, base: LLMClient, prompts: dict[str, PromptOverride]) -> None:
        super().__init__(
            base.model,
            timeout_s=base.timeout_s,
            max_retries=base.max_retries,
            backoff_s=base.backoff_s,
            tracer=base.tracer,
            json_mode=base.json_mode,
            sleep=base._sleep,
            max_tokens=base.max_tokens,
            turn_seconds=base.turn_seconds,
            turn_tokens=base.turn_tokens,
            breaker=base.breaker,
        )
        self.overrides = prompts
        self._templates = {t: o.template for t, o in prompts.items() if o.template}

    def rewrite(self, task: str, messages: Messages) -> Messages:
        """The messages with the task's override applied to the last user message."""
        override = self.overrides.get(task)
        if override is None:
            return messages
        msgs: list[BaseMessage] = to_messages(messages)
        idx = max(
            (n for n, m in enumerate(msgs) if isinstance(m, HumanMessage)), default=len(msgs) - 1
        )
        original = msgs[idx].text if msgs else ""
        if task in self._templates:
            text = render_template(self._templates[task], prompt=original)
        else:
            text = f"{original}\n\n{override.append}"
        return [*msgs[:idx], HumanMessage(text), *msgs[idx + 1 :]]

    def structured(self, task: str, messages: Messages, schema: Any, **kwargs: Any) -> Any:
        return super().structured(task, self.rewrite(task, messages), schema, **kwargs)

    def text(self, task: str, messages: Messages, **kwargs: Any) -> Any:
        return super().text(task, self.rewrite(task, messages), **kwargs)

    def stream(self, task: str, messages: Messages, **kwargs: Any) -> Any:
        return super().stream(task, self.rewrite(task, messages), **kwargs)


def client_for(
    config: RunConfig, settings: Settings, model_factory: ModelFactory | None = None
) -> LLMClient | None:
    """The model client of the run: None for rules; an error when `llm` has no model."""
    if config.mode == "rules":
        return None
    from vitrina.llm.factory import LLMSettingsError, build_client

    model = model_factory(config, settings) if model_factory is not None else None
    try:
        client = build_client(settings, model=model)
    except LLMSettingsError as exc:
        raise EvalError(
            f"configuration {config.name}: {exc}", message_ru="неверные настройки модели"
        ) from exc
    if client is None:
        if config.mode == "llm":
            raise EvalError(
                f"configuration {config.name} has mode llm but no model is configured: set "
                "VITRINA_LLM_MODEL (and VITRINA_LLM_BASE_URL) or `model:` in the config",
                message_ru="режим llm, но модель не настроена",
            )
        return None
    return PromptedClient(client, config.prompts) if config.prompts else client
