"""Route fixtures: a RouteService over the demo warehouse with the real AskService."""

from __future__ import annotations

from datetime import date

import pytest

TODAY = date(2026, 11, 30)  # the same "today" as tests/conftest.py


@pytest.fixture
def make_route(make_service):
    """A factory of RouteService objects sharing one AskService (demo warehouse, fixed today)."""
    from vitrina.route import RouteService

    def factory(**kwargs):
        write_files = kwargs.pop("write_files", False)
        ask = make_service(write_files=write_files)  # a report's files are the ask run's files
        return RouteService(ask_service=ask, today=TODAY, write_files=write_files, **kwargs)

    return factory


def scripted(scripts: dict[str, list[object]]):
    """The real LLMClient over the one scripted fake (vitrina.llm.fake): the client's contract."""
    from vitrina.llm import LLMClient
    from vitrina.llm.fake import ScriptedChatModel

    fake = ScriptedChatModel(scripts)
    return LLMClient(fake, timeout_s=5, sleep=lambda _s: None), fake
