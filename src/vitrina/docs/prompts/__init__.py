"""Prompts of the docs job (Markdown templates read by vitrina.llm.PromptLibrary)."""
