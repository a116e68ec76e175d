"""Prompt templates: files rendered with strict variables."""

from __future__ import annotations

import jinja2
import pytest

from vitrina.llm import PromptLibrary, render


def test_shared_prompts_render() -> None:
    text = render("json_repair", error="invalid JSON", schema='{"type": "object"}')
    assert "invalid JSON" in text and '{"type": "object"}' in text
    assert {"json_instruction", "json_repair", "ping"} <= set(
        PromptLibrary("vitrina.llm.prompts").names()
    )


def test_missing_variable_is_an_error() -> None:
    with pytest.raises(jinja2.UndefinedError):
        render("json_repair", error="x")


def test_unknown_prompt_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="json_repair"):
        render("no_such_prompt")
