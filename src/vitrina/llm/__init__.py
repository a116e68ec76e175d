"""The LLM layer: a chat model from settings, typed calls with one repair, a scripted fake.

    from vitrina.llm import build_client
    client = build_client(settings)            # None: no model configured, use the rules
    reply = client.structured("topic", messages, TopicChoice)
    if reply.value is None: ...                # reply.error says why; take the rule path

Tests use `vitrina.llm.fake.ScriptedChatModel` with `LLMClient(fake, timeout_s=...)`.
"""

from __future__ import annotations

from vitrina.lazy import lazy_exports

_EXPORTS = {
    "LLMCall": "vitrina.llm.accounting",
    "TaskTotals": "vitrina.llm.accounting",
    "TASK_KEY": "vitrina.llm.client",
    "LLMClient": "vitrina.llm.client",
    "Structured": "vitrina.llm.client",
    "TextReply": "vitrina.llm.client",
    "LLMSettingsError": "vitrina.llm.factory",
    "build_chat_model": "vitrina.llm.factory",
    "build_client": "vitrina.llm.factory",
    "resolve_provider": "vitrina.llm.factory",
    "PromptLibrary": "vitrina.llm.prompts",
    "render": "vitrina.llm.prompts",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
