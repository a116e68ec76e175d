"""The LLM layer: a chat model from settings, typed calls with one repair, a scripted fake.

    from vitrina.llm import build_client
    client = build_client(settings)            # None: no model configured, use the rules
    reply = client.structured("topic", messages, TopicChoice)
    if reply.value is None: ...                # reply.error says why; take the rule path

Tests use `vitrina.llm.fake.ScriptedChatModel` with `LLMClient(fake, timeout_s=...)`.
"""

from vitrina.llm.accounting import LLMCall, TaskTotals
from vitrina.llm.client import TASK_KEY, LLMClient, Structured, TextReply
from vitrina.llm.factory import LLMSettingsError, build_chat_model, build_client, resolve_provider
from vitrina.llm.prompts import PromptLibrary, render

__all__ = [
    "TASK_KEY",
    "LLMCall",
    "LLMClient",
    "LLMSettingsError",
    "PromptLibrary",
    "Structured",
    "TaskTotals",
    "TextReply",
    "build_chat_model",
    "build_client",
    "render",
    "resolve_provider",
]
