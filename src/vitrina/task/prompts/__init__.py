"""Versioned prompts of the task job: `<name>/v<N>.md` with front matter, or Langfuse.

store = PromptStore.from_env(label="production")
prompt = store.get("planner")            # Prompt(name, version, labels, config, text, source)
prompt.render(request=..., tools=...)
"""

from vitrina.task.prompts.langfuse import LangfuseClient
from vitrina.task.prompts.store import Prompt, PromptError, PromptStore

__all__ = ["LangfuseClient", "Prompt", "PromptError", "PromptStore"]
