"""The LLM layer: a chat model from settings, typed calls with one repair, a scripted fake.

    from vitrina.llm import build_client
    client = build_client(settings)            # None: no model configured, use the rules
    reply = client.structured("topic", messages, TopicChoice)
    if reply.value is None: ...                # reply.error says why; take the rule path

Tests use `vitrina.llm.fake.ScriptedChatModel` with `LLMClient(fake, timeout_s=...)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "LLMCall": "vitrina.llm.accounting",
    "TaskTotals": "vitrina.llm.accounting",
    "TASK_KEY": "vitrina.llm.client",
    "LLMClient": "vitrina.llm.client",
    "Structured": "vitrina.llm.client",
    "TextReply": "vitrina.llm.client",
    "ModelClient": "vitrina.llm.protocol",
    "ModelSlots": "vitrina.llm.protocol",
    "LLMSettingsError": "vitrina.llm.factory",
    "build_chat_model": "vitrina.llm.factory",
    "build_client": "vitrina.llm.factory",
    "resolve_provider": "vitrina.llm.factory",
    "PromptLibrary": "vitrina.llm.prompts",
    "render": "vitrina.llm.prompts",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # the lazy names, for type checkers and IDEs (tests/test_lazy_exports.py)
    from vitrina.llm.accounting import LLMCall as LLMCall
    from vitrina.llm.accounting import TaskTotals as TaskTotals
    from vitrina.llm.client import TASK_KEY as TASK_KEY
    from vitrina.llm.client import LLMClient as LLMClient
    from vitrina.llm.client import Structured as Structured
    from vitrina.llm.client import TextReply as TextReply
    from vitrina.llm.factory import LLMSettingsError as LLMSettingsError
    from vitrina.llm.factory import build_chat_model as build_chat_model
    from vitrina.llm.factory import build_client as build_client
    from vitrina.llm.factory import resolve_provider as resolve_provider
    from vitrina.llm.prompts import PromptLibrary as PromptLibrary
    from vitrina.llm.prompts import render as render
    from vitrina.llm.protocol import ModelClient as ModelClient
    from vitrina.llm.protocol import ModelSlots as ModelSlots
